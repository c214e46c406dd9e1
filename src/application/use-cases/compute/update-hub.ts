import { inject, injectable } from "tsyringe";
import * as E from "fp-ts/lib/Either.js";
import { type EthernetHub, type HubPortEntry, remapHubPorts } from "../../../domain/switching/ethernet-hub.js";
import { renameNode } from "../../../domain/switching/compute-node.js";
import type { ComputeNodeRepository } from "../../ports/repositories.js";
import type { DataPlane } from "../../ports/data-plane.js";
import type { Notifications } from "../../ports/notifications.js";
import { TOKENS } from "../../ports/tokens.js";
import type { NetemuError } from "../../errors.js";
import { KeyedLock } from "../../keyed-lock.js";
import { ComputeLookup } from "./compute-lookup.js";

export interface UpdateHubInput {
  readonly name?: string | undefined;
  readonly portsMapping?: readonly HubPortEntry[] | undefined;
}

/** PUT on a hub: rename, and a new ports_mapping while no NIO is attached. */
@injectable()
export class UpdateHub {
  constructor(
    private readonly lookup: ComputeLookup,
    @inject(TOKENS.ComputeNodeRepository) private readonly nodes: ComputeNodeRepository,
    @inject(TOKENS.DataPlane) private readonly dataPlane: DataPlane,
    @inject(TOKENS.Notifications) private readonly notifications: Notifications,
    @inject(TOKENS.KeyedLock) private readonly lock: KeyedLock,
  ) {}

  execute(projectId: string, nodeId: string, input: UpdateHubInput): Promise<E.Either<NetemuError, EthernetHub>> {
    return this.lock.run(nodeId, async () => {
      const found = await this.lookup.nodeOf(projectId, nodeId, "ethernet_hub");
      if (E.isLeft(found)) return found;
      let hub = found.right;
      if (input.portsMapping !== undefined) {
        const remapped = remapHubPorts(hub, input.portsMapping);
        if (E.isLeft(remapped)) return remapped;
        hub = remapped.right;
      }
      if (input.name !== undefined) hub = renameNode(hub, input.name);
      await this.nodes.save(hub);
      this.dataPlane.update(hub);
      if (hub.name !== found.right.name || hub.portsMapping !== found.right.portsMapping) {
        this.notifications.publish({ kind: "node.updated", node: hub });
      }
      return E.right(hub);
    });
  }
}
