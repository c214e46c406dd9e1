import { expect } from "chai";
import { startTestServer, type TestServer } from "../support/http-harness.js";
import { HostBed, requireHostBed, type BedHost } from "../support/host-bed.js";

/**
 * Real Linux TCP/IP stacks (network namespaces, docs/host-bed.md) on netemu switch ports. Topology:
 *
 *   A 10.12.0.1 ─ SW1 port 0 (access 12)        SW2 port 0 (access 12) ─ D 10.12.0.4
 *   B 10.12.0.2 ─ SW1 port 1 (access 12)        SW2 port 1 (access 13) ─ E 10.12.0.5
 *   C 10.12.0.3 ─ SW1 port 2 (access 13)
 *                 SW1 port 7 (dot1q) ══ controller link ══ SW2 port 7 (dot1q)
 *
 * All five share one subnet: only the VLANs keep {A, B, D} apart from {C, E}.
 */
describe("end to end: real TCP/IP hosts switched by netemu", function () {
  this.timeout(120_000);
  let s: TestServer | undefined;
  let bed: HostBed | undefined;
  let projectId: string;
  let a: BedHost, b: BedHost, c: BedHost, d: BedHost, e: BedHost;

  const createSwitch = async (name: string, ports: readonly { port_number: number; type: string; vlan: number }[]): Promise<string> => {
    const ports_mapping = ports.map((p) => ({ name: `Ethernet${p.port_number}`, ...p }));
    const r = await s!.request("POST", `/v2/projects/${projectId}/nodes`, { name, node_type: "ethernet_switch", compute_id: "local", properties: { ports_mapping } });
    expect(r.status, r.text).to.equal(201);
    return r.json.node_id;
  };

  /** A host in its namespace, wired to a switch port by a compute NIO: netemu's lport first, then socat's. */
  const attachHost = async (nodeId: string, port: number, cidr: string): Promise<BedHost> => {
    const lport = (await s!.request("POST", `/v2/compute/projects/${projectId}/ports/udp`)).json.udp_port as number;
    const host = await bed!.addHost(cidr, lport);
    const r = await s!.request("POST", `/v2/compute/projects/${projectId}/ethernet_switch/nodes/${nodeId}/adapters/0/ports/${port}/nio`, {
      type: "nio_udp", lport, rhost: "127.0.0.1", rport: host.udpPort,
    });
    expect(r.status, r.text).to.equal(201);
    return host;
  };

  before(async function () {
    requireHostBed(this);
    bed = await HostBed.open();
    s = await startTestServer();
    projectId = (await s.request("POST", "/v2/projects", { name: "host-bed" })).json.project_id;
    const sw1 = await createSwitch("SW1", [
      { port_number: 0, type: "access", vlan: 12 },
      { port_number: 1, type: "access", vlan: 12 },
      { port_number: 2, type: "access", vlan: 13 },
      { port_number: 7, type: "dot1q", vlan: 1 },
    ]);
    const sw2 = await createSwitch("SW2", [
      { port_number: 0, type: "access", vlan: 12 },
      { port_number: 1, type: "access", vlan: 13 },
      { port_number: 7, type: "dot1q", vlan: 1 },
    ]);
    const link = await s.request("POST", `/v2/projects/${projectId}/links`, {
      nodes: [{ node_id: sw1, adapter_number: 0, port_number: 7 }, { node_id: sw2, adapter_number: 0, port_number: 7 }],
    });
    expect(link.status, link.text).to.equal(201);
    a = await attachHost(sw1, 0, "10.12.0.1/24");
    b = await attachHost(sw1, 1, "10.12.0.2/24");
    c = await attachHost(sw1, 2, "10.12.0.3/24");
    d = await attachHost(sw2, 0, "10.12.0.4/24");
    e = await attachHost(sw2, 1, "10.12.0.5/24");
  });

  after(async () => {
    await bed?.close();
    await s?.close();
  });

  it("hosts on access ports of one VLAN resolve each other by ARP and answer every ping", async () => {
    const ping = await a.ping(b.ip, { count: 5 });
    expect(ping.received, ping.output).to.equal(5);
    expect(await a.neighbour(b.ip), "A learnt B's MAC by ARP").to.equal(b.mac);
    expect(await b.neighbour(a.ip), "B learnt A's MAC from A's request").to.equal(a.mac);
  });

  it("TCP flows between them each way (iperf3 for 2 s)", async () => {
    const forward = await bed!.iperf3(a, b, { seconds: 2 });
    const reverse = await bed!.iperf3(a, b, { seconds: 2, reverse: true });
    // A floor far below what any machine gives, only to say the stream really ran.
    expect(forward.receivedBps).to.be.above(1e6);
    expect(reverse.receivedBps).to.be.above(1e6);
    expect(forward.json.start.connected[0].local_host).to.equal(a.ip);
    expect(reverse.json.start.test_start.reverse).to.equal(1);
  });

  it("UDP at 5 Mbit/s arrives whole and in order, each way", async () => {
    for (const reverse of [false, true]) {
      const { udp } = await bed!.iperf3(a, b, { seconds: 2, udpBitrate: 5e6, reverse });
      expect(udp!.sentPackets, `reverse: ${reverse}`).to.be.above(500);
      expect(udp!.lostPercent, `no impairment: nothing is lost (reverse: ${reverse})`).to.be.below(1);
      expect(udp!.outOfOrder, `reverse: ${reverse}`).to.equal(0);
      expect(udp!.packets).to.be.within(udp!.sentPackets * 0.99, udp!.sentPackets);
    }
  });

  it("a host in another VLAN reaches none of them: no ARP answer, no ping, no TCP", async () => {
    for (const target of [a, b, d]) {
      const ping = await c.ping(target.ip, { count: 2, waitS: 0.5 });
      expect(ping.received, `C → ${target.ip}`).to.equal(0);
      expect(await c.neighbour(target.ip), `C has no MAC for ${target.ip}`).to.equal(undefined);
    }
    const back = await a.ping(c.ip, { count: 2, waitS: 0.5 });
    expect(back.received, "A → C").to.equal(0);
    // An iperf3 server listens on A; C's client cannot reach it (no ARP answer: no route to host).
    const tcp = await bed!.iperf3(c, a, { seconds: 1 }).then(() => "connected", (err: Error) => err.message);
    expect(tcp, "iperf3 from C to A").to.match(/unable to connect/);
  });

  it("a dot1q trunk between two switches carries both VLANs, each to its own hosts only", async () => {
    expect((await a.ping(d.ip, { count: 3 })).received, "VLAN 12 across the trunk").to.equal(3);
    expect((await c.ping(e.ip, { count: 3 })).received, "VLAN 13 across the trunk").to.equal(3);
    expect((await e.ping(a.ip, { count: 2, waitS: 0.5 })).received, "VLAN 13 to VLAN 12").to.equal(0);
    expect((await d.ping(c.ip, { count: 2, waitS: 0.5 })).received, "VLAN 12 to VLAN 13").to.equal(0);
    const tcp = await bed!.iperf3(d, a, { seconds: 1 });
    expect(tcp.receivedBps).to.be.above(1e6);
  });
});
