import { inject, injectable } from "tsyringe";
import * as E from "fp-ts/lib/Either.js";
import type { ComputeProjectRepository, SwitchRepository } from "../../ports/repositories.js";
import { TOKENS } from "../../ports/tokens.js";
import type { NetemuError } from "../../errors.js";
import { ComputeLookup } from "./compute-lookup.js";
import { DeleteSwitch } from "./delete-switch.js";

/**
 * Closing (or deleting) a compute project deletes its switches, which closes their sockets and
 * frees their UDP ports, and forgets the project, as GNS3's compute does.
 */
@injectable()
export class CloseComputeProject {
  constructor(
    private readonly lookup: ComputeLookup,
    private readonly deleteSwitch: DeleteSwitch,
    @inject(TOKENS.ComputeProjectRepository) private readonly projects: ComputeProjectRepository,
    @inject(TOKENS.SwitchRepository) private readonly switches: SwitchRepository,
  ) {}

  async execute(projectId: string): Promise<E.Either<NetemuError, void>> {
    const project = await this.lookup.project(projectId);
    if (E.isLeft(project)) return project;
    for (const sw of await this.switches.list()) {
      if (sw.projectId === projectId) await this.deleteSwitch.execute(projectId, sw.nodeId);
    }
    await this.projects.delete(projectId);
    return E.right(undefined);
  }
}
