import type { Label } from "./label.js";
import type { PortMappingEntry } from "../switching/port.js";
import type { ConsoleType } from "../switching/ethernet-switch.js";

export const SUPPORTED_NODE_TYPES = ["ethernet_switch"] as const;
export type NodeType = (typeof SUPPORTED_NODE_TYPES)[number];

/**
 * A controller node: where it sits on the canvas and which compute runs it. The switch itself
 * (ports, NIOs) lives on the compute under the same node id.
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
  /** The switch's settings, kept so that a closed project can be opened again. */
  readonly portsMapping: readonly PortMappingEntry[];
  readonly consoleType: ConsoleType;
}

export function defaultNodeLabel(name: string): Label {
  return { text: name, style: null, x: null, y: -40, rotation: 0 };
}
