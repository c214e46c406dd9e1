import type { Label } from "./label.js";
import type { PortMappingEntry } from "../switching/port.js";
import type { HubPortEntry } from "../switching/ethernet-hub.js";
import type { ConsoleType } from "../switching/ethernet-switch.js";
import { COMPUTE_NODE_TYPES, type ComputeNodeType } from "../switching/compute-node.js";

export const SUPPORTED_NODE_TYPES = COMPUTE_NODE_TYPES;
export type NodeType = ComputeNodeType;

/** A switch's ports carry a mode and VLAN; a hub's only a name and number. */
export type NodePortEntry = PortMappingEntry | HubPortEntry;

/**
 * A controller node: where it sits on the canvas and which compute runs it. The switch or hub
 * itself (ports, NIOs) lives on the compute under the same node id.
 */
export interface ControllerNode {
  readonly nodeId: string;
  readonly projectId: string;
  readonly nodeType: NodeType;
  readonly computeId: string;
  readonly name: string;
  readonly x: number;
  readonly y: number;
  readonly z: number;
  readonly locked: boolean;
  readonly label: Label;
  readonly symbol: string;
  /** The compute node's settings, kept so that a closed project can be opened again. */
  readonly portsMapping: readonly NodePortEntry[];
  /** A hub has no console type (GNS3 says null). */
  readonly consoleType: ConsoleType | null;
  /** The built-in template it was made from, when it was (GNS3's `template_id`; null otherwise). */
  readonly templateId?: string;
}

export function defaultNodeLabel(name: string): Label {
  return { text: name, style: null, x: null, y: -40, rotation: 0 };
}

/** The symbol GNS3's built-in templates give each node type. */
export function defaultSymbol(nodeType: NodeType): string {
  return nodeType === "ethernet_hub" ? ":/symbols/hub.svg" : ":/symbols/ethernet_switch.svg";
}
