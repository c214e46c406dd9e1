import { inject, injectable } from "tsyringe";
import * as E from "fp-ts/lib/Either.js";
import { type CloudNode, parseCloudPorts, remapCloudPorts } from "../../../domain/switching/cloud-node.js";
import { parseNodeName, renameNode } from "../../../domain/switching/compute-node.js";
import { TOKENS } from "../../ports/tokens.js";
import { COMPUTE_NODE_LOOKUP_REFUSALS, type Refusal, SYNC_REFUSALS } from "../../errors.js";
import { KeyedLock } from "../../keyed-lock.js";
import { ComputeLookup } from "./compute-lookup.js";
import { NodeChanges } from "./node-changes.js";
import { CloudTunnelPorts } from "./cloud-tunnel-ports.js";
import { type RemoteConsoleInput, remoteConsoleOf } from "./cloud-remote-console.js";

/** What UpdateCloud can answer instead of its result. */
export const UPDATE_CLOUD_REFUSALS = [...COMPUTE_NODE_LOOKUP_REFUSALS, "InvalidConfiguration", "NodeAlreadyConnected", "CloudLportInUse", ...SYNC_REFUSALS] as const;
export type UpdateCloudError = Refusal<typeof UPDATE_CLOUD_REFUSALS>;

export interface UpdateCloudInput extends RemoteConsoleInput {
  readonly name?: string | undefined;
  readonly portsMapping?: unknown;
}

/** A cloud renamed, its ports remapped (refused while linked, as GNS3 does) or its remote console changed (ADR 0082). */
@injectable()
export class UpdateCloud {
  constructor(
    private readonly lookup: ComputeLookup,
    private readonly changes: NodeChanges,
    private readonly tunnels: CloudTunnelPorts,
    @inject(TOKENS.KeyedLock) private readonly lock: KeyedLock,
  ) {}

  execute({ projectId, nodeId, ...input }: UpdateCloudInput & { readonly projectId: string; readonly nodeId: string }): Promise<E.Either<UpdateCloudError, CloudNode>> {
    return this.lock.run(nodeId, async () => {
      const found = await this.lookup.nodeOf(projectId, nodeId, "cloud");
      if (E.isLeft(found)) return found;
      const before = found.right;
      let node = before;
      if (input.name !== undefined && input.name !== node.name) {
        const name = parseNodeName(input.name);
        if (E.isLeft(name)) return name;
        node = renameNode(node, name.right);
      }
      if (input.portsMapping !== undefined) {
        const ports = parseCloudPorts(input.portsMapping);
        if (E.isLeft(ports)) return ports;
        const remapped = remapCloudPorts(node, ports.right);
        if (E.isLeft(remapped)) return remapped;
        node = remapped.right;
      }
      const remote = remoteConsoleOf(node.remoteConsole, input);
      if (E.isLeft(remote)) return remote;
      node = { ...node, remoteConsole: remote.right };
      if (node.portsMapping !== before.portsMapping) {
        const taken = await this.tunnels.taken(node.name, node.portsMapping, before.portsMapping);
        if (taken !== undefined) return E.left(taken);
      }
      const applied = await this.changes.apply(before, node);
      if (E.isLeft(applied)) return applied;
      if (node.portsMapping !== before.portsMapping) {
        this.tunnels.letGo(before.portsMapping);
        this.tunnels.hold(projectId, node.portsMapping);
      }
      return E.right(node);
    });
  }
}
