import { inject, injectable } from "tsyringe";
import type { ComputeProjectRepository } from "../../ports/repositories.js";
import type { DataPlane } from "../../ports/data-plane.js";
import { TOKENS } from "../../ports/tokens.js";
import type { Logger } from "../../ports/system.js";
import { ListProjects } from "../controller/list-projects.js";
import { CloseProject } from "../controller/close-project.js";
import { CloseComputeProject } from "../compute/close-compute-project.js";
import { HostRuntime } from "../compute/host-runtime.js";

/**
 * The core's part of a shutdown, in order: every host process ended, every controller project closed (its links' captures
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
    @inject(TOKENS.Logger) private readonly logger: Logger,
    private readonly hosts: HostRuntime,
  ) {}

  async execute(): Promise<void> {
    // Every host process at once (ADR 0090): a close stops them a few at a time, each in its stop grace,
    // which for hundreds of started hosts outlasts what a service manager waits before its SIGKILL.
    await this.hosts.stopAll();
    const projects = await this.listProjects.execute();
    this.logger.info("shutdown: closing controller projects", { count: projects.length });
    for (const project of projects) await this.closeProject.execute({ projectId: project.projectId });
    const computeProjects = await this.computeProjects.list();
    this.logger.info("shutdown: closing compute projects", { count: computeProjects.length });
    for (const project of computeProjects) await this.closeComputeProject.execute({ projectId: project.projectId });
    // Closing the projects ended their hosts' processes; whatever is left (a start under way) ends here.
    await this.hosts.stopAll();
    await this.dataPlane.close();
    this.logger.info("shutdown: data plane closed");
  }
}
