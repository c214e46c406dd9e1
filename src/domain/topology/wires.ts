import type { Nio } from "../switching/nio.js";

/** One port of a node with the NIO it holds, as a lab's drawing needs it. */
export interface WiredPort {
  readonly nodeId: string;
  readonly portNumber: number;
  readonly nio: Nio;
}

/** Two ports whose UDP NIOs send to each other: the link a controller made between them. */
export interface Wire {
  readonly a: { readonly nodeId: string; readonly portNumber: number };
  readonly b: { readonly nodeId: string; readonly portNumber: number };
}

/**
 * The links between the ports of one host, read from their UDP NIOs: port A's NIO sends to the local
 * port B listens on, and B's to A's. A GNS3 controller tells its compute no links, only NIOs; this is
 * how netemu draws the links of the switches it placed. Ports whose peer is elsewhere (another compute,
 * a VPCS process of the user's) pair with nothing and are left out. Linear in the number of ports.
 */
export function wiresBetween(ports: readonly WiredPort[]): Wire[] {
  const byLocalPort = new Map<number, WiredPort>();
  for (const p of ports) if (p.nio.type === "nio_udp") byLocalPort.set(p.nio.lport, p);
  const wires: Wire[] = [];
  for (const p of ports) {
    if (p.nio.type !== "nio_udp") continue;
    const peer = byLocalPort.get(p.nio.rport);
    if (peer === undefined || peer === p || peer.nio.type !== "nio_udp" || peer.nio.rport !== p.nio.lport) continue;
    // Each pair once: from the end with the lower local port.
    if (p.nio.lport < peer.nio.lport) wires.push({ a: { nodeId: p.nodeId, portNumber: p.portNumber }, b: { nodeId: peer.nodeId, portNumber: peer.portNumber } });
  }
  return wires;
}
