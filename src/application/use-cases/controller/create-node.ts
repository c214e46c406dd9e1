import { inject, injectable } from "tsyringe";
import { viewOf } from "./node-views.js";
import * as E from "fp-ts/lib/Either.js";
import { type ControllerNode, type NodeType, SUPPORTED_NODE_TYPES, defaultNodeLabel, defaultSymbol, nodeFilesFolder } from "../../../domain/topology/node.js";
import type { NodeRepository } from "../../ports/repositories.js";
import type { IdGenerator } from "../../ports/system.js";
import { TOKENS } from "../../ports/tokens.js";
import type { ProjectEvents } from "../../ports/project-events.js";
import { CONTROLLER_PROJECT_LOOKUP_REFUSALS, type Refusal } from "../../errors.js";
import { KeyedLock } from "../../keyed-lock.js";
import { allocateNodeName } from "../../../domain/topology/templates.js";
import { CONFIGURATION_LIMITS } from "../../../domain/configuration/limits.js";
import { CreateComputeProject } from "../compute/create-compute-project.js";
import { ComputeNodeCommands } from "./compute-node-commands.js";
import { ControllerLookup } from "./controller-lookup.js";
import type { ControllerNodeView } from "./node-views.js";
import type { NodeSettingsInput } from "./update-node.js";
import { COMPUTE_NODE_CREATE_REFUSALS } from "./compute-node-commands.js";
import { CREATE_COMPUTE_PROJECT_REFUSALS } from "../compute/create-compute-project.js";

/** What CreateNode can answer instead of its result. */
export const CREATE_NODE_REFUSALS = [
  ...CONTROLLER_PROJECT_LOOKUP_REFUSALS,
  "ComputeNotFound",
  "NodeTypeNotSupported",
  "NodeAlreadyExists",
  "ProjectFull",
  ...CREATE_COMPUTE_PROJECT_REFUSALS,
  ...COMPUTE_NODE_CREATE_REFUSALS,
] as const;
export type CreateNodeError = Refusal<typeof CREATE_NODE_REFUSALS>;

export interface CreateNodeInput extends NodeSettingsInput {
  readonly name: string;
  readonly nodeType: string;
  readonly computeId: string;
  readonly nodeId?: string | undefined;
  /** The template the node is made from (GNS3 keeps its id on the node). */
  readonly templateId?: string | undefined;
  /**
   * Whether `name` is a template's name format ("Switch{0}") to number within the project. Done
   * here, under the project's lock, so that two concurrent creates never get one name.
   */
  readonly allocateName?: boolean | undefined;
  /** A host's console port, when the client asks for one. */
  readonly console?: number | null | undefined;
  /** A VPCS's startup script (`properties.startup_script`, or the template's base script). */
  readonly startupScript?: string | undefined;
}

const LOCAL_COMPUTE_ID = "local";

/** Creates a switch, hub or host node on the local compute, in process (no HTTP loopback). */
@injectable()
export class CreateNode {
  constructor(
    private readonly lookup: ControllerLookup,
    private readonly createComputeProject: CreateComputeProject,
    private readonly computeNodes: ComputeNodeCommands,
    @inject(TOKENS.NodeRepository) private readonly nodes: NodeRepository,
    @inject(TOKENS.IdGenerator) private readonly ids: IdGenerator,
    @inject(TOKENS.KeyedLock) private readonly lock: KeyedLock,
    @inject(TOKENS.ProjectEvents) private readonly events: ProjectEvents,
  ) {}

  execute({ projectId, ...input }: CreateNodeInput & { readonly projectId: string }): Promise<E.Either<CreateNodeError, ControllerNodeView>> {
    return this.lock.run(`project:${projectId}`, async () => {
      const project = await this.lookup.openedProject(projectId);
      if (E.isLeft(project)) return project;
      if (input.computeId !== LOCAL_COMPUTE_ID) return E.left({ _tag: "ComputeNotFound", computeId: input.computeId });
      if (!(SUPPORTED_NODE_TYPES as readonly string[]).includes(input.nodeType)) {
        return E.left({ _tag: "NodeTypeNotSupported", nodeType: input.nodeType });
      }
      const nodeId = input.nodeId ?? this.ids.uuid();
      const existing = await this.nodes.get(projectId, nodeId);
      if (existing !== undefined) return E.left({ _tag: "NodeAlreadyExists", nodeId });
      const limit = CONFIGURATION_LIMITS.nodesPerProject;
      const siblings = await this.nodes.listByProject(projectId);
      if (siblings.length >= limit) return E.left({ _tag: "ProjectFull", what: "nodes", limit });
      const name = input.allocateName === true ? allocateNodeName(input.name, new Set(siblings.map((n) => n.name))) : input.name;
      const computeProject = await this.createComputeProject.execute({ name: project.right.name, projectId });
      if (E.isLeft(computeProject)) return computeProject;
      const nodeType = input.nodeType as NodeType;
      const sw = await this.computeNodes.create(projectId, nodeId, nodeType, {
        name,
        consoleType: input.consoleType,
        portsMapping: input.portsMapping,
        console: input.console,
        startupScript: input.startupScript,
        ...input.remoteConsole,
        interfaces: input.interfaces,
        gateway: input.gateway,
        // A host's files live in the controller's project, as in GNS3 (`project-files/<type>/<node id>`).
        directory: `${project.right.path}/project-files/${nodeFilesFolder(nodeType)}/${nodeId}`,
      });
      if (E.isLeft(sw)) return sw;
      const node: ControllerNode = {
        nodeId,
        projectId,
        nodeType,
        computeId: LOCAL_COMPUTE_ID,
        name: sw.right.name,
        x: input.x ?? 0,
        y: input.y ?? 0,
        z: input.z ?? 1,
        locked: input.locked ?? false,
        label: input.label ?? defaultNodeLabel(name),
        symbol: input.symbol ?? defaultSymbol(nodeType),
        portsMapping: sw.right.portsMapping,
        consoleType: sw.right.nodeType === "ethernet_hub" || sw.right.nodeType === "cloud" ? null : sw.right.consoleType,
        ...(sw.right.nodeType === "vpcs" && { console: sw.right.console }),
        ...(sw.right.nodeType === "cloud" && { remoteConsole: sw.right.remoteConsole }),
        ...(sw.right.nodeType === "netemu_host" && { host: { interfaces: sw.right.interfaces, gateway: sw.right.gateway } }),
        ...(input.templateId !== undefined && { templateId: input.templateId }),
      };
      await this.nodes.save(node);
      const view = viewOf(node, sw.right);
      this.events.publish({ kind: "node.created", projectId, node: view });
      return E.right(view);
    });
  }
}
