import * as E from "fp-ts/lib/Either.js";
import type { TapNio } from "./nio.js";
import { NO_FILTERS } from "../filters/filter-settings.js";
import type { HubPortEntry } from "./ethernet-hub.js";
import { type HostCreation, type HostIdentity, NO_CONSOLE } from "./node-kind.js";
import { type InvalidConfiguration, fieldOf, invalidConfiguration, itemOf } from "../configuration/invalid-configuration.js";
import { own, readArray, readObject, readString, required } from "../configuration/read.js";

/**
 * netemu's own Linux host (ADR 0087, Mininet's model): a network namespace with a real TCP/IP stack, one
 * TAP device per interface. Its ports are numbered as its interfaces (adapter 0, port n for the n-th,
 * named as the interface), each paired in the data plane with the port where its TAP is opened while
 * it runs (`inside`, HOST_INSIDE_OFFSET above it, ADR 0081).
 */
export interface NetemuHostNode extends HostIdentity {
  readonly nodeType: "netemu_host";
  /** A Linux host has no console (commands run through exec): always null and "none". */
  readonly console: null;
  readonly consoleType: "none";
  readonly portsMapping: readonly HubPortEntry[];
  /** The TAP device each port's inside end opens while the host runs (by port number). */
  readonly inside: ReadonlyMap<number, TapNio>;
  /** Always "": no program runs the host (kept so that every host kind answers the same fields). */
  readonly commandLine: string;
  readonly interfaces: readonly HostInterfaceSettings[];
  /** The default route's next hop, if any. */
  readonly gateway: string | null;
}

/** One interface of a Linux host: its name inside, and optionally its address (with prefix) and MAC. */
export interface HostInterfaceSettings {
  readonly name: string;
  readonly address?: string;
  readonly mac?: string;
}

export interface NetemuHostSettings {
  readonly interfaces: readonly HostInterfaceSettings[];
  readonly gateway: string | null;
}

/** A host made without interfaces has one, eth0, without an address (the lab format's default). */
export const DEFAULT_HOST_INTERFACES: readonly HostInterfaceSettings[] = Object.freeze([Object.freeze({ name: "eth0" })]);
/** At most this many interfaces (the lab format's bound). */
const MAX_HOST_INTERFACES = 64;

/**
 * Interface names `ip` is given: letters, digits, `_`, `.`, `-`, at most 15 bytes, not "." or "..".
 * Stricter than the kernel's rule so that nothing a name holds reaches iproute2 as an option.
 */
const HOST_INTERFACE_NAME = /^[A-Za-z0-9_][A-Za-z0-9_.-]{0,14}$/;
const MAC = /^[0-9A-Fa-f]{2}(:[0-9A-Fa-f]{2}){5}$/;

function isIpv4(text: string): boolean {
  const parts = text.split(".");
  return parts.length === 4 && parts.every((p) => /^\d{1,3}$/.test(p) && Number(p) <= 255 && (p === "0" || !p.startsWith("0")));
}

function isIpv6(text: string): boolean {
  if (text.length > 45 || !/^[0-9A-Fa-f:.]+$/.test(text)) return false;
  let head = text;
  let extra = 0;
  // An IPv4 tail ("::ffff:10.0.0.1") counts as two groups.
  const lastColon = text.lastIndexOf(":");
  if (text.includes(".")) {
    if (!isIpv4(text.slice(lastColon + 1))) return false;
    head = text.slice(0, lastColon + 1) + "0";
    extra = 1;
  }
  const halves = head.split("::");
  if (halves.length > 2) return false;
  const groups = (h: string) => (h === "" ? [] : h.split(":"));
  const all = halves.flatMap(groups);
  if (!all.every((g) => /^[0-9A-Fa-f]{1,4}$/.test(g))) return false;
  const count = all.length + extra;
  return halves.length === 2 ? count <= 7 : count === 8;
}

function isIpAddress(text: string): boolean {
  return isIpv4(text) || isIpv6(text);
}

/** "10.0.0.1/24", "fd00::1/64": an address and its prefix length. */
export function isIpInterface(text: string): boolean {
  const slash = text.indexOf("/");
  if (slash < 0) return false;
  const address = text.slice(0, slash);
  const prefix = text.slice(slash + 1);
  if (!/^\d{1,3}$/.test(prefix)) return false;
  if (isIpv4(address)) return Number(prefix) <= 32;
  return isIpv6(address) && Number(prefix) <= 128;
}

function readFormatted(raw: unknown, field: string, format: "ip_interface" | "ip_address" | "mac_address"): E.Either<InvalidConfiguration, string> {
  const text = readString(raw, field, 1, 64);
  if (E.isLeft(text)) return text;
  const ok = format === "ip_interface" ? isIpInterface(text.right) : format === "ip_address" ? isIpAddress(text.right) : MAC.test(text.right) && (parseInt(text.right.slice(0, 2), 16) & 1) === 0;
  return ok ? text : E.left(invalidConfiguration(field, { rule: "format", format }, text.right));
}

/** A host's interfaces and gateway, each checked: unique names `ip` takes, addresses with prefixes, unicast MACs. */
export function parseNetemuHostSettings(interfacesRaw: unknown, gatewayRaw: unknown, field = ""): E.Either<InvalidConfiguration, NetemuHostSettings> {
  const at = (key: string) => fieldOf(field, key);
  let interfaces: readonly HostInterfaceSettings[] = DEFAULT_HOST_INTERFACES;
  if (interfacesRaw !== undefined && interfacesRaw !== null) {
    const list = readArray(interfacesRaw, at("interfaces"), MAX_HOST_INTERFACES);
    if (E.isLeft(list)) return list;
    if (list.right.length === 0) return E.left(invalidConfiguration(at("interfaces"), { rule: "min_length", limit: 1 }, list.right));
    const parsed: HostInterfaceSettings[] = [];
    const seen = new Map<string, string>();
    for (const [i, raw] of list.right.entries()) {
      const here = itemOf(at("interfaces"), i);
      const o = readObject(raw, here);
      if (E.isLeft(o)) return o;
      const nameRaw = required(o.right, "name", fieldOf(here, "name"));
      if (E.isLeft(nameRaw)) return nameRaw;
      const name = readString(nameRaw.right, fieldOf(here, "name"), 1, 15);
      if (E.isLeft(name)) return name;
      if (!HOST_INTERFACE_NAME.test(name.right)) return E.left(invalidConfiguration(fieldOf(here, "name"), { rule: "interface_name" }, name.right));
      const first = seen.get(name.right);
      if (first !== undefined) return E.left(invalidConfiguration(fieldOf(here, "name"), { rule: "duplicate", first }, name.right));
      seen.set(name.right, fieldOf(here, "name"));
      const addressRaw = own(o.right, "address");
      const address = addressRaw === undefined || addressRaw === null ? E.right(undefined) : readFormatted(addressRaw, fieldOf(here, "address"), "ip_interface");
      if (E.isLeft(address)) return address;
      const macRaw = own(o.right, "mac");
      const mac = macRaw === undefined || macRaw === null ? E.right(undefined) : readFormatted(macRaw, fieldOf(here, "mac"), "mac_address");
      if (E.isLeft(mac)) return mac;
      parsed.push(Object.freeze({ name: name.right, ...(address.right === undefined ? {} : { address: address.right }), ...(mac.right === undefined ? {} : { mac: mac.right.toLowerCase() }) }));
    }
    interfaces = Object.freeze(parsed);
  }
  const gateway = gatewayRaw === undefined || gatewayRaw === null ? E.right(null) : readFormatted(gatewayRaw, at("gateway"), "ip_address");
  if (E.isLeft(gateway)) return gateway;
  return E.right({ interfaces, gateway: gateway.right });
}

/** The ports of a host with these interfaces: port n is the n-th interface, named as it. */
export function hostPorts(interfaces: readonly HostInterfaceSettings[]): readonly HubPortEntry[] {
  return Object.freeze(interfaces.map((i, n) => Object.freeze({ name: i.name, port_number: n })));
}

export function createNetemuHostNode(fields: HostCreation & NetemuHostSettings): NetemuHostNode {
  return { nodeType: "netemu_host", ...fields, status: "stopped", ...NO_CONSOLE, portsMapping: hostPorts(fields.interfaces), nios: new Map(), inside: new Map(), commandLine: "" };
}

/**
 * The TAP device of a host's port while it runs, in netemu's own namespace: at most 15 bytes ("nh", 8 hex
 * digits of a hash of the whole node id (FNV-1a: ids that share a prefix still differ), "p", the port).
 */
export function hostTapName(nodeId: string, portNumber: number): string {
  let hash = 0x811c9dc5;
  for (let i = 0; i < nodeId.length; i++) hash = Math.imul(hash ^ nodeId.charCodeAt(i), 0x01000193) >>> 0;
  return `nh${hash.toString(16).padStart(8, "0")}p${portNumber}`;
}

/** The host started: each port's inside end is its TAP. */
export function netemuHostStarted(node: NetemuHostNode): NetemuHostNode {
  const inside = new Map<number, TapNio>(node.portsMapping.map((p) => [p.port_number, { type: "nio_tap", tapDevice: hostTapName(node.nodeId, p.port_number), filters: NO_FILTERS, suspend: false }]));
  return { ...node, status: "started", inside };
}

/** The host with new interfaces or gateway (only while stopped: the caller checks). A port that stays keeps its NIO. */
export function withHostSettings(node: NetemuHostNode, settings: NetemuHostSettings): NetemuHostNode {
  const portsMapping = hostPorts(settings.interfaces);
  const nios = new Map([...node.nios].filter(([port]) => port < portsMapping.length));
  return { ...node, interfaces: settings.interfaces, gateway: settings.gateway, portsMapping, nios };
}

/** Whether these settings differ from the node's. */
export function hostSettingsChanged(node: NetemuHostNode, settings: NetemuHostSettings): boolean {
  return node.gateway !== settings.gateway || JSON.stringify(node.interfaces) !== JSON.stringify(settings.interfaces);
}
