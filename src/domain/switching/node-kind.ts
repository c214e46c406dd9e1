/**
 * What every compute node kind shares: its GNS3 name, its run status and the rules a change of its ports
 * can break. A leaf: the switch and the hub import it, and compute-node.ts (their union) builds on them.
 */

/** The node kinds netemu runs on its compute, by GNS3's node_type names. */
export const COMPUTE_NODE_TYPES = ["ethernet_hub", "ethernet_switch"] as const;
export type ComputeNodeType = (typeof COMPUTE_NODE_TYPES)[number];

/**
 * started forwards frames; stopped and suspended forward none (GNS3's Dynamips switches ignore
 * these requests and always say started; netemu does what the GUI's buttons say, see ADR 0032).
 */
export type NodeStatus = "started" | "stopped" | "suspended";

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
  return nodeType === "ethernet_switch" ? "Ethernet switch" : "Ethernet hub";
}
