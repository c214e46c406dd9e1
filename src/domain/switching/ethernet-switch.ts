import * as E from "fp-ts/lib/Either.js";
import type { Nio } from "./nio.js";
import { type PortMappingEntry, type Port, portFromMapping, portsMappingEqual } from "./port.js";
import type { ConsoleType, NodeAlreadyConnected, NodeIdentity } from "./node-kind.js";

// The console type is every kind's (node-kind.ts); its importers still find it here, beside the switch.
export type { ConsoleType } from "./node-kind.js";

/**
 * An Ethernet switch node on the compute: its configured ports (ports_mapping) and the NIO
 * attached to each port number. Immutable: every change returns a new value.
 */
export interface EthernetSwitch extends NodeIdentity {
  readonly nodeType: "ethernet_switch";
  readonly console: number | null;
  readonly consoleType: ConsoleType;
  readonly portsMapping: readonly PortMappingEntry[];
  readonly nios: ReadonlyMap<number, Nio>;
}

export function createEthernetSwitch(fields: Omit<EthernetSwitch, "nios" | "status" | "nodeType">): EthernetSwitch {
  return { nodeType: "ethernet_switch", ...fields, status: "started", nios: new Map() };
}

export function portOf(sw: EthernetSwitch, portNumber: number): Port | undefined {
  const entry = sw.portsMapping.find((p) => p.port_number === portNumber);
  return entry === undefined ? undefined : portFromMapping(entry);
}

/**
 * GNS3's ports_mapping update: with NIOs attached the number of ports cannot change; the entries
 * are renamed Ethernet<i> and renumbered i. netemu also refuses a new mapping that would drop a
 * port that still has a NIO (GNS3 would leave that NIO switching in a stale VLAN).
 */
export function remapPorts(sw: EthernetSwitch, requested: readonly PortMappingEntry[]): E.Either<NodeAlreadyConnected, EthernetSwitch> {
  if (portsMappingEqual(sw.portsMapping, requested)) return E.right(sw);
  const connected: NodeAlreadyConnected = { _tag: "NodeAlreadyConnected", nodeType: "ethernet_switch" };
  if (sw.nios.size > 0 && requested.length !== sw.portsMapping.length) return E.left(connected);
  const portsMapping = requested.map((entry, i) => ({ ...entry, name: `Ethernet${i}`, port_number: i }));
  for (const portNumber of sw.nios.keys()) {
    if (!portsMapping.some((p) => p.port_number === portNumber)) return E.left(connected);
  }
  return E.right({ ...sw, portsMapping });
}
