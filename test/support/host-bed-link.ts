import { expect } from "chai";
import type { Reply, TestServer } from "./http-harness.js";
import type { BedHost, HostBed } from "./host-bed.js";

/** A ─ SW1 ══ link ══ SW2 ─ B: two real hosts on two netemu switches joined by one controller link. */
export interface LinkedHosts {
  readonly projectId: string;
  /** The link's path on the controller API, for PUTs of its filters. */
  readonly linkPath: string;
  readonly sw1: string;
  readonly sw2: string;
  readonly a: BedHost;
  readonly b: BedHost;
}

/**
 * Builds the filter and impairment tests' bed: a controller project with two switches (ports 0 and 7,
 * VLAN 1), a link between their ports 7, and a host on each port 0 (10.12.0.1 and .2), ARP resolved.
 */
export async function linkedHosts(s: TestServer, bed: HostBed, projectName: string): Promise<LinkedHosts> {
  const projectId = (await s.request("POST", "/v2/projects", { name: projectName })).json.project_id as string;
  const ports_mapping = [0, 7].map((port_number) => ({ name: `Ethernet${port_number}`, port_number, type: "access", vlan: 1 }));
  const node = async (name: string): Promise<string> =>
    (await s.request("POST", `/v2/projects/${projectId}/nodes`, { name, node_type: "ethernet_switch", compute_id: "local", properties: { ports_mapping } })).json.node_id;
  const [sw1, sw2] = [await node("SW1"), await node("SW2")];
  const link = await s.request("POST", `/v2/projects/${projectId}/links`, {
    nodes: [{ node_id: sw1, adapter_number: 0, port_number: 7 }, { node_id: sw2, adapter_number: 0, port_number: 7 }],
  });
  expect(link.status, link.text).to.equal(201);
  const attach = async (nodeId: string, cidr: string): Promise<BedHost> => {
    const lport = (await s.request("POST", `/v2/compute/projects/${projectId}/ports/udp`)).json.udp_port as number;
    const host = await bed.addHost(cidr, lport);
    const r = await s.request("POST", `/v2/compute/projects/${projectId}/ethernet_switch/nodes/${nodeId}/adapters/0/ports/0/nio`, {
      type: "nio_udp", lport, rhost: "127.0.0.1", rport: host.udpPort,
    });
    expect(r.status, r.text).to.equal(201);
    return host;
  };
  const a = await attach(sw1, "10.12.0.1/24");
  const b = await attach(sw2, "10.12.0.2/24");
  expect((await a.ping(b.ip, { count: 2 })).received, "ARP resolved before any filter").to.equal(2);
  return { projectId, linkPath: `/v2/projects/${projectId}/links/${link.json.link_id}`, sw1, sw2, a, b };
}

/** What one switch's end of the link sends: its filters, or its schedule (ADR 0102). */
export type LinkEnd = { readonly filters: Record<string, unknown> } | { readonly schedule: Record<string, unknown> };

/**
 * Sets the link's impairments in one PUT: `both` on the link (both ways), and what SW1's end sends
 * (A → B) and SW2's (B → A); what is left out is cleared. Answers the PUT's answer (201 checked), whose
 * ends carry `schedule_set_at`.
 */
export async function impairLink(
  s: TestServer,
  hosts: Pick<LinkedHosts, "linkPath" | "sw1" | "sw2">,
  ends: { readonly both?: Record<string, unknown>; readonly aToB?: LinkEnd; readonly bToA?: LinkEnd },
): Promise<Reply> {
  const end = (node_id: string, settings: LinkEnd = { filters: {} }) => ({ node_id, adapter_number: 0, port_number: 7, ...settings });
  const r = await s.request("PUT", hosts.linkPath, { filters: ends.both ?? {}, nodes: [end(hosts.sw1, ends.aToB), end(hosts.sw2, ends.bToA)] });
  expect(r.status, r.text).to.equal(201);
  return r;
}

/** ECN requested by TCP (tcp_ecn 1) or only answered (2, Linux's default), in each host's namespace. */
export async function setTcpEcn(hosts: readonly BedHost[], on: boolean): Promise<void> {
  for (const host of hosts) {
    const r = await host.exec(["sysctl", "-w", `net.ipv4.tcp_ecn=${on ? 1 : 2}`]);
    expect(r.status, r.stderr).to.equal(0);
  }
}
