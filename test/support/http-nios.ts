import { expect } from "chai";
import type { TestServer } from "./http-harness.js";
import { UdpPeer } from "./udp-peer.js";

/**
 * A UDP NIO on port `port` of the node at `base` (its compute API path) towards a new peer on 127.0.0.1,
 * kept in `opened` for the test to close; answers the peer and the NIO's local port.
 */
export async function wireUdpNio(
  s: TestServer,
  projectId: string,
  base: string,
  port: number,
  opened: UdpPeer[],
  filters?: Record<string, unknown>,
): Promise<{ peer: UdpPeer; lport: number }> {
  const peer = await UdpPeer.open();
  opened.push(peer);
  const lport = (await s.request("POST", `/v2/compute/projects/${projectId}/ports/udp`)).json.udp_port as number;
  const r = await s.request("POST", `${base}/adapters/0/ports/${port}/nio`, { type: "nio_udp", lport, rhost: "127.0.0.1", rport: peer.port, ...(filters === undefined ? {} : { filters }) });
  expect(r.status, r.text).to.equal(201);
  return { peer, lport };
}

/** A new ethernet switch `name` in the project, through the compute API, its ports 0 and 1 wired by `wireUdpNio`. */
export async function httpWiredSwitch(
  s: TestServer,
  projectId: string,
  name: string,
  opened: UdpPeer[],
): Promise<{ base: string; peers: [UdpPeer, UdpPeer]; lports: [number, number] }> {
  const sw = (await s.request("POST", `/v2/compute/projects/${projectId}/ethernet_switch/nodes`, { name })).json;
  const base = `/v2/compute/projects/${projectId}/ethernet_switch/nodes/${sw.node_id}`;
  const p0 = await wireUdpNio(s, projectId, base, 0, opened);
  const p1 = await wireUdpNio(s, projectId, base, 1, opened);
  return { base, peers: [p0.peer, p1.peer], lports: [p0.lport, p1.lport] };
}
