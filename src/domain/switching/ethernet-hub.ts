import * as E from "fp-ts/lib/Either.js";
import type { Nio } from "./nio.js";
import type { NodeAlreadyConnected, NodeIdentity } from "./node-kind.js";
import type { InvalidConfiguration } from "../configuration/invalid-configuration.js";
import { parsePortEntries, portsMappingEqual, readNumberedPort } from "./port.js";

/** A hub port as GNS3 configures it: a name and a number, nothing else (no VLANs on a hub). */
export interface HubPortEntry {
  readonly name: string;
  readonly port_number: number;
}

/**
 * An Ethernet hub node on the compute: every frame received on a port goes out of every other
 * port that has a NIO. Immutable, like the switch.
 */
export interface EthernetHub extends NodeIdentity {
  readonly nodeType: "ethernet_hub";
  readonly portsMapping: readonly HubPortEntry[];
  readonly nios: ReadonlyMap<number, Nio>;
}

export function createEthernetHub(fields: Omit<EthernetHub, "nios" | "status" | "nodeType">): EthernetHub {
  return { nodeType: "ethernet_hub", ...fields, status: "started", nios: new Map() };
}

/** GNS3's default: eight ports named Ethernet0..7. */
export function defaultHubPorts(): HubPortEntry[] {
  return Array.from({ length: 8 }, (_, i) => ({ name: `Ethernet${i}`, port_number: i }));
}

/**
 * The one parse of a hub's ports_mapping, at every door (ADR 0053): names and numbers, at most
 * portsPerNode entries, no port number twice; other keys are left out of the value.
 */
export function parseHubPorts(raw: unknown, field = "ports_mapping"): E.Either<InvalidConfiguration, readonly HubPortEntry[]> {
  return parsePortEntries(raw, field, (o, at) => E.map((p: HubPortEntry) => Object.freeze({ name: p.name, port_number: p.port_number }))(readNumberedPort(o, at)));
}

/**
 * GNS3's hub ports_mapping update: any change is refused while a NIO is attached; otherwise the
 * entries are renamed Ethernet<i> and renumbered i.
 */
export function remapHubPorts(hub: EthernetHub, requested: readonly HubPortEntry[]): E.Either<NodeAlreadyConnected, EthernetHub> {
  if (portsMappingEqual(hub.portsMapping, requested)) return E.right(hub);
  if (hub.nios.size > 0) return E.left({ _tag: "NodeAlreadyConnected", nodeType: "ethernet_hub" });
  return E.right({ ...hub, portsMapping: requested.map((_, i) => ({ name: `Ethernet${i}`, port_number: i })) });
}
