import { expect } from "chai";
import { spawnSync } from "node:child_process";
import { readFileSync } from "node:fs";
import { startTestServer, type TestServer } from "../support/http-harness.js";
import { VpcsHost, requireTool } from "../support/vpcs.js";

/** VPCS ports: away from netemu's UDP range, 10 apart (each instance also binds lport + 9). */
let vpcsPort = 36000 + (process.pid % 100) * 40;
const nextVpcsPort = (): number => (vpcsPort += 10);

/**
 * Round-trip times (ms) of ICMP echoes in a classic pcap of a host's port: for each echo request,
 * the time until the reply with the same identifier and sequence number.
 */
function echoRoundTrips(pcap: Buffer): number[] {
  const sent = new Map<string, number>();
  const rtts: number[] = [];
  for (let at = 24; at + 16 <= pcap.length; ) {
    const time = pcap.readUInt32LE(at) * 1000 + pcap.readUInt32LE(at + 4) / 1000;
    const caplen = pcap.readUInt32LE(at + 8);
    const frame = pcap.subarray(at + 16, at + 16 + caplen);
    at += 16 + caplen;
    if (frame.length < 42 || frame.readUInt16BE(12) !== 0x0800 || frame[23] !== 1) continue;
    const icmp = 14 + ((frame[14] as number) & 0x0f) * 4;
    const key = `${frame.readUInt16BE(icmp + 4)}/${frame.readUInt16BE(icmp + 6)}`;
    if (frame[icmp] === 8) sent.set(key, time);
    else if (frame[icmp] === 0 && sent.has(key)) rtts.push(time - (sent.get(key) as number));
  }
  return rtts;
}

interface Wired {
  readonly host: VpcsHost;
}

describe("end to end: VPCS hosts through netemu over its HTTP API", function () {
  this.timeout(120_000);
  let s: TestServer;
  let projectId: string;
  const hosts: VpcsHost[] = [];

  before(function () {
    requireTool(this, "vpcs", "vpcs");
    requireTool(this, "script", "bsdutils");
  });

  beforeEach(async () => {
    s = await startTestServer();
    projectId = (await s.request("POST", "/v2/projects", { name: "e2e" })).json.project_id;
  });

  afterEach(async () => {
    await Promise.all(hosts.splice(0).map((h) => h.stop()));
    await s?.close();
  });

  const createSwitch = async (name: string, ports: { port_number: number; type: string; vlan: number }[]): Promise<string> => {
    const ports_mapping = ports.map((p) => ({ name: `Ethernet${p.port_number}`, ...p }));
    const r = await s.request("POST", `/v2/projects/${projectId}/nodes`, { name, node_type: "ethernet_switch", compute_id: "local", properties: { ports_mapping } });
    expect(r.status).to.equal(201);
    return r.json.node_id;
  };

  /** Starts a VPCS host wired to a switch port with a compute NIO, and gives it an address. */
  const attachHost = async (nodeId: string, port: number, macId: number): Promise<Wired> => {
    const lport = (await s.request("POST", `/v2/compute/projects/${projectId}/ports/udp`)).json.udp_port;
    const vport = nextVpcsPort();
    const r = await s.request("POST", `/v2/compute/projects/${projectId}/ethernet_switch/nodes/${nodeId}/adapters/0/ports/${port}/nio`, {
      type: "nio_udp", lport, rhost: "127.0.0.1", rport: vport,
    });
    expect(r.status).to.equal(201);
    const host = await VpcsHost.start(vport, lport, macId);
    hosts.push(host);
    return { host };
  };

  it("1. hosts on access ports of one VLAN ping each other; a host in another VLAN cannot reach them", async () => {
    const sw = await createSwitch("SW1", [
      { port_number: 0, type: "access", vlan: 10 },
      { port_number: 1, type: "access", vlan: 10 },
      { port_number: 2, type: "access", vlan: 20 },
    ]);
    const [a, b, c] = await Promise.all([attachHost(sw, 0, 1), attachHost(sw, 1, 2), attachHost(sw, 2, 3)]);
    await Promise.all([a.host.setIp("10.0.0.1/24"), b.host.setIp("10.0.0.2/24"), c.host.setIp("10.0.0.3/24")]);
    const ok = await a.host.ping("10.0.0.2", 3);
    expect(ok.replies, ok.output).to.equal(3);
    const isolated = await c.host.ping("10.0.0.1", 2);
    expect(isolated.replies, isolated.output).to.equal(0);
  });

  describe("two switches joined by a dot1q trunk", () => {
    let sw1: string;
    let sw2: string;
    let h: Wired[];

    beforeEach(async () => {
      const mapping = [
        { port_number: 0, type: "access", vlan: 10 },
        { port_number: 1, type: "access", vlan: 20 },
        { port_number: 6, type: "dot1q", vlan: 1 },
        { port_number: 7, type: "dot1q", vlan: 1 },
      ];
      sw1 = await createSwitch("SW1", mapping);
      sw2 = await createSwitch("SW2", mapping);
      h = await Promise.all([attachHost(sw1, 0, 11), attachHost(sw2, 0, 12), attachHost(sw1, 1, 13), attachHost(sw2, 1, 14)]);
      // All four in one subnet: only the VLANs keep 10.0.0.1/.2 (VLAN 10) apart from .3/.4 (VLAN 20).
      await Promise.all(h.map((w, i) => w.host.setIp(`10.0.0.${i + 1}/24`)));
    });

    const pingMatrix = async (): Promise<void> => {
      expect((await h[0]!.host.ping("10.0.0.2", 2)).replies, "VLAN 10 across the trunk").to.equal(2);
      expect((await h[2]!.host.ping("10.0.0.4", 2)).replies, "VLAN 20 across the trunk").to.equal(2);
      expect((await h[0]!.host.ping("10.0.0.4", 1)).replies, "VLAN 10 to VLAN 20").to.equal(0);
      expect((await h[3]!.host.ping("10.0.0.1", 1)).replies, "VLAN 20 to VLAN 10").to.equal(0);
    };

    it("2a. carries each VLAN over a controller link, never across VLANs", async () => {
      const link = await s.request("POST", `/v2/projects/${projectId}/links`, {
        nodes: [{ node_id: sw1, adapter_number: 0, port_number: 7 }, { node_id: sw2, adapter_number: 0, port_number: 7 }],
      });
      expect(link.status).to.equal(201);
      await pingMatrix();
    });

    it("2b. carries each VLAN over two compute NIOs wired to each other", async () => {
      const [p1, p2] = [
        (await s.request("POST", `/v2/compute/projects/${projectId}/ports/udp`)).json.udp_port,
        (await s.request("POST", `/v2/compute/projects/${projectId}/ports/udp`)).json.udp_port,
      ];
      const nio = (node: string, lport: number, rport: number) =>
        s.request("POST", `/v2/compute/projects/${projectId}/ethernet_switch/nodes/${node}/adapters/0/ports/6/nio`, { type: "nio_udp", lport, rhost: "127.0.0.1", rport });
      expect((await nio(sw1, p1, p2)).status).to.equal(201);
      expect((await nio(sw2, p2, p1)).status).to.equal(201);
      await pingMatrix();
    });

    it("3. delays, drops and suspends on one end act on both directions, and clearing them restores the pings", async () => {
      const link = (await s.request("POST", `/v2/projects/${projectId}/links`, {
        nodes: [{ node_id: sw1, adapter_number: 0, port_number: 7 }, { node_id: sw2, adapter_number: 0, port_number: 7 }],
      })).json;
      const path = `/v2/projects/${projectId}/links/${link.link_id}`;
      expect((await h[0]!.host.ping("10.0.0.2", 1)).replies, "ARP resolved before the filters").to.equal(1);

      expect((await s.request("PUT", path, { filters: { delay: [100, 0] } })).status).to.equal(201);
      // The RTT on the wire at the host's port, from a capture there, and the RTT VPCS prints. VPCS
      // 0.5b2 reads its replies in a polling loop: on a loaded 2-core machine it has printed 250-330 ms
      // for replies the capture shows back after 202 ms, so its figures bound the RTT from below only.
      const hostPort = `/v2/compute/projects/${projectId}/ethernet_switch/nodes/${sw1}/adapters/0/ports/0`;
      const capture = await s.request("POST", `${hostPort}/start_capture`, { capture_file_name: "rtt.pcap", data_link_type: "DLT_EN10MB" });
      expect(capture.status).to.equal(200);
      const delayed = await h[0]!.host.ping("10.0.0.2", 4);
      expect((await s.request("POST", `${hostPort}/stop_capture`)).status).to.equal(204);
      expect(delayed.replies, delayed.output).to.equal(4);
      for (const rtt of delayed.rttsMs) expect(rtt, delayed.output).to.be.at.least(200);
      const wire = echoRoundTrips(readFileSync(capture.json.pcap_file_path as string));
      expect(wire, "one round trip per ping").to.have.length(4);
      for (const rtt of wire) expect(rtt).to.be.at.least(200).and.below(300);

      const reset = { bpf: [], corrupt: [0], delay: [0, 0], frequency_drop: [0], packet_loss: [0] };
      for (const body of [{ filters: { packet_loss: [100] } }, { filters: { frequency_drop: [-1] } }, { filters: reset, suspend: true }]) {
        expect((await s.request("PUT", path, body)).status).to.equal(201);
        expect((await h[0]!.host.ping("10.0.0.2", 2)).replies, JSON.stringify(body)).to.equal(0);
        expect((await s.request("PUT", path, { filters: reset, suspend: false })).status).to.equal(201);
        const restored = await h[0]!.host.ping("10.0.0.2", 2);
        expect(restored.replies, `restored after ${JSON.stringify(body)}`).to.equal(2);
        // No delay left: the fastest reply comes back at once (VPCS alone can add a late reading).
        expect(Math.min(...restored.rttsMs), restored.output).to.be.below(100);
      }
    });

    it("4. a capture taken during a ping holds ICMP echo requests and replies that tcpdump decodes", async function () {
      requireTool(this, "tcpdump", "tcpdump");
      const link = (await s.request("POST", `/v2/projects/${projectId}/links`, {
        nodes: [{ node_id: sw1, adapter_number: 0, port_number: 7 }, { node_id: sw2, adapter_number: 0, port_number: 7 }],
      })).json;
      const path = `/v2/projects/${projectId}/links/${link.link_id}`;
      const started = await s.request("POST", `${path}/start_capture`, { capture_file_name: "ping.pcap" });
      expect(started.status).to.equal(201);
      expect((await h[0]!.host.ping("10.0.0.2", 3)).replies).to.equal(3);
      expect((await s.request("POST", `${path}/stop_capture`, {})).status).to.equal(201);
      const file = started.json.capture_file_path as string;
      const decoded = spawnSync("tcpdump", ["-nn", "-e", "-r", file], { encoding: "utf8", timeout: 10_000 });
      expect(decoded.status, decoded.stderr).to.equal(0);
      const requests = decoded.stdout.split("\n").filter((l) => /vlan 10.*10\.0\.0\.1 > 10\.0\.0\.2: ICMP echo request/.test(l));
      const replies = decoded.stdout.split("\n").filter((l) => /vlan 10.*10\.0\.0\.2 > 10\.0\.0\.1: ICMP echo reply/.test(l));
      expect(requests, decoded.stdout).to.have.length(3);
      expect(replies, decoded.stdout).to.have.length(3);
    });
  });
});
