import * as E from "fp-ts/lib/Either.js";
import { type FilterSettings, parseFilterSettings } from "../../domain/filters/filter-settings.js";
import { type Schedule, parseSchedule } from "../../domain/filters/schedule.js";
import type { PortMappingEntry } from "../../domain/switching/port.js";
import { IPV4_ADDRESS, IPV4_INTERFACE, NODE_NAME } from "./lab-format.js";
import { type HostInterface, type Lab, type LabLink, type LabNode, type LabNodeSettings, type UdpTunnelPort, vpcsAddressLine } from "./lab.js";

/**
 * A lab's nodes in GNS3's terms and back (ADR 0084): the `node_type` and `properties` netemu's controller
 * takes and answers for each kind, and a running project read as a Lab. Both directions live here so that
 * they cannot disagree: deploy(save(project)) changes nothing.
 */

/** netemu's own Linux host node type (GNS3 has none; the prefix keeps it apart from any GNS3 type to come). */
export const LINUX_HOST_NODE_TYPE = "netemu_host";

export const NODE_TYPE_OF: Readonly<Record<LabNodeSettings["kind"], string>> = {
  ethernet_switch: "ethernet_switch",
  ethernet_hub: "ethernet_hub",
  vpcs: "vpcs",
  cloud: "cloud",
  host: LINUX_HOST_NODE_TYPE,
};

/** The VPCS startup script netemu writes for a lab's PC: its address line, then the lab's own lines. */
function vpcsStartupScript(node: Extract<LabNodeSettings, { kind: "vpcs" }>): string {
  const lines = [
    ...(node.address === undefined ? [] : [vpcsAddressLine(node.address, node.gateway)]),
    ...(node.startupScript === undefined ? [] : node.startupScript.split("\n").filter((l) => l.trim() !== "")),
  ];
  return lines.length === 0 ? "" : `${lines.join("\n")}\n`;
}

/** The `properties` of a node of this kind, as the controller's POST and PUT take them. */
export function propertiesOf(node: LabNodeSettings): Record<string, unknown> {
  switch (node.kind) {
    case "ethernet_switch":
    case "ethernet_hub":
    case "cloud":
      return { ports_mapping: node.ports.map((p) => ({ ...p })) };
    case "vpcs":
      return { startup_script: vpcsStartupScript(node) };
    case "host":
      return { interfaces: node.interfaces.map((i) => ({ ...i })), ...(node.gateway === undefined ? {} : { gateway: node.gateway }) };
  }
}

/** A node as the controller answers it (GET /v2/projects/{p}/nodes), the fields a lab reads. */
export interface DeployedNode {
  readonly nodeId: string;
  readonly name: string;
  readonly nodeType: string;
  readonly properties: Readonly<Record<string, unknown>>;
  readonly status: string;
  readonly console: number | null;
  readonly consoleHost: string | null;
  readonly consoleType: string | null;
  readonly x: number;
  readonly y: number;
}

interface DeployedLinkEnd {
  readonly nodeId: string;
  readonly adapterNumber: number;
  readonly portNumber: number;
  /** netemu's one-way filters on what this end's node sends (absent: none). */
  readonly filters: Readonly<Record<string, unknown>>;
  /** netemu's schedule of what it sends, as the controller answers it (ADR 0102). */
  readonly schedule?: unknown;
}

export interface DeployedLink {
  readonly linkId: string;
  readonly ends: readonly DeployedLinkEnd[];
  readonly filters: Readonly<Record<string, unknown>>;
  readonly suspend: boolean;
  readonly linkStyle: Readonly<Record<string, unknown>>;
}

/** A project as the controller answers it: what deploy compares a lab with, inspect shows and save writes. */
export interface DeployedProject {
  readonly projectId: string;
  readonly name: string;
  readonly nodes: readonly DeployedNode[];
  readonly links: readonly DeployedLink[];
}

/** Why a running project cannot be written as a lab file: a node or link no lab can say. */
export interface NotALab {
  readonly _tag: "NotALab";
  readonly project: string;
  readonly what: string;
}

const notALab = (project: string, what: string): E.Either<NotALab, never> => E.left({ _tag: "NotALab", project, what });

function switchPorts(raw: unknown): PortMappingEntry[] | undefined {
  if (!Array.isArray(raw)) return undefined;
  return raw.map((p: Record<string, unknown>) => ({
    name: String(p["name"]),
    port_number: Number(p["port_number"]),
    type: (p["type"] ?? "access") as PortMappingEntry["type"],
    vlan: typeof p["vlan"] === "number" ? p["vlan"] : 1,
    ...(p["type"] === "qinq" ? { ethertype: (p["ethertype"] === "" || p["ethertype"] === undefined ? "0x8100" : p["ethertype"]) as PortMappingEntry["ethertype"] } : {}),
  }));
}

/** A VPCS startup script read back: the address line netemu wrote, and every other line as the lab's own. */
function vpcsOf(script: string): Extract<LabNodeSettings, { kind: "vpcs" }> {
  let address: string | undefined;
  let gateway: string | undefined;
  const rest: string[] = [];
  for (const line of script.split("\n")) {
    const words = line.trim().split(/\s+/);
    if (address === undefined && words[0] === "ip" && IPV4_INTERFACE.test(words[1] ?? "") && (words.length === 2 || (words.length === 3 && IPV4_ADDRESS.test(words[2] ?? "")))) {
      address = words[1];
      gateway = words[2];
    } else if (line.trim() !== "") rest.push(line);
  }
  return { kind: "vpcs", address, gateway, startupScript: rest.length === 0 ? undefined : rest.join("\n") };
}

function settingsOf(node: DeployedNode): LabNodeSettings | string {
  const ports = node.properties["ports_mapping"];
  switch (node.nodeType) {
    case "ethernet_switch": {
      const mapped = switchPorts(ports);
      return mapped === undefined ? "a switch without ports_mapping" : { kind: "ethernet_switch", ports: mapped };
    }
    case "ethernet_hub": {
      if (!Array.isArray(ports)) return "a hub without ports_mapping";
      // A lab gives a hub's port count; its ports are Ethernet0..N-1, as GNS3 makes them.
      const regular = ports.every((p: Record<string, unknown>, i) => p["port_number"] === i && p["name"] === `Ethernet${i}`);
      return regular ? { kind: "ethernet_hub", ports: ports.map((_p, i) => ({ name: `Ethernet${i}`, port_number: i })) } : "a hub whose ports are not Ethernet0..N-1";
    }
    case "vpcs":
      return vpcsOf(typeof node.properties["startup_script"] === "string" ? node.properties["startup_script"] : "");
    case "cloud": {
      if (!Array.isArray(ports) || ports.length === 0) return "a cloud without ports";
      const tunnels: UdpTunnelPort[] = [];
      for (const p of ports as Record<string, unknown>[]) {
        if (p["type"] !== "udp") return `a cloud with a ${String(p["type"])} port (a lab holds UDP tunnel ports only)`;
        tunnels.push({ name: String(p["name"]), port_number: Number(p["port_number"]), type: "udp", lport: Number(p["lport"]), rhost: String(p["rhost"]), rport: Number(p["rport"]) });
      }
      return { kind: "cloud", ports: tunnels };
    }
    case LINUX_HOST_NODE_TYPE: {
      const interfaces = Array.isArray(node.properties["interfaces"]) ? (node.properties["interfaces"] as HostInterface[]) : [{ name: "eth0" }];
      const gateway = node.properties["gateway"];
      return { kind: "host", interfaces: interfaces.map((i) => ({ name: i.name, ...(i.address === undefined ? {} : { address: i.address }) })), gateway: typeof gateway === "string" ? gateway : undefined };
    }
    default:
      return `a ${node.nodeType} node (a lab holds ethernet_switch, ethernet_hub, vpcs, cloud and host nodes)`;
  }
}

function filtersOf(raw: Readonly<Record<string, unknown>>): FilterSettings {
  const parsed = parseFilterSettings(raw);
  // The server answers only what it accepted; a refusal here would be a server out of step with this client.
  return E.isRight(parsed) ? parsed.right : {};
}

/** A running project as a lab: every node and link, by name, with positions (what `netemu lab save` writes). */
export function labOfProject(project: DeployedProject): E.Either<NotALab, Lab> {
  const nodes: LabNode[] = [];
  const names = new Map<string, DeployedNode>();
  for (const node of project.nodes) {
    if (!NODE_NAME.test(node.name)) return notALab(project.name, `node ${JSON.stringify(node.name)}: a lab's node names have no colon and no space at either end`);
    const settings = settingsOf(node);
    if (typeof settings === "string") return notALab(project.name, `node ${node.name} is ${settings}`);
    nodes.push({ name: node.name, ...settings, x: node.x, y: node.y });
    names.set(node.nodeId, node);
  }
  const links: LabLink[] = [];
  for (const link of project.links) {
    const [a, b] = link.ends;
    const nodeA = a === undefined ? undefined : names.get(a.nodeId);
    const nodeB = b === undefined ? undefined : names.get(b.nodeId);
    if (a === undefined || b === undefined || nodeA === undefined || nodeB === undefined || link.ends.length !== 2) return notALab(project.name, `link ${link.linkId} does not join two of its nodes`);
    if (a.adapterNumber !== 0 || b.adapterNumber !== 0) return notALab(project.name, `link ${link.linkId} is on an adapter other than 0`);
    const style = Object.keys(link.linkStyle).length === 0 ? undefined : link.linkStyle;
    links.push({
      ends: [{ node: nodeA.name, port: a.portNumber }, { node: nodeB.name, port: b.portNumber }],
      filters: filtersOf(link.filters),
      aToB: filtersOf(a.filters),
      bToA: filtersOf(b.filters),
      ...scheduleOf("aToBSchedule", a.schedule),
      ...scheduleOf("bToASchedule", b.schedule),
      suspend: link.suspend,
      ...(style === undefined ? {} : { style }),
    });
  }
  return E.right({ name: project.name, nodes, links });
}

/** A deployed end's schedule as the lab holds it (the controller's answer parses; one that does not is left out). */
function scheduleOf(key: "aToBSchedule" | "bToASchedule", raw: unknown): Partial<Record<typeof key, Schedule>> {
  if (raw === undefined) return {};
  const parsed = parseSchedule(raw, key);
  return E.isRight(parsed) ? { [key]: parsed.right } : {};
}
