import * as E from "fp-ts/lib/Either.js";
import type { FilterSettings } from "../../src/domain/filters/filter-settings.js";
import { type ComputeNode, attachNio } from "../../src/domain/switching/compute-node.js";
import { createEthernetSwitch } from "../../src/domain/switching/ethernet-switch.js";
import type { UdpNio } from "../../src/domain/switching/nio.js";
import { defaultPortsMapping } from "../../src/domain/switching/port.js";

/** A UDP NIO on `lport`, sending to 127.0.0.1 at lport + 1000. */
export function udpNioAt(lport: number, filters: FilterSettings = {}): UdpNio {
  return { type: "nio_udp", lport, rhost: "127.0.0.1", rport: lport + 1000, filters, suspend: false };
}

/**
 * A switch whose ports 0 and 1 have UDP NIOs on `lport` and `lport + 1`, port 1 with `port1`'s filters:
 * the node a hand-over or discipline-switch test syncs again and again with other filters.
 */
export function switchWithFilteredPort(ids: { readonly projectId: string; readonly nodeId: string }, lport: number, port1: FilterSettings): ComputeNode {
  let node: ComputeNode = createEthernetSwitch({ ...ids, name: "SW", console: null, consoleType: "none", portsMapping: defaultPortsMapping() });
  for (const [port, nio] of [udpNioAt(lport), udpNioAt(lport + 1, port1)].entries()) {
    const attached: E.Either<{ _tag: string }, ComputeNode> = attachNio(node, port, nio);
    if (E.isLeft(attached)) throw new Error(attached.left._tag);
    node = attached.right;
  }
  return node;
}
