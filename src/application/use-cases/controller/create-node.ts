import { inject, injectable } from "tsyringe";
import * as E from "fp-ts/lib/Either.js";
import { type ControllerNode, SUPPORTED_NODE_TYPES, defaultNodeLabel } from "../../../domain/topology/node.js";
import type { NodeRepository } from "../../ports/repositories.js";
import type { IdGenerator } from "../../ports/system.js";
import { TOKENS } from "../../ports/tokens.js";
import type { NetemuError } from "../../errors.js";
import { KeyedLock } from "../../keyed-lock.js";
import { CreateComputeProject } from "../compute/create-compute-project.js";
import { CreateSwitch } from "../compute/create-switch.js";
import { ControllerLookup } from "./controller-lookup.js";
import type { NodeSettingsInput } from "./update-node.js";

export interface CreateNodeInput extends NodeSettingsInput {
  readonly name: string;
  readonly nodeType: string;
  readonly computeId: string;
  readonly nodeId?: string | undefined;
}

export const LOCAL_COMPUTE_ID = "local";

/** Creates an Ethernet switch node on the local compute, in process (no HTTP loopback). */
@injectable()
export class CreateNode {
  constructor(
    private readonly lookup: ControllerLookup,
    private readonly createComputeProject: CreateComputeProject,
    private readonly createSwitch: CreateSwitch,
    @inject(TOKENS.NodeRepository) private readonly nodes: NodeRepository,
    @inject(TOKENS.IdGenerator) private readonly ids: IdGenerator,
    @inject(TOKENS.KeyedLock) private readonly lock: KeyedLock,
  ) {}

  execute(projectId: string, input: CreateNodeInput): Promise<E.Either<NetemuError, ControllerNode>> {
    return this.lock.run(`project:${projectId}`, async () => {
      const project = await this.lookup.openedProject(projectId);
      if (E.isLeft(project)) return project;
      if (input.computeId !== LOCAL_COMPUTE_ID) return E.left({ _tag: "ComputeNotFound", computeId: input.computeId });
      if (!(SUPPORTED_NODE_TYPES as readonly string[]).includes(input.nodeType)) {
        return E.left({ _tag: "NodeTypeNotSupported", nodeType: input.nodeType });
      }
      const nodeId = input.nodeId ?? this.ids.uuid();
      const existing = await this.nodes.get(projectId, nodeId);
      if (existing !== undefined) return E.left({ _tag: "BadRequest", message: `Node ID ${nodeId} already exists in this project` });
      const computeProject = await this.createComputeProject.execute({ name: project.right.name, projectId });
      if (E.isLeft(computeProject)) return computeProject;
      const sw = await this.createSwitch.execute(projectId, {
        name: input.name,
        nodeId,
        consoleType: input.consoleType,
        portsMapping: input.portsMapping,
      });
      if (E.isLeft(sw)) return sw;
      const node: ControllerNode = {
        nodeId,
        projectId,
        nodeType: "ethernet_switch",
        computeId: LOCAL_COMPUTE_ID,
        name: sw.right.name,
        x: input.x ?? 0,
        y: input.y ?? 0,
        z: input.z ?? 1,
        locked: input.locked ?? false,
        label: input.label ?? defaultNodeLabel(input.name),
        symbol: input.symbol ?? ":/symbols/ethernet_switch.svg",
        portsMapping: sw.right.portsMapping,
        consoleType: sw.right.consoleType,
      };
      await this.nodes.save(node);
      return E.right(node);
    });
  }
}
