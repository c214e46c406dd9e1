import { inject, injectable } from "tsyringe";
import type { ProjectWrites, UnwrittenProject } from "../../ports/project-writes.js";
import { TOKENS } from "../../ports/tokens.js";

interface Readiness {
  /** False while a project's latest change is not on disk (its write fails and is being retried). */
  readonly ready: boolean;
  readonly unwrittenProjects: readonly UnwrittenProject[];
}

@injectable()
export class CheckReadiness {
  constructor(@inject(TOKENS.ProjectWrites) private readonly writes: ProjectWrites) {}

  execute(): Readiness {
    const unwrittenProjects = this.writes.unwritten();
    return { ready: unwrittenProjects.length === 0, unwrittenProjects };
  }
}
