import { inject, injectable } from "tsyringe";
import * as E from "fp-ts/lib/Either.js";
import type { Project } from "../../../domain/topology/project.js";
import type { LinkRepository, NodeRepository, ProjectRepository } from "../../ports/repositories.js";
import type { UdpPortPool } from "../../ports/udp-port-pool.js";
import type { Logger } from "../../ports/system.js";
import { TOKENS } from "../../ports/tokens.js";
import type { ErrorOf } from "../../errors.js";
import { KeyedLock } from "../../keyed-lock.js";
import { CreateComputeProject } from "../compute/create-compute-project.js";
import { ComputeNodeCommands } from "./compute-node-commands.js";
import { ControllerLookup } from "./controller-lookup.js";
import { LinkWiring } from "./link-wiring.js";

/** What OpenProject can answer instead of its result. */
export type OpenProjectError = ErrorOf<"ProjectNotFound">;

/**
 * Opens a closed project: its switches and hubs are created again on the local compute and its links
 * wired with the UDP ports they had. A link whose port has been taken meanwhile is dropped with
 * a warning in the log, as GNS3 drops links it cannot restore.
 */
@injectable()
export class OpenProject {
  constructor(
    private readonly lookup: ControllerLookup,
    private readonly createComputeProject: CreateComputeProject,
    private readonly computeNodes: ComputeNodeCommands,
    private readonly wiring: LinkWiring,
    @inject(TOKENS.ProjectRepository) private readonly projects: ProjectRepository,
    @inject(TOKENS.NodeRepository) private readonly nodes: NodeRepository,
    @inject(TOKENS.LinkRepository) private readonly links: LinkRepository,
    @inject(TOKENS.UdpPortPool) private readonly pool: UdpPortPool,
    @inject(TOKENS.Logger) private readonly logger: Logger,
    @inject(TOKENS.KeyedLock) private readonly lock: KeyedLock,
  ) {}

  execute({ projectId }: { readonly projectId: string }): Promise<E.Either<OpenProjectError, Project>> {
    return this.lock.run(`project:${projectId}`, async () => {
      const project = await this.lookup.project(projectId);
      if (E.isLeft(project)) return project;
      if (project.right.status === "opened") return project;
      await this.createComputeProject.execute({ name: project.right.name, projectId });
      for (const node of await this.nodes.listByProject(projectId)) {
        await this.computeNodes.create(projectId, node.nodeId, node.nodeType, {
          name: node.name,
          consoleType: node.consoleType ?? undefined,
          portsMapping: node.portsMapping,
        });
      }
      for (const link of await this.links.listByProject(projectId)) {
        const wired = await this.wiring.wire(link);
        if (E.isLeft(wired)) {
          this.logger.warn("link could not be restored", { projectId, linkId: link.linkId, error: wired.left._tag });
          for (const end of link.nodes) this.pool.release(end.udpPort);
          await this.links.delete(projectId, link.linkId);
        }
      }
      const opened: Project = { ...project.right, status: "opened" };
      await this.projects.save(opened);
      return E.right(opened);
    });
  }
}
