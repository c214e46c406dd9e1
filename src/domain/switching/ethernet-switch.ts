import * as E from "fp-ts/lib/Either.js";
import type { Nio } from "./nio.js";
import { type PortMappingEntry, type Port, portFromMapping } from "./port.js";

export type ConsoleType = "telnet" | "none";
export type NodeStatus = "started" | "stopped" | "suspended";

/**
 * An Ethernet switch node on the compute: its configured ports (ports_mapping) and the NIO
 * attached to each port number. Immutable: every change returns a new value.
 */
export interface EthernetSwitch {
  readonly nodeId: string;
  readonly projectId: string;
  readonly name: string;
  readonly console: number | null;
  readonly consoleType: ConsoleType;
  readonly status: NodeStatus;
  readonly portsMapping: readonly PortMappingEntry[];
  readonly nios: ReadonlyMap<number, Nio>;
}

export type SwitchRuleViolation =
  | { readonly _tag: "PortNotFree"; readonly portNumber: number }
  | { readonly _tag: "PortNotAllocated"; readonly portNumber: number }
  | { readonly _tag: "PortNotFound"; readonly portNumber: number; readonly switchName: string }
  | { readonly _tag: "SwitchAlreadyConnected" };

export function createEthernetSwitch(fields: Omit<EthernetSwitch, "nios" | "status">): EthernetSwitch {
  return { ...fields, status: "started", nios: new Map() };
}

export function portOf(sw: EthernetSwitch, portNumber: number): Port | undefined {
  const entry = sw.portsMapping.find((p) => p.port_number === portNumber);
  return entry === undefined ? undefined : portFromMapping(entry);
}

export function attachNio(sw: EthernetSwitch, portNumber: number, nio: Nio): E.Either<SwitchRuleViolation, EthernetSwitch> {
  // Unlike Dynamips, a port outside ports_mapping has no VLAN to forward in, so it is refused.
  if (portOf(sw, portNumber) === undefined) return E.left({ _tag: "PortNotFound", portNumber, switchName: sw.name });
  if (sw.nios.has(portNumber)) return E.left({ _tag: "PortNotFree", portNumber });
  const nios = new Map(sw.nios);
  nios.set(portNumber, nio);
  return E.right({ ...sw, nios });
}

export function detachNio(sw: EthernetSwitch, portNumber: number): E.Either<SwitchRuleViolation, EthernetSwitch> {
  if (!sw.nios.has(portNumber)) return E.left({ _tag: "PortNotAllocated", portNumber });
  const nios = new Map(sw.nios);
  nios.delete(portNumber);
  return E.right({ ...sw, nios });
}

export function replaceNio(sw: EthernetSwitch, portNumber: number, nio: Nio): E.Either<SwitchRuleViolation, EthernetSwitch> {
  if (!sw.nios.has(portNumber)) return E.left({ _tag: "PortNotAllocated", portNumber });
  const nios = new Map(sw.nios);
  nios.set(portNumber, nio);
  return E.right({ ...sw, nios });
}

function samePorts(a: readonly PortMappingEntry[], b: readonly PortMappingEntry[]): boolean {
  return JSON.stringify(a) === JSON.stringify(b);
}

/**
 * GNS3's ports_mapping update: with NIOs attached the number of ports cannot change; the entries
 * are renamed Ethernet<i> and renumbered i. netemu also refuses a new mapping that would drop a
 * port that still has a NIO (GNS3 would leave that NIO switching in a stale VLAN).
 */
export function remapPorts(sw: EthernetSwitch, requested: readonly PortMappingEntry[]): E.Either<SwitchRuleViolation, EthernetSwitch> {
  if (samePorts(sw.portsMapping, requested)) return E.right(sw);
  if (sw.nios.size > 0 && requested.length !== sw.portsMapping.length) return E.left({ _tag: "SwitchAlreadyConnected" });
  const portsMapping = requested.map((entry, i) => ({ ...entry, name: `Ethernet${i}`, port_number: i }));
  for (const portNumber of sw.nios.keys()) {
    if (!portsMapping.some((p) => p.port_number === portNumber)) return E.left({ _tag: "SwitchAlreadyConnected" });
  }
  return E.right({ ...sw, portsMapping });
}

export function renameSwitch(sw: EthernetSwitch, name: string): EthernetSwitch {
  return { ...sw, name };
}
