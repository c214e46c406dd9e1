import type { FilterSettings } from "../../domain/filters/filter-settings.js";
import type { Schedule } from "../../domain/filters/schedule.js";
import type { HubPortEntry } from "../../domain/switching/ethernet-hub.js";
import type { PortMappingEntry } from "../../domain/switching/port.js";

/**
 * A lab as a value (ADR 0084): what a lab file says once checked, every default filled in, every link end
 * resolved to a port number. Made by parseLab (from a file) and labOfProject (from a running project), so
 * the deploy plan compares the two by value.
 */
export interface Lab {
  readonly name: string;
  readonly nodes: readonly LabNode[];
  readonly links: readonly LabLink[];
  /** Traces the lab's filters name (ADR 0103): name → the trace file's path, relative to the lab file; uploaded at deploy. */
  readonly traces?: Readonly<Record<string, string>>;
}

/** A GNS3 Cloud's UDP tunnel port, as GNS3's ports_mapping entry of type udp. */
export interface UdpTunnelPort {
  readonly name: string;
  readonly port_number: number;
  readonly type: "udp";
  readonly lport: number;
  readonly rhost: string;
  readonly rport: number;
}

export interface HostInterface {
  readonly name: string;
  readonly address?: string | undefined;
}

export type LabNodeSettings =
  | { readonly kind: "ethernet_switch"; readonly ports: readonly PortMappingEntry[] }
  | { readonly kind: "ethernet_hub"; readonly ports: readonly HubPortEntry[] }
  | { readonly kind: "vpcs"; readonly address?: string | undefined; readonly gateway?: string | undefined; readonly startupScript?: string | undefined }
  | { readonly kind: "cloud"; readonly ports: readonly UdpTunnelPort[] }
  | { readonly kind: "host"; readonly interfaces: readonly HostInterface[]; readonly gateway?: string | undefined };

export type LabNode = LabNodeSettings & {
  readonly name: string;
  /** Where the GUI draws it; undefined: the lab does not say (deploy lays it out, reconfigure leaves it). */
  readonly x?: number | undefined;
  readonly y?: number | undefined;
};

/** One end of a link: a node and one of its ports (adapter 0, the only adapter of every kind a lab holds). */
export interface LabLinkEnd {
  readonly node: string;
  readonly port: number;
}

export interface LabLink {
  readonly ends: readonly [LabLinkEnd, LabLinkEnd];
  /** GNS3's filters: both directions. */
  readonly filters: FilterSettings;
  /** netemu's one-way impairments on the frames ends[0] sends to ends[1] (ADR 0051). */
  readonly aToB: FilterSettings;
  readonly bToA: FilterSettings;
  /** The same directions as a function of time (ADR 0102): armed when the link is made (deploy). */
  readonly aToBSchedule?: Schedule | undefined;
  readonly bToASchedule?: Schedule | undefined;
  readonly suspend: boolean;
  /** GNS3's link_style; undefined: the lab does not say. */
  readonly style?: Readonly<Record<string, unknown>> | undefined;
}

interface LabPort {
  readonly number: number;
  readonly name: string;
}

/** The ports a node has, by number and name: what a link end may name. */
export function portsOf(node: LabNodeSettings): readonly LabPort[] {
  switch (node.kind) {
    case "ethernet_switch":
    case "ethernet_hub":
    case "cloud":
      return node.ports.map((p) => ({ number: p.port_number, name: p.name }));
    case "vpcs":
      return [{ number: 0, name: "Ethernet0" }];
    case "host":
      return node.interfaces.map((i, n) => ({ number: n, name: i.name }));
  }
}

/** How a link end names a port when a lab is written: `eN` where GNS3 shows it so, the name where the user chose it. */
export function portLabel(node: LabNodeSettings, port: number): string {
  if (node.kind === "cloud" || node.kind === "host") return portsOf(node).find((p) => p.number === port)?.name ?? String(port);
  return `e${port}`;
}

/**
 * A port named in a link end: its name, `eN` (GNS3's short name) or its number; undefined when the node has
 * no such port.
 */
export function resolvePort(node: LabNodeSettings, text: string): LabPort | undefined {
  const ports = portsOf(node);
  const byName = ports.find((p) => p.name === text);
  if (byName !== undefined) return byName;
  const numbered = /^e?(\d{1,5})$/.exec(text);
  if (numbered === null) return undefined;
  const number = Number(numbered[1]);
  return ports.find((p) => p.number === number);
}

/** GNS3's default switch: eight access ports in VLAN 1. */
export function defaultSwitchPorts(count = 8): PortMappingEntry[] {
  return Array.from({ length: count }, (_, i) => ({ name: `Ethernet${i}`, port_number: i, type: "access" as const, vlan: 1 }));
}

export function defaultHubPorts(count = 8): HubPortEntry[] {
  return Array.from({ length: count }, (_, i) => ({ name: `Ethernet${i}`, port_number: i }));
}

/** Whether an IPv4 address lies in the subnet of an address with its prefix length (`10.0.0.1/24`). */
export function inSubnet(cidr: string, address: string): boolean {
  const [base, length] = cidr.split("/");
  const bits = Number(length);
  const mask = bits === 0 ? 0 : (~0 << (32 - bits)) >>> 0;
  return ((toNumber(base ?? "") & mask) >>> 0) === ((toNumber(address) & mask) >>> 0);
}

function toNumber(address: string): number {
  return address.split(".").reduce((n, part) => ((n << 8) | Number(part)) >>> 0, 0);
}

/** The VPCS commands that give a PC its address (what netemu puts in its startup script). */
export function vpcsAddressLine(address: string, gateway: string | undefined): string {
  return gateway === undefined ? `ip ${address}` : `ip ${address} ${gateway}`;
}
