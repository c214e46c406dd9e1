import { inject, injectable } from "tsyringe";
import { viewOf } from "./node-views.js";
import * as E from "fp-ts/lib/Either.js";
import type { ControllerNode, NodePortEntry } from "../../../domain/topology/node.js";
import type { Label } from "../../../domain/topology/label.js";
import type { ConsoleType } from "../../../domain/switching/ethernet-switch.js";
import type { NodeRepository } from "../../ports/repositories.js";
import { TOKENS } from "../../ports/tokens.js";
import type { ProjectEvents } from "../../ports/project-events.js";
import { CONTROLLER_NODE_LOOKUP_REFUSALS, type Refusal } from "../../errors.js";
import { KeyedLock } from "../../keyed-lock.js";
import { ComputeNodeCommands } from "./compute-node-commands.js";
import { ControllerLookup } from "./controller-lookup.js";
import type { ControllerNodeView } from "./node-views.js";
import { COMPUTE_NODE_UPDATE_REFUSALS } from "./compute-node-commands.js";
import type { RemoteConsoleInput } from "../compute/cloud-remote-console.js";

/** What UpdateNode can answer instead of its result. */
export const UPDATE_NODE_REFUSALS = [...CONTROLLER_NODE_LOOKUP_REFUSALS, ...COMPUTE_NODE_UPDATE_REFUSALS] as const;
export type UpdateNodeError = Refusal<typeof UPDATE_NODE_REFUSALS>;

/** What a client may set on a node: where it sits on the canvas, and its switch's or hub's settings. */
export interface NodeSettingsInput {
  readonly x?: number | undefined;
  readonly y?: number | undefined;
  readonly z?: number | undefined;
  readonly locked?: boolean | undefined;
  readonly label?: Label | undefined;
  readonly symbol?: string | undefined;
  readonly consoleType?: ConsoleType | undefined;
  readonly portsMapping?: readonly NodePortEntry[] | undefined;
  /** A host's console port (a switch's is not opened: ignored). */
  readonly console?: number | null | undefined;
  /** A cloud's remote_console_* properties (other kinds: ignored). */
  readonly remoteConsole?: RemoteConsoleInput | undefined;
  /** A Linux host's interfaces and gateway (its `properties`, ADR 0087), parsed by its compute use case. */
  readonly interfaces?: unknown;
  readonly gateway?: unknown;
}

export interface UpdateNodeInput extends NodeSettingsInput {
  readonly name?: string | undefined;
}

/** PUT on a controller node: canvas fields here, switch or hub settings pushed to the compute (live). */
@injectable()
export class UpdateNode {
  constructor(
    private readonly lookup: ControllerLookup,
    private readonly computeNodes: ComputeNodeCommands,
    @inject(TOKENS.NodeRepository) private readonly nodes: NodeRepository,
    @inject(TOKENS.KeyedLock) private readonly lock: KeyedLock,
    @inject(TOKENS.ProjectEvents) private readonly events: ProjectEvents,
  ) {}

  execute({ projectId, nodeId, ...input }: UpdateNodeInput & { readonly projectId: string; readonly nodeId: string }): Promise<E.Either<UpdateNodeError, ControllerNodeView>> {
    return this.lock.run(`project:${projectId}`, async () => {
      const node = await this.lookup.node(projectId, nodeId);
      if (E.isLeft(node)) return node;
      const sw = await this.computeNodes.update(projectId, nodeId, node.right.nodeType, {
        name: input.name,
        consoleType: input.consoleType,
        portsMapping: input.portsMapping,
        console: input.console,
        ...input.remoteConsole,
        interfaces: input.interfaces,
        gateway: input.gateway,
      });
      if (E.isLeft(sw)) return sw;
      const updated: ControllerNode = {
        ...node.right,
        name: sw.right.name,
        portsMapping: sw.right.portsMapping,
        consoleType: sw.right.nodeType === "ethernet_hub" || sw.right.nodeType === "cloud" ? null : sw.right.consoleType,
        ...(sw.right.nodeType === "vpcs" && { console: sw.right.console }),
        ...(sw.right.nodeType === "cloud" && { remoteConsole: sw.right.remoteConsole }),
        ...(sw.right.nodeType === "netemu_host" && { host: { interfaces: sw.right.interfaces, gateway: sw.right.gateway } }),
        x: input.x ?? node.right.x,
        y: input.y ?? node.right.y,
        z: input.z ?? node.right.z,
        locked: input.locked ?? node.right.locked,
        label: input.label ?? node.right.label,
        symbol: input.symbol ?? node.right.symbol,
      };
      await this.nodes.save(updated);
      const view = viewOf(updated, sw.right);
      this.events.publish({ kind: "node.updated", projectId, node: view });
      return E.right(view);
    });
  }
}
