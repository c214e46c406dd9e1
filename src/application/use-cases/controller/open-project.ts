import { nodeFilesFolder } from "../../../domain/topology/node.js";
import { ChangeNodeStatus } from "../compute/change-node-status.js";
import { inject, injectable } from "tsyringe";
import * as E from "fp-ts/lib/Either.js";
import type { Project } from "../../../domain/topology/project.js";
import type { Link } from "../../../domain/topology/link.js";
import type { LinkRepository, NodeRepository, ProjectRepository } from "../../ports/repositories.js";
import type { UdpPortPool } from "../../ports/udp-port-pool.js";
import type { Logger } from "../../ports/system.js";
import { TOKENS } from "../../ports/tokens.js";
import type { ProjectEvents } from "../../ports/project-events.js";
import type { ErrorOf, Refusal } from "../../errors.js";
import { KeyedLock } from "../../keyed-lock.js";
import { CreateComputeProject } from "../compute/create-compute-project.js";
import { ComputeNodeCommands } from "./compute-node-commands.js";
import { ControllerLookup } from "./controller-lookup.js";
import { NodeViews } from "./node-views.js";
import { LinkWiring, type WiringError } from "./link-wiring.js";

/** What OpenProject can answer instead of its result. */
export const OPEN_PROJECT_REFUSALS = ["ProjectNotFound", "ProjectHasUnsupportedNodes"] as const;
export type OpenProjectError = Refusal<typeof OPEN_PROJECT_REFUSALS>;

/**
 * Opens a closed project: its switches and hubs are created again on the local compute and its links
 * wired on UDP ports reserved afresh, as GNS3's controller does (a project read from its file has
 * none, and the old ones may have been taken meanwhile). A link that cannot be wired is dropped
 * with a warning in the log, as GNS3 drops links it cannot restore. A project whose file has nodes
 * netemu does not run is refused, naming their types.
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
    @inject(TOKENS.ProjectEvents) private readonly events: ProjectEvents,
    private readonly changeStatus: ChangeNodeStatus,
    private readonly views: NodeViews,
  ) {}

  execute({ projectId }: { readonly projectId: string }): Promise<E.Either<OpenProjectError, Project>> {
    return this.lock.run(`project:${projectId}`, async () => {
      const project = await this.lookup.project(projectId);
      if (E.isLeft(project)) return project;
      if (project.right.status === "opened") return project;
      const { unsupportedNodeTypes } = project.right;
      if (unsupportedNodeTypes.length > 0) return E.left({ _tag: "ProjectHasUnsupportedNodes", projectName: project.right.name, nodeTypes: unsupportedNodeTypes });
      await this.createComputeProject.execute({ name: project.right.name, projectId });
      for (const node of await this.nodes.listByProject(projectId)) {
        const made = await this.computeNodes.create(projectId, node.nodeId, node.nodeType, {
          name: node.name,
          consoleType: node.consoleType ?? undefined,
          portsMapping: node.portsMapping,
          console: node.console,
          directory: `${project.right.path}/project-files/${nodeFilesFolder(node.nodeType)}/${node.nodeId}`,
          ...(node.remoteConsole !== undefined && {
            remoteConsoleHost: node.remoteConsole.host,
            remoteConsolePort: node.remoteConsole.port,
            remoteConsoleType: node.remoteConsole.type,
            remoteConsoleHttpPath: node.remoteConsole.httpPath,
          }),
          ...(node.host !== undefined && { interfaces: node.host.interfaces, gateway: node.host.gateway }),
        });
        // A host whose console port was taken meanwhile got another: the node (and its file) say which.
        if (E.isRight(made) && made.right.nodeType === "vpcs" && made.right.console !== (node.console ?? null)) await this.nodes.save({ ...node, console: made.right.console });
      }
      for (const link of await this.links.listByProject(projectId)) {
        const restored = await this.restore(link);
        if (E.isLeft(restored)) {
          this.logger.warn("link could not be restored", { projectId, linkId: link.linkId, error: restored.left._tag });
          await this.links.delete(projectId, link.linkId);
        }
      }
      const opened: Project = { ...project.right, status: "opened" };
      await this.projects.save(opened);
      // As GNS3's load: each node, link and drawing is told as created, so a client watching the project before it opened draws it.
      for (const node of await this.views.all(await this.nodes.listByProject(projectId))) this.events.publish({ kind: "node.created", projectId, node });
      for (const link of await this.links.listByProject(projectId)) this.events.publish({ kind: "link.created", projectId, link });
      for (const drawing of opened.drawings) this.events.publish({ kind: "drawing.created", projectId, drawing });
      this.events.publish({ kind: "project.opened", project: opened });
      // Hosts come back stopped, as in GNS3, unless the project starts its nodes when opened.
      if (opened.autoStart) {
        for (const node of await this.nodes.listByProject(projectId)) {
          const started = await this.changeStatus.execute({ projectId, nodeId: node.nodeId, status: "started" });
          if (E.isLeft(started)) this.logger.warn("node of an auto_start project could not be started", { projectId, nodeId: node.nodeId, name: node.name, error: started.left._tag });
        }
      }
      return E.right(opened);
    });
  }

  /** Wires the link on two newly reserved UDP ports and saves it with them. */
  private async restore(link: Link): Promise<E.Either<ErrorOf<"NoFreeUdpPort" | "UdpPortCheckFailed"> | WiringError, void>> {
    const ports: number[] = [];
    for (const _end of link.nodes) {
      const port = await this.pool.reserve(link.projectId);
      if (E.isLeft(port)) {
        for (const p of ports) this.pool.release(p);
        return port;
      }
      ports.push(port.right);
    }
    const [a, b] = link.nodes;
    const rewired: Link = { ...link, nodes: [{ ...a, udpPort: ports[0] as number }, { ...b, udpPort: ports[1] as number }] };
    const wired = await this.wiring.wire(rewired);
    if (E.isLeft(wired)) {
      for (const p of ports) this.pool.release(p);
      return wired;
    }
    await this.links.save(rewired);
    return E.right(undefined);
  }
}
