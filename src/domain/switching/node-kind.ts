/**
 * What every compute node kind shares: its GNS3 name, its identity and run status, and the rules a change
 * of its ports can break. A leaf: the switch, the hub and the host nodes import it, and compute-node.ts
 * (their union) builds on them.
 */
import type { Nio } from "./nio.js";

/**
 * How a kind's frames move in the data plane:
 * - `switch`: an 802.1Q learning bridge between its ports;
 * - `hub`: every frame repeated to every other port;
 * - `host`: each port is paired with its inside port (HOST_INSIDE_OFFSET above it), where the host's
 *   own stack (a VPCS process, later a TAP device) sends and receives: the data plane is the host's
 *   uBridge, so link filters, captures and suspend act on host ports as on switch ports (ADR 0081).
 */
export type NodeFabric = "switch" | "hub" | "host";

/** One compute node kind: its name in GNS3's messages, how it forwards, and whether it runs a console. */
export interface NodeKind {
  readonly name: string;
  readonly fabric: NodeFabric;
  /**
   * Whether GNS3's controllers know the type: a 2.2.59 controller refuses to add a compute whose
   * capabilities name one it does not ("JSON schema error: 'netemu_host' is not one of [...]").
   */
  readonly gns3: boolean;
  /** Whether its nodes have a telnet console, and so GNS3's console/ws and console/reset routes (ADR 0095, 0099). */
  readonly telnetConsole: boolean;
}

/**
 * Every kind netemu runs on its compute, by GNS3's node_type names: the one declaration a new kind adds
 * itself to (ADR 0081 says what else a kind brings).
 */
export const NODE_KINDS = {
  ethernet_hub: { name: "Ethernet hub", fabric: "hub", gns3: true, telnetConsole: false },
  ethernet_switch: { name: "Ethernet switch", fabric: "switch", gns3: true, telnetConsole: false },
  vpcs: { name: "VPCS", fabric: "host", gns3: true, telnetConsole: true },
  cloud: { name: "Cloud", fabric: "host", gns3: true, telnetConsole: false },
  // netemu's own Linux host: a network namespace behind TAP devices (ADR 0087).
  netemu_host: { name: "Linux host", fabric: "host", gns3: false, telnetConsole: false },
} as const satisfies Readonly<Record<string, NodeKind>>;

export type ComputeNodeType = keyof typeof NODE_KINDS;
/** The node kinds netemu runs on its compute, in the order capabilities list them. */
export const COMPUTE_NODE_TYPES: readonly ComputeNodeType[] = Object.freeze(Object.keys(NODE_KINDS) as ComputeNodeType[]);
/** The kinds a compute's capabilities offer: those GNS3's controllers know (netemu's own are reached by their routes). */
export const GNS3_NODE_TYPES: readonly ComputeNodeType[] = Object.freeze(COMPUTE_NODE_TYPES.filter((type) => NODE_KINDS[type].gns3));

/** The kinds whose nodes have a telnet console (a Linux host's and a cloud's are none): those with console routes. */
export const KINDS_WITH_A_CONSOLE: readonly ComputeNodeType[] = Object.freeze(COMPUTE_NODE_TYPES.filter((type) => NODE_KINDS[type].telnetConsole));

/** The kinds whose nodes are hosts (a process or a namespace behind their ports). */
export type HostNodeType = { [K in ComputeNodeType]: (typeof NODE_KINDS)[K]["fabric"] extends "host" ? K : never }[ComputeNodeType];

export function isHostKind(nodeType: ComputeNodeType): nodeType is HostNodeType {
  return NODE_KINDS[nodeType].fabric === "host";
}

/**
 * A host port p is paired with port p + HOST_INSIDE_OFFSET in the data plane: where the host's own stack
 * is. GNS3's port numbers for host adapters stay far below it.
 */
export const HOST_INSIDE_OFFSET = 32_768;

/**
 * started forwards frames; stopped and suspended forward none (GNS3's Dynamips switches ignore
 * these requests and always say started; netemu does what the GUI's buttons say, see ADR 0032).
 */
export type NodeStatus = "started" | "stopped" | "suspended";

/** A node's console: telnet on a port of the compute, or none (GNS3's console_type). */
export type ConsoleType = "telnet" | "none";

/** What names a node on the compute and says whether it forwards: the fields every kind's record starts with. */
export interface NodeIdentity {
  readonly nodeId: string;
  readonly projectId: string;
  readonly name: string;
  readonly status: NodeStatus;
}

/**
 * What every host kind's record holds besides its own settings (ADR 0081): its identity, its console (a
 * VPCS's telnet; a cloud and a Linux host narrow it to none), its link NIOs by port number, and its
 * working directory on the compute (its files, its log), as GNS3's `node_directory`.
 */
export interface HostIdentity extends NodeIdentity {
  readonly console: number | null;
  readonly consoleType: ConsoleType;
  readonly nios: ReadonlyMap<number, Nio>;
  readonly directory: string;
}

/** What a host is made from whatever its kind: who it is and where its files go (it has no NIOs yet). */
export type HostCreation = Pick<HostIdentity, "nodeId" | "projectId" | "name" | "directory">;

/** The console of a host kind that has none of its own (a cloud's remote console is somebody else's; a Linux host runs commands through exec). */
export const NO_CONSOLE = Object.freeze({ console: null, consoleType: "none" } as const);

/** A NIO added on a port that has one: the node and the NIO it holds, so that the message can name them. */
export type PortNotFree = {
  readonly _tag: "PortNotFree";
  readonly portNumber: number;
  readonly nodeName: string;
  readonly nodeType: ComputeNodeType;
  readonly held: HeldNio;
};
/** What a port's NIO is, as a message shows it: its kind and, for UDP, its two addresses. */
export type HeldNio =
  | { readonly type: "nio_udp"; readonly lport: number; readonly rhost: string; readonly rport: number }
  | { readonly type: "nio_tap" | "nio_ethernet"; readonly device: string }
  | { readonly type: "nio_null" };
export type PortNotAllocated = { readonly _tag: "PortNotAllocated"; readonly portNumber: number };
export type PortNotFound = { readonly _tag: "PortNotFound"; readonly portNumber: number; readonly nodeName: string; readonly nodeType: ComputeNodeType };
export type NodeAlreadyConnected = { readonly _tag: "NodeAlreadyConnected"; readonly nodeType: ComputeNodeType };
export type NodeRuleViolation = PortNotFree | PortNotAllocated | PortNotFound | NodeAlreadyConnected;

/** How GNS3 names the node kinds in its messages. */
export function nodeKindName(nodeType: ComputeNodeType): string {
  return NODE_KINDS[nodeType].name;
}
