import * as E from "fp-ts/lib/Either.js";
import type { Nio } from "./nio.js";
import type { EthernetSwitch } from "./ethernet-switch.js";
import type { EthernetHub } from "./ethernet-hub.js";

/** The node kinds netemu runs on its compute, by GNS3's node_type names. */
export const COMPUTE_NODE_TYPES = ["ethernet_hub", "ethernet_switch"] as const;
export type ComputeNodeType = (typeof COMPUTE_NODE_TYPES)[number];

/** A switching node on the compute: an 802.1Q switch or a hub, each with NIOs on its ports. */
export type ComputeNode = EthernetSwitch | EthernetHub;

/**
 * started forwards frames; stopped and suspended forward none (GNS3's Dynamips switches ignore
 * these requests and always say started; netemu does what the GUI's buttons say, see ADR 0032).
 */
export type NodeStatus = "started" | "stopped" | "suspended";

export type PortNotFree = { readonly _tag: "PortNotFree"; readonly portNumber: number };
export type PortNotAllocated = { readonly _tag: "PortNotAllocated"; readonly portNumber: number };
export type PortNotFound = { readonly _tag: "PortNotFound"; readonly portNumber: number; readonly nodeName: string; readonly nodeType: ComputeNodeType };
export type NodeAlreadyConnected = { readonly _tag: "NodeAlreadyConnected"; readonly nodeType: ComputeNodeType };
export type NodeRuleViolation = PortNotFree | PortNotAllocated | PortNotFound | NodeAlreadyConnected;

/** How GNS3 names the node kinds in its messages. */
export function nodeKindName(nodeType: ComputeNodeType): string {
  return nodeType === "ethernet_switch" ? "Ethernet switch" : "Ethernet hub";
}

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
  if (node.nios.has(portNumber)) return E.left({ _tag: "PortNotFree", portNumber });
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
  if (before.portsMapping !== after.portsMapping && JSON.stringify(before.portsMapping) !== JSON.stringify(after.portsMapping)) return true;
  return before.nodeType === "ethernet_switch" && after.nodeType === "ethernet_switch" && before.consoleType !== after.consoleType;
}
