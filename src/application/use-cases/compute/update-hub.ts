import { inject, injectable } from "tsyringe";
import * as E from "fp-ts/lib/Either.js";
import { type EthernetHub, type HubPortEntry, parseHubPorts, remapHubPorts } from "../../../domain/switching/ethernet-hub.js";
import { parseNodeName, renameNode } from "../../../domain/switching/compute-node.js";
import { TOKENS } from "../../ports/tokens.js";
import { COMPUTE_NODE_LOOKUP_REFUSALS, type Refusal, SYNC_REFUSALS } from "../../errors.js";
import { KeyedLock } from "../../keyed-lock.js";
import { ComputeLookup } from "./compute-lookup.js";
import { NodeChanges } from "./node-changes.js";

/** What UpdateHub can answer instead of its result. */
export const UPDATE_HUB_REFUSALS = [...COMPUTE_NODE_LOOKUP_REFUSALS, "NodeAlreadyConnected", "InvalidConfiguration", ...SYNC_REFUSALS] as const;
export type UpdateHubError = Refusal<typeof UPDATE_HUB_REFUSALS>;

export interface UpdateHubInput {
  readonly name?: string | undefined;
  readonly portsMapping?: readonly HubPortEntry[] | undefined;
}

/** PUT on a hub: rename, and a new ports_mapping while no NIO is attached. */
@injectable()
export class UpdateHub {
  constructor(
    private readonly lookup: ComputeLookup,
    private readonly changes: NodeChanges,
    @inject(TOKENS.KeyedLock) private readonly lock: KeyedLock,
  ) {}

  execute({ projectId, nodeId, ...input }: UpdateHubInput & { readonly projectId: string; readonly nodeId: string }): Promise<E.Either<UpdateHubError, EthernetHub>> {
    return this.lock.run(nodeId, async () => {
      const found = await this.lookup.nodeOf(projectId, nodeId, "ethernet_hub");
      if (E.isLeft(found)) return found;
      let hub = found.right;
      if (input.portsMapping !== undefined) {
        const ports = parseHubPorts(input.portsMapping);
        if (E.isLeft(ports)) return ports;
        const remapped = remapHubPorts(hub, ports.right);
        if (E.isLeft(remapped)) return remapped;
        hub = remapped.right;
      }
      if (input.name !== undefined) {
        const name = parseNodeName(input.name);
        if (E.isLeft(name)) return name;
        hub = renameNode(hub, name.right);
      }
      const applied = await this.changes.apply(found.right, hub);
      return E.isLeft(applied) ? applied : E.right(hub);
    });
  }
}
