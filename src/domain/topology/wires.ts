import type { Nio, UdpNio } from "../switching/nio.js";

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
 * A port whose UDP NIO sends to no port of the lab here: its peer is a node on another compute, an
 * emulator or a socket of the user's, known only by the address the NIO sends to.
 */
export interface RemoteWire {
  readonly a: { readonly nodeId: string; readonly portNumber: number };
  readonly peer: { readonly host: string; readonly port: number };
}

type UdpPort = WiredPort & { readonly nio: UdpNio };

/** The lab's UDP ports by the local port each listens on. */
function byLocalPort(ports: readonly WiredPort[]): Map<number, UdpPort> {
  const map = new Map<number, UdpPort>();
  for (const p of ports) if (p.nio.type === "nio_udp") map.set(p.nio.lport, p as UdpPort);
  return map;
}

/** The port of the lab that `p` sends to and that sends back to `p`, if there is one. */
function peerOf(p: UdpPort, listening: ReadonlyMap<number, UdpPort>): UdpPort | undefined {
  const peer = listening.get(p.nio.rport);
  return peer === undefined || peer === p || peer.nio.rport !== p.nio.lport ? undefined : peer;
}

/**
 * The links between the ports of one host, read from their UDP NIOs: port A's NIO sends to the local
 * port B listens on, and B's to A's. A GNS3 controller tells its compute no links, only NIOs; this is
 * how netemu draws the links of the switches it placed. Ports whose peer is elsewhere (another compute,
 * a VPCS process of the user's) pair with nothing here: remoteWires gives them. Linear in the number of ports.
 */
export function wiresBetween(ports: readonly WiredPort[]): Wire[] {
  const listening = byLocalPort(ports);
  const wires: Wire[] = [];
  for (const p of listening.values()) {
    const peer = peerOf(p, listening);
    // Each pair once: from the end with the lower local port.
    if (peer !== undefined && p.nio.lport < peer.nio.lport) wires.push({ a: { nodeId: p.nodeId, portNumber: p.portNumber }, b: { nodeId: peer.nodeId, portNumber: peer.portNumber } });
  }
  return wires;
}

/**
 * The UDP ports of one host's lab that pair with none of its other ports, each with the address its NIO
 * sends to (ADR 0098): the half of a link whose other half a GNS3 controller placed on another compute,
 * or an emulator's. A NIO whose peer port is here but sends elsewhere is one too: it is not a link here.
 */
export function remoteWires(ports: readonly WiredPort[]): RemoteWire[] {
  const listening = byLocalPort(ports);
  const remote: RemoteWire[] = [];
  for (const p of listening.values()) {
    if (peerOf(p, listening) === undefined) remote.push({ a: { nodeId: p.nodeId, portNumber: p.portNumber }, peer: { host: p.nio.rhost, port: p.nio.rport } });
  }
  return remote;
}
