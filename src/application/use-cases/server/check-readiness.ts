import { inject, injectable } from "tsyringe";
import type { ProjectWrites, UnwrittenProject } from "../../ports/project-writes.js";
import type { DarkWorker, DataPlaneHealth } from "../../ports/data-plane-health.js";
import { TOKENS } from "../../ports/tokens.js";

export interface Readiness {
  /** False while a project's latest change is not on disk (ADR 0057) or a node forwards nothing because its worker died (ADR 0073). */
  readonly ready: boolean;
  readonly unwrittenProjects: readonly UnwrittenProject[];
  readonly darkWorkers: readonly DarkWorker[];
}

@injectable()
export class CheckReadiness {
  constructor(
    @inject(TOKENS.ProjectWrites) private readonly writes: ProjectWrites,
    @inject(TOKENS.DataPlaneHealth) private readonly dataPlane: DataPlaneHealth,
  ) {}

  execute(): Readiness {
    const unwrittenProjects = this.writes.unwritten();
    const darkWorkers = this.dataPlane.darkWorkers();
    return { ready: unwrittenProjects.length === 0 && darkWorkers.length === 0, unwrittenProjects, darkWorkers };
  }
}
