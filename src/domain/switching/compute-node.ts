import * as E from "fp-ts/lib/Either.js";
import { NIO_TYPES, type Nio, type NioProblem, deviceOf, parseNio } from "./nio.js";
import type { ConsoleType, EthernetSwitch } from "./ethernet-switch.js";
import { COMPUTE_NODE_TYPES, type ComputeNodeType, type HeldNio, NO_CONSOLE, type NodeStatus, type PortNotAllocated, type PortNotFound, type PortNotFree, isHostKind } from "./node-kind.js";
import { type EthernetHub, parseHubPorts } from "./ethernet-hub.js";
import type { HostNode } from "./host-node.js";
import { hostSettingsChanged, parseNetemuHostSettings } from "./netemu-host-node.js";
import { parseSwitchPorts, portsMappingEqual } from "./port.js";
import { cloudPortsEqual, parseCloudFields, parseCloudPorts } from "./cloud-node.js";
import { type InvalidConfiguration, fieldOf, invalidConfiguration } from "../configuration/invalid-configuration.js";
import { own, readChoice, readInteger, readObject, readString, required } from "../configuration/read.js";
import { CONFIGURATION_LIMITS } from "../configuration/limits.js";

// What every node kind shares lives in node-kind.ts, which the switch and the hub import without this module.
export { COMPUTE_NODE_TYPES, GNS3_NODE_TYPES, KINDS_WITH_A_CONSOLE, NODE_KINDS, isHostKind, nodeKindName } from "./node-kind.js";
export type { HostNodeType, ComputeNodeType, HeldNio, NodeAlreadyConnected, NodeRuleViolation, NodeStatus, PortNotAllocated, PortNotFound, PortNotFree } from "./node-kind.js";

/** A node on the compute: an 802.1Q switch, a hub or a host, each with NIOs on its ports. */
export type ComputeNode = EthernetSwitch | EthernetHub | HostNode;

export function hasPort(node: ComputeNode, portNumber: number): boolean {
  return node.portsMapping.some((p) => p.port_number === portNumber);
}

function withNios<N extends ComputeNode>(node: N, change: (nios: Map<number, Nio>) => void): N {
  const nios = new Map(node.nios);
  change(nios);
  return { ...node, nios };
}

export function attachNio<N extends ComputeNode>(node: N, portNumber: number, nio: Nio): E.Either<PortNotFound | PortNotFree, N> {
  // Unlike Dynamips, a port outside ports_mapping has no VLAN to forward in, so it is refused.
  if (!hasPort(node, portNumber)) return E.left({ _tag: "PortNotFound", portNumber, nodeName: node.name, nodeType: node.nodeType });
  const held = node.nios.get(portNumber);
  if (held !== undefined) {
    const summary: HeldNio =
      held.type === "nio_udp" ? { type: held.type, lport: held.lport, rhost: held.rhost, rport: held.rport } : held.type === "nio_null" ? { type: held.type } : { type: held.type, device: deviceOf(held) };
    return E.left({ _tag: "PortNotFree", portNumber, nodeName: node.name, nodeType: node.nodeType, held: summary });
  }
  return E.right(withNios(node, (nios) => nios.set(portNumber, nio)));
}

export function detachNio<N extends ComputeNode>(node: N, portNumber: number): E.Either<PortNotAllocated, N> {
  if (!node.nios.has(portNumber)) return E.left({ _tag: "PortNotAllocated", portNumber });
  return E.right(withNios(node, (nios) => nios.delete(portNumber)));
}

export function replaceNio<N extends ComputeNode>(node: N, portNumber: number, nio: Nio): E.Either<PortNotAllocated, N> {
  if (!node.nios.has(portNumber)) return E.left({ _tag: "PortNotAllocated", portNumber });
  return E.right(withNios(node, (nios) => nios.set(portNumber, nio)));
}

export function renameNode<N extends ComputeNode>(node: N, name: string): N {
  return { ...node, name };
}

export function withStatus<N extends ComputeNode>(node: N, status: NodeStatus): N {
  return { ...node, status };
}

/** Whether a GNS3 client would see a different node in the compute's answer (what node.updated is for). */
export function answerChanged(before: ComputeNode, after: ComputeNode): boolean {
  if (before.name !== after.name || before.status !== after.status) return true;
  if (before.nodeType === "cloud" || after.nodeType === "cloud") {
    if (before.nodeType !== "cloud" || after.nodeType !== "cloud") return true;
    return !cloudPortsEqual(before.portsMapping, after.portsMapping) || JSON.stringify(before.remoteConsole) !== JSON.stringify(after.remoteConsole);
  }
  if (!portsMappingEqual(before.portsMapping, after.portsMapping)) return true;
  if (before.nodeType === "ethernet_hub" || after.nodeType === "ethernet_hub") return false;
  if (before.nodeType === "netemu_host" && after.nodeType === "netemu_host") return hostSettingsChanged(before, after);
  return before.console !== after.console || before.consoleType !== after.consoleType || (before.nodeType === "vpcs" && after.nodeType === "vpcs" && before.commandLine !== after.commandLine);
}

/** The one parse of a node's name (a switch's, a hub's, a controller node's): 1 to nameLength characters. */
export function parseNodeName(raw: unknown, field = "name"): E.Either<InvalidConfiguration, string> {
  return readString(raw, field, 1, CONFIGURATION_LIMITS.nameLength);
}

const NODE_STATUSES: readonly NodeStatus[] = ["started", "stopped", "suspended"];
const CONSOLE_TYPES: readonly ConsoleType[] = ["telnet", "none"];
/** Node and project ids: GNS3's compute takes any form Python's uuid.UUID parses (45 characters at most). */
const MAX_ID_LENGTH = 64;

/** What a node's record says besides its ports_mapping and its NIOs (a host's inside ports are among them). */
export type ComputeNodeFields =
  | Omit<EthernetSwitch, "portsMapping" | "nios">
  | Omit<EthernetHub, "portsMapping" | "nios">
  | Omit<HostNode, "portsMapping" | "nios">;

/** A NIO parse's refusal as a record's: a record only ever holds NIOs netemu runs. */
type RecordProblem = InvalidConfiguration | Exclude<NioProblem, { _tag: "NioTypeNotSupported" }>;

/** The fields of a record but its ports and NIOs, each checked (ADR 0053). */
export function parseComputeNodeFields(raw: unknown, field = "node"): E.Either<InvalidConfiguration, ComputeNodeFields> {
  const object = readObject(raw, field);
  if (E.isLeft(object)) return object;
  const o = object.right;
  const text = (key: string, max: number): E.Either<InvalidConfiguration, string> => {
    const value = required(o, key, fieldOf(field, key));
    return E.isLeft(value) ? value : readString(value.right, fieldOf(field, key), 1, max);
  };
  const nodeType = required(o, "nodeType", fieldOf(field, "nodeType"));
  if (E.isLeft(nodeType)) return nodeType;
  const type = readChoice(nodeType.right, fieldOf(field, "nodeType"), COMPUTE_NODE_TYPES);
  if (E.isLeft(type)) return type;
  const nodeId = text("nodeId", MAX_ID_LENGTH);
  if (E.isLeft(nodeId)) return nodeId;
  const projectId = text("projectId", MAX_ID_LENGTH);
  if (E.isLeft(projectId)) return projectId;
  const name = required(o, "name", fieldOf(field, "name"));
  if (E.isLeft(name)) return name;
  const nameValue = parseNodeName(name.right, fieldOf(field, "name"));
  if (E.isLeft(nameValue)) return nameValue;
  const status = required(o, "status", fieldOf(field, "status"));
  if (E.isLeft(status)) return status;
  const statusValue = readChoice(status.right, fieldOf(field, "status"), NODE_STATUSES);
  if (E.isLeft(statusValue)) return statusValue;
  const common = { nodeId: nodeId.right, projectId: projectId.right, name: nameValue.right, status: statusValue.right };
  if (type.right === "ethernet_hub") return E.right({ nodeType: "ethernet_hub", ...common });
  // Every host kind's working directory ("" in a record made before hosts had one).
  const directoryRaw = isHostKind(type.right) ? own(o, "directory") : undefined;
  const directory = directoryRaw === undefined ? E.right("") : readString(directoryRaw, fieldOf(field, "directory"), 0, 4096);
  if (E.isLeft(directory)) return directory;
  if (type.right === "cloud") return parseCloudFields(o, field, { ...common, directory: directory.right });
  const consoleRaw = own(o, "console");
  const console = consoleRaw === null || consoleRaw === undefined ? E.right(null) : readInteger(consoleRaw, fieldOf(field, "console"), 1, 65_535);
  if (E.isLeft(console)) return console;
  const consoleTypeRaw = required(o, "consoleType", fieldOf(field, "consoleType"));
  if (E.isLeft(consoleTypeRaw)) return consoleTypeRaw;
  const consoleType = readChoice(consoleTypeRaw.right, fieldOf(field, "consoleType"), CONSOLE_TYPES);
  if (E.isLeft(consoleType)) return consoleType;
  if (type.right === "ethernet_switch") return E.right({ nodeType: "ethernet_switch", ...common, console: console.right, consoleType: consoleType.right });
  // A host's inside tunnels cross as ports of its record (hostFabricRecord), never as a field of their own.
  const commandLineRaw = own(o, "commandLine");
  const commandLine = commandLineRaw === undefined ? E.right("") : readString(commandLineRaw, fieldOf(field, "commandLine"), 0, 65_536);
  if (E.isLeft(commandLine)) return commandLine;
  const host = { ...common, directory: directory.right, inside: new Map(), commandLine: commandLine.right };
  if (type.right === "netemu_host") {
    const settings = parseNetemuHostSettings(own(o, "interfaces"), own(o, "gateway"), field);
    if (E.isLeft(settings)) return settings;
    return E.right({ nodeType: "netemu_host", ...host, ...NO_CONSOLE, ...settings.right });
  }
  return E.right({ nodeType: type.right, ...host, console: console.right, consoleType: consoleType.right });
}

/** A node type's ports_mapping, by that type's parse. */
export function parseNodePorts(nodeType: ComputeNodeType, raw: unknown, field: string): E.Either<InvalidConfiguration, ComputeNode["portsMapping"]> {
  // A switch's ports carry modes, a cloud's their inside ends: a hub's and a VPCS's are a name and a number.
  return nodeType === "ethernet_switch" ? parseSwitchPorts(raw, field) : nodeType === "cloud" ? parseCloudPorts(raw, field) : parseHubPorts(raw, field);
}

/** NIOs by port number (a Map, as a record holds them), each by parseNio; at most portsPerNode. */
export function parseNodeNios(raw: unknown, field: string): E.Either<RecordProblem, Map<number, Nio>> {
  if (!(raw instanceof Map)) return E.left(invalidConfiguration(field, { rule: "type", expected: "object" }, raw));
  if (raw.size > CONFIGURATION_LIMITS.portsPerNode) return E.left(invalidConfiguration(field, { rule: "max_items", limit: CONFIGURATION_LIMITS.portsPerNode }, raw.size));
  const nios = new Map<number, Nio>();
  for (const [portNumber, nioRaw] of raw as Map<unknown, unknown>) {
    // A key that is an object without a prototype has no string form: String() would throw.
    const at = `${field}[${typeof portNumber === "object" && portNumber !== null ? "?" : String(portNumber)}]`;
    if (typeof portNumber !== "number" || !Number.isInteger(portNumber)) return E.left(invalidConfiguration(at, { rule: "type", expected: "integer" }, portNumber));
    const nio = parseNio(nioRaw, at);
    // A record only ever holds NIOs netemu runs: another kind there is a wrong value, not a request to refuse.
    if (E.isLeft(nio)) return nio.left._tag === "NioTypeNotSupported" ? E.left(invalidConfiguration(`${at}.type`, { rule: "one_of", choices: NIO_TYPES }, nio.left.nioType)) : E.left(nio.left);
    nios.set(portNumber, nio.right);
  }
  return E.right(nios);
}

/** A record made of parsed parts, once every NIO is found on a port of the mapping. */
export function assembleComputeNode(fields: ComputeNodeFields, portsMapping: ComputeNode["portsMapping"], nios: ReadonlyMap<number, Nio>, field = "node"): E.Either<InvalidConfiguration, ComputeNode> {
  const numbers = new Set(portsMapping.map((p) => p.port_number));
  for (const portNumber of nios.keys()) {
    if (!numbers.has(portNumber)) return E.left(invalidConfiguration(`${fieldOf(field, "nios")}[${portNumber}]`, { rule: "port_not_in_mapping" }, portNumber));
  }
  return E.right(Object.freeze({ ...fields, portsMapping, nios } as ComputeNode));
}

/**
 * A whole switch or hub record, checked as it crosses a boundary that may have copied or altered it
 * (a worker thread's message, an embedder's database): every field, the ports_mapping by its parse,
 * each NIO by parseNio and on a port of the mapping (ADR 0053). Answers a canonical value.
 */
export function parseComputeNode(raw: unknown, field = "node"): E.Either<RecordProblem, ComputeNode> {
  const fields = parseComputeNodeFields(raw, field);
  if (E.isLeft(fields)) return fields;
  const o = raw as Readonly<Record<string, unknown>>;
  const mapping = required(o, "portsMapping", fieldOf(field, "portsMapping"));
  if (E.isLeft(mapping)) return mapping;
  const ports = parseNodePorts(fields.right.nodeType, mapping.right, fieldOf(field, "portsMapping"));
  if (E.isLeft(ports)) return ports;
  const nios = parseNodeNios(own(o, "nios"), fieldOf(field, "nios"));
  if (E.isLeft(nios)) return nios;
  return assembleComputeNode(fields.right, ports.right, nios.right, field);
}
