import type { Label } from "./label.js";
import type { PortMappingEntry } from "../switching/port.js";
import type { HubPortEntry } from "../switching/ethernet-hub.js";
import type { CloudPort, RemoteConsole } from "../switching/cloud-node.js";
import type { ConsoleType } from "../switching/ethernet-switch.js";
import type { NetemuHostSettings } from "../switching/netemu-host-node.js";
import { COMPUTE_NODE_TYPES, type ComputeNodeType } from "../switching/compute-node.js";

export const SUPPORTED_NODE_TYPES = COMPUTE_NODE_TYPES;
export type NodeType = ComputeNodeType;

/** A switch's ports carry a mode and VLAN, a cloud's their inside ends; a hub's and a VPCS's only a name and number. */
export type NodePortEntry = PortMappingEntry | HubPortEntry | CloudPort;

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
  /** A host's console port, kept so that it is the same when the project opens again (a switch's: none). */
  readonly console?: number | null;
  /** A cloud's remote console settings (GNS3's `remote_console_*` properties), kept for its file. */
  readonly remoteConsole?: RemoteConsole;
  /** A Linux host's interfaces and gateway (its `properties`, ADR 0087), kept so that it is made again on open. */
  readonly host?: NetemuHostSettings;
  /** The built-in template it was made from, when it was (GNS3's `template_id`; null otherwise). */
  readonly templateId?: string;
}

export function defaultNodeLabel(name: string): Label {
  return { text: name, style: null, x: null, y: -40, rotation: 0 };
}

/** The symbol GNS3 gives a node of each type made without a template (a VPCS's: a computer). */
const DEFAULT_SYMBOLS: { readonly [K in NodeType]: string } = {
  ethernet_hub: ":/symbols/hub.svg",
  ethernet_switch: ":/symbols/ethernet_switch.svg",
  vpcs: ":/symbols/computer.svg",
  cloud: ":/symbols/cloud.svg",
  // GNS3's symbol for a Linux guest (its Docker and QEMU Linux templates use it).
  netemu_host: ":/symbols/linux_guest.svg",
};

/** The folder of a node's files in its project (`project-files/<this>/<node id>`): GNS3 keeps a cloud's under `builtin`. */
export function nodeFilesFolder(nodeType: NodeType): string {
  return nodeType === "cloud" ? "builtin" : nodeType;
}

export function defaultSymbol(nodeType: NodeType): string {
  return DEFAULT_SYMBOLS[nodeType];
}

/**
 * GNS3's base startup script of a VPCS made from its built-in template (`configs/vpcs_base_config.txt`,
 * which the template names as its `base_script_file`): `%h` becomes the node's name.
 */
export const VPCS_BASE_SCRIPT = `# This the configuration for %h
#
# Uncomment the following line to enable DHCP
# dhcp
# or the line below to manually setup an IP address and subnet mask
# ip 192.168.1.1 255.0.0.0
#

set pcname %h
`;
