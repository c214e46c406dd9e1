import type { Nio, UdpNio } from "./nio.js";
import type { HubPortEntry } from "./ethernet-hub.js";
import type { NetemuHostNode } from "./netemu-host-node.js";
import { type ConsoleType, HOST_INSIDE_OFFSET, type HostCreation, type HostIdentity } from "./node-kind.js";
import { type CloudNode, cloudInside } from "./cloud-node.js";

/**
 * A VPCS node on the compute (GNS3's `vpcs`): one Ethernet port (adapter 0, port 0) whose link NIO ends
 * in netemu's data plane, paired there with the port where the VPCS process sends and receives (its
 * `-s`/`-c` UDP tunnel, ADR 0081), and a telnet console. The process runs while the node is started.
 */
export interface VpcsNode extends HostIdentity {
  readonly nodeType: "vpcs";
  readonly portsMapping: readonly HubPortEntry[];
  /** The data plane's end of each port's tunnel to the host's own stack, while it runs (by port number). */
  readonly inside: ReadonlyMap<number, UdpNio>;
  /** The command line the process was last started with ("" before its first start), as GNS3 answers it. */
  readonly commandLine: string;
}

/** Every host kind: a process (VPCS), the user's own NIOs (a cloud, ADR 0082) or a namespace (netemu's Linux host, ADR 0087) behind its ports. */
export type HostNode = VpcsNode | CloudNode | NetemuHostNode;

/** VPCS has one adapter with one Ethernet interface, named as GNS3 names it. */
export const VPCS_PORTS: readonly HubPortEntry[] = Object.freeze([Object.freeze({ name: "Ethernet0", port_number: 0 })]);

export function createVpcsNode(fields: HostCreation & { readonly console: number | null; readonly consoleType: ConsoleType }): VpcsNode {
  return { nodeType: "vpcs", ...fields, status: "stopped", portsMapping: VPCS_PORTS, nios: new Map(), inside: new Map(), commandLine: "" };
}

/** The host started, with its inside tunnels (the data plane's ends) and the command line that runs it. */
export function hostStarted(node: VpcsNode, inside: ReadonlyMap<number, UdpNio>, commandLine: string): VpcsNode {
  return { ...node, status: "started", inside, commandLine };
}

/** The host stopped: its inside ports go (their UDP ports are the caller's to release). */
export function hostStopped<N extends HostNode>(node: N): N {
  return { ...node, status: "stopped", inside: new Map() };
}

/**
 * What the data plane runs for a host: its ports with their link NIOs, and for each inside tunnel a port
 * HOST_INSIDE_OFFSET above it with that tunnel, which the host fabric pairs with it.
 */
export function hostFabricRecord<N extends HostNode>(node: N): N {
  if (node.nodeType === "cloud") {
    // A cloud's inside ends follow its links (ADR 0082); each inside entry is its port's, moved up.
    const inside = cloudInside(node);
    if (inside.size === 0) return node;
    const nios = new Map(node.nios);
    for (const [portNumber, end] of inside) nios.set(portNumber + HOST_INSIDE_OFFSET, end);
    const moved = node.portsMapping.filter((p) => inside.has(p.port_number)).map((p) => ({ ...p, name: `${node.name} inside ${p.port_number}`, port_number: p.port_number + HOST_INSIDE_OFFSET }));
    return { ...node, portsMapping: [...node.portsMapping, ...moved], nios };
  }
  if (node.inside.size === 0) return node;
  const portsMapping = [...node.portsMapping];
  const nios = new Map(node.nios);
  for (const [portNumber, tunnel] of node.inside as ReadonlyMap<number, Nio>) {
    portsMapping.push({ name: `${node.name} inside ${portNumber}`, port_number: portNumber + HOST_INSIDE_OFFSET });
    nios.set(portNumber + HOST_INSIDE_OFFSET, tunnel);
  }
  return { ...node, portsMapping, nios };
}

/** The port a host port is paired with in the data plane (either way). */
export function hostPairOf(portNumber: number): number {
  return portNumber >= HOST_INSIDE_OFFSET ? portNumber - HOST_INSIDE_OFFSET : portNumber + HOST_INSIDE_OFFSET;
}
