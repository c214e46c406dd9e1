import { inject, injectable } from "tsyringe";
import type { ComputeProjectRepository } from "../../ports/repositories.js";
import type { DataPlane } from "../../ports/data-plane.js";
import { TOKENS } from "../../ports/tokens.js";
import { ListProjects } from "../controller/list-projects.js";
import { CloseProject } from "../controller/close-project.js";
import { CloseComputeProject } from "../compute/close-compute-project.js";

/**
 * The core's part of a shutdown, in order: every controller project closed (its links' captures
 * ended), then every compute project (its switches, hubs, sockets and UDP ports), then the data
 * plane. The host stops its HTTP side around it.
 */
@injectable()
export class StopCore {
  constructor(
    private readonly listProjects: ListProjects,
    private readonly closeProject: CloseProject,
    private readonly closeComputeProject: CloseComputeProject,
    @inject(TOKENS.ComputeProjectRepository) private readonly computeProjects: ComputeProjectRepository,
    @inject(TOKENS.DataPlane) private readonly dataPlane: DataPlane,
  ) {}

  async execute(): Promise<void> {
    for (const project of await this.listProjects.execute()) await this.closeProject.execute({ projectId: project.projectId });
    for (const project of await this.computeProjects.list()) await this.closeComputeProject.execute({ projectId: project.projectId });
    await this.dataPlane.close();
  }
}
