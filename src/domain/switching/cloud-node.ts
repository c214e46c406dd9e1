import * as E from "fp-ts/lib/Either.js";
import { NO_FILTERS } from "../filters/filter-settings.js";
import { type InvalidConfiguration, fieldOf, invalidConfiguration, itemOf } from "../configuration/invalid-configuration.js";
import { own, readChoice, readInteger, readString, required } from "../configuration/read.js";
import { CONFIGURATION_LIMITS } from "../configuration/limits.js";
import { type FrameNio, readDeviceName } from "./nio.js";
import { parsePortEntries, readNumberedPort } from "./port.js";
import { HOST_INSIDE_OFFSET, type HostCreation, type HostIdentity, NO_CONSOLE, type NodeAlreadyConnected } from "./node-kind.js";

/**
 * A port of GNS3's Cloud, as its `ports_mapping` has it (PORT_OBJECT_SCHEMA): a UDP tunnel to any
 * emulator, container or host outside (`lport` here, sending to `rhost:rport`), or a host device.
 */
export type CloudPort =
  | { readonly name: string; readonly port_number: number; readonly type: "udp"; readonly lport: number; readonly rhost: string; readonly rport: number }
  | { readonly name: string; readonly port_number: number; readonly type: "ethernet" | "tap"; readonly interface: string };

const CLOUD_PORT_TYPES = ["ethernet", "tap", "udp"] as const;
export const REMOTE_CONSOLE_TYPES = ["telnet", "vnc", "spice", "http", "https", "none"] as const;
type RemoteConsoleType = (typeof REMOTE_CONSOLE_TYPES)[number];

/** Where a cloud's console is (a device outside netemu): GNS3 only stores and shows it. */
export interface RemoteConsole {
  readonly host: string;
  readonly port: number | null;
  readonly type: RemoteConsoleType;
  readonly httpPath: string;
}

/** GNS3's defaults (cloud.py). */
export const DEFAULT_REMOTE_CONSOLE: RemoteConsole = Object.freeze({ host: "", port: 23, type: "none", httpPath: "/" });

/**
 * GNS3's Cloud on the compute: a host node (ADR 0081) whose inside ends are not a process but NIOs of
 * the user's choosing, one a port (ADR 0082): a UDP tunnel, a TAP device or a host interface. Each
 * inside end exists while its port has a link NIO, as GNS3 makes a port's uBridge bridge only then.
 * A cloud has no console of its own (its remote console is somebody else's) and is always started.
 */
export interface CloudNode extends HostIdentity {
  readonly nodeType: "cloud";
  readonly console: null;
  readonly consoleType: "none";
  readonly portsMapping: readonly CloudPort[];
  readonly remoteConsole: RemoteConsole;
}

export function createCloudNode(fields: HostCreation & { readonly portsMapping: readonly CloudPort[]; readonly remoteConsole: RemoteConsole }): CloudNode {
  // GNS3's create starts the cloud at once (cloud.py create → start).
  return { nodeType: "cloud", ...fields, status: "started", ...NO_CONSOLE, nios: new Map() };
}

/** A host name or address as the resolver takes one: an IPv4 or IPv6 literal, or DNS labels. */
const HOST_NAME = /^(?=.{1,253}$)[A-Za-z0-9](?:[A-Za-z0-9-]{0,61}[A-Za-z0-9])?(?:\.[A-Za-z0-9](?:[A-Za-z0-9-]{0,61}[A-Za-z0-9])?)*\.?$/;
const IPV6 = /^[0-9A-Fa-f:.]+$/;

function isHostAddress(host: string): boolean {
  if (host.includes(":")) return IPV6.test(host) && host.split("::").length <= 2;
  // All-digit dotted forms must be a real dotted quad (999.1.1.1 would resolve as nothing, or as a number).
  if (/^[\d.]+$/.test(host)) return /^(\d{1,3})\.(\d{1,3})\.(\d{1,3})\.(\d{1,3})$/.test(host) && host.split(".").every((b) => Number(b) <= 255);
  return HOST_NAME.test(host);
}

function cloudPortEntry(o: Readonly<Record<string, unknown>>, field: string): E.Either<InvalidConfiguration, CloudPort> {
  const numbered = readNumberedPort(o, field);
  if (E.isLeft(numbered)) return numbered;
  const type = required(o, "type", fieldOf(field, "type"));
  if (E.isLeft(type)) return type;
  const typeValue = readChoice(type.right, fieldOf(field, "type"), CLOUD_PORT_TYPES);
  if (E.isLeft(typeValue)) return typeValue;
  const { name, port_number } = numbered.right;
  if (typeValue.right !== "udp") {
    const device = required(o, "interface", fieldOf(field, "interface"));
    if (E.isLeft(device)) return device;
    const deviceName = readDeviceName(device.right, fieldOf(field, "interface"));
    if (E.isLeft(deviceName)) return deviceName;
    return E.right(Object.freeze({ name, port_number, type: typeValue.right, interface: deviceName.right }));
  }
  const read = (key: string) => {
    const value = required(o, key, fieldOf(field, key));
    return E.isLeft(value) ? value : readInteger(value.right, fieldOf(field, key), 1, 65_535);
  };
  const lport = read("lport");
  if (E.isLeft(lport)) return lport;
  const rport = read("rport");
  if (E.isLeft(rport)) return rport;
  const rhost = required(o, "rhost", fieldOf(field, "rhost"));
  if (E.isLeft(rhost)) return rhost;
  const rhostValue = readString(rhost.right, fieldOf(field, "rhost"), 1, CONFIGURATION_LIMITS.hostLength);
  if (E.isLeft(rhostValue)) return rhostValue;
  if (!isHostAddress(rhostValue.right)) return E.left(invalidConfiguration(fieldOf(field, "rhost"), { rule: "host_address" }, rhostValue.right));
  return E.right(Object.freeze({ name, port_number, type: "udp" as const, lport: lport.right, rhost: rhostValue.right, rport: rport.right }));
}

/**
 * The one parse of a cloud's ports_mapping (every door: HTTP, .gns3, labs, the worker boundary): each
 * entry by its type, no port number twice, and no lport or device twice (two ports cannot bind one UDP
 * port, nor share a TAP).
 */
export function parseCloudPorts(raw: unknown, field = "ports_mapping"): E.Either<InvalidConfiguration, readonly CloudPort[]> {
  const entries = parsePortEntries(raw, field, cloudPortEntry);
  if (E.isLeft(entries)) return entries;
  const seen = new Map<string, string>();
  for (let i = 0; i < entries.right.length; i++) {
    const p = entries.right[i]!;
    // A host port's inside copy (hostFabricRecord) repeats its link port's endpoint: only link ports count.
    if (p.port_number >= HOST_INSIDE_OFFSET) continue;
    const [key, value, at] = p.type === "udp" ? [`udp:${p.lport}`, p.lport, "lport"] : [`dev:${p.interface}`, p.interface, "interface"];
    const here = fieldOf(itemOf(field, i), at);
    const first = seen.get(key);
    if (first !== undefined) return E.left(invalidConfiguration(here, { rule: "duplicate_value", first }, value));
    seen.set(key, here);
  }
  return entries;
}

/** GNS3 numbers a cloud's ports by their place in the list, whatever numbers were sent (cloud.py). */
export function numberCloudPorts(ports: readonly CloudPort[]): readonly CloudPort[] {
  return Object.freeze(ports.map((p, i) => Object.freeze({ ...p, port_number: i })));
}

/** GNS3's ports_mapping change: refused once a port is linked, else the new entries renumbered. */
export function remapCloudPorts(node: CloudNode, requested: readonly CloudPort[]): E.Either<NodeAlreadyConnected, CloudNode> {
  const ports = numberCloudPorts(requested);
  if (cloudPortsEqual(ports, node.portsMapping)) return E.right(node);
  if (node.nios.size > 0) return E.left({ _tag: "NodeAlreadyConnected", nodeType: "cloud" });
  return E.right({ ...node, portsMapping: ports });
}

export function cloudPortsEqual(a: readonly CloudPort[], b: readonly CloudPort[]): boolean {
  return a.length === b.length && a.every((p, i) => JSON.stringify(p) === JSON.stringify(b[i]));
}

/** The NIO a cloud port's inside end is: its tunnel or its device, without filters (the link's NIO has them). */
export function insideNioOf(port: CloudPort): FrameNio {
  switch (port.type) {
    case "udp":
      return Object.freeze({ type: "nio_udp", lport: port.lport, rhost: port.rhost, rport: port.rport, filters: NO_FILTERS, suspend: false });
    case "tap":
      return Object.freeze({ type: "nio_tap", tapDevice: port.interface, filters: NO_FILTERS, suspend: false });
    case "ethernet":
      return Object.freeze({ type: "nio_ethernet", ethernetDevice: port.interface, filters: NO_FILTERS, suspend: false });
  }
}

/** The inside ends a cloud has now: one per linked port (GNS3 bridges a port only once a NIO is on it). */
export function cloudInside(node: CloudNode): ReadonlyMap<number, FrameNio> {
  const inside = new Map<number, FrameNio>();
  for (const port of node.portsMapping) if (node.nios.has(port.port_number)) inside.set(port.port_number, insideNioOf(port));
  return inside;
}

/** A cloud's fields but its ports and NIOs, from a record (the worker boundary, an embedder's store): its identity parsed as every host's. */
export function parseCloudFields(o: Readonly<Record<string, unknown>>, field: string, identity: HostCreation & Pick<HostIdentity, "status">): E.Either<InvalidConfiguration, Omit<CloudNode, "portsMapping" | "nios">> {
  const remote = parseRemoteConsole(own(o, "remoteConsole") ?? DEFAULT_REMOTE_CONSOLE, fieldOf(field, "remoteConsole"));
  if (E.isLeft(remote)) return remote;
  return E.right({ nodeType: "cloud", ...identity, ...NO_CONSOLE, remoteConsole: remote.right });
}

/** GNS3's remote_console_* settings, each checked as its schema does (a record's camelCase names). */
export function parseRemoteConsole(raw: unknown, field: string): E.Either<InvalidConfiguration, RemoteConsole> {
  if (typeof raw !== "object" || raw === null) return E.left(invalidConfiguration(field, { rule: "type", expected: "object" }, raw));
  const o = raw as Readonly<Record<string, unknown>>;
  const host = readString(own(o, "host") ?? "", fieldOf(field, "host"), 0, CONFIGURATION_LIMITS.hostLength);
  if (E.isLeft(host)) return host;
  const portRaw = own(o, "port");
  const port = portRaw === null || portRaw === undefined ? E.right(null) : readInteger(portRaw, fieldOf(field, "port"), 1, 65_535);
  if (E.isLeft(port)) return port;
  const type = readChoice(own(o, "type") ?? "none", fieldOf(field, "type"), REMOTE_CONSOLE_TYPES);
  if (E.isLeft(type)) return type;
  const httpPath = readString(own(o, "httpPath") ?? "/", fieldOf(field, "httpPath"), 0, 1024);
  if (E.isLeft(httpPath)) return httpPath;
  return E.right(Object.freeze({ host: host.right, port: port.right, type: type.right, httpPath: httpPath.right }));
}
