import type { Lab, LabNode } from "./api.js";

/** A peer's address as people write it: 127.0.0.1:20001, [::1]:20001. */
export function peerAddress(peer: { readonly host: string; readonly port: number }): string {
  return `${peer.host.includes(":") ? `[${peer.host}]` : peer.host}:${peer.port}`;
}

export const remoteNodeId = (address: string): string => `remote:${address}`;

/**
 * The lab with each peer it reaches elsewhere drawn as a node of kind "remote", named by its address,
 * and a link from the port that sends to it (ADR 0098): a switch a GNS3 controller placed here shows
 * its links to the nodes on other computes. Ports sending to one address are one node with a port each.
 */
export function withRemotePeers(lab: Lab): Lab {
  const remote = lab.remote_links ?? [];
  if (remote.length === 0) return lab;
  const peers = new Map<string, { node: LabNode; ports: LabNode["ports"][number][] }>();
  const links: Lab["links"][number][] = [...lab.links];
  for (const r of remote) {
    const address = peerAddress(r.peer);
    const id = remoteNodeId(address);
    let peer = peers.get(id);
    if (peer === undefined) {
      const ports: LabNode["ports"][number][] = [];
      peer = { node: { node_id: id, name: address, node_type: "remote", status: "started", ports }, ports };
      peers.set(id, peer);
    }
    const portNumber = peer.ports.length;
    // A remote node's port has no name of its own: the link reads "sw1 Ethernet3 — 127.0.0.1:20001".
    peer.ports.push({ port_number: portNumber, name: "", connected: true });
    links.push({ a: r.a, b: { node_id: id, port_number: portNumber } });
  }
  return { ...lab, nodes: [...lab.nodes, ...[...peers.values()].map((p) => p.node)], links };
}
