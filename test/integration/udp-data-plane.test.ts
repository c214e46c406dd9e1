import { expect } from "chai";
import { createSocket } from "node:dgram";
import { startTestServer, type TestServer } from "../support/http-harness.js";
import { UdpPeer, ethernetFrame } from "../support/udp-peer.js";

const PROJECT = "55555555-3333-4444-8555-666666666666";
const A = "00:50:79:66:68:01";
const B = "00:50:79:66:68:02";
const C = "00:50:79:66:68:03";
const BROADCAST = "ff:ff:ff:ff:ff:ff";

describe("UDP NIOs and the switch on live traffic (real sockets on 127.0.0.1)", () => {
  let s: TestServer;
  let base: string;
  let peers: UdpPeer[];
  let lports: number[];

  beforeEach(async () => {
    s = await startTestServer();
    await s.request("POST", "/v2/compute/projects", { name: "dp", project_id: PROJECT });
    const ports_mapping = [
      { name: "Ethernet0", port_number: 0, type: "access", vlan: 10 },
      { name: "Ethernet1", port_number: 1, type: "access", vlan: 10 },
      { name: "Ethernet2", port_number: 2, type: "access", vlan: 20 },
      { name: "Ethernet3", port_number: 3, type: "dot1q", vlan: 1 },
    ];
    const sw = (await s.request("POST", `/v2/compute/projects/${PROJECT}/ethernet_switch/nodes`, { name: "SW1", ports_mapping })).json;
    base = `/v2/compute/projects/${PROJECT}/ethernet_switch/nodes/${sw.node_id}`;
    peers = await Promise.all([0, 1, 2, 3].map(() => UdpPeer.open()));
    lports = [];
    for (let i = 0; i < 4; i++) {
      const lport = (await s.request("POST", `/v2/compute/projects/${PROJECT}/ports/udp`)).json.udp_port;
      lports.push(lport);
      const r = await s.request("POST", `${base}/adapters/0/ports/${i}/nio`, { type: "nio_udp", lport, rhost: "127.0.0.1", rport: peers[i]!.port });
      expect(r.status).to.equal(201);
    }
  });
  afterEach(async () => {
    await s.close();
    await Promise.all(peers.map((p) => p.close()));
  });

  it("floods a broadcast within its VLAN only, tagging it towards the trunk, never back to its ingress", async () => {
    await peers[0]!.send(ethernetFrame(BROADCAST, A), lports[0]!);
    const [onPort1] = await peers[1]!.waitFor(1);
    const [onTrunk] = await peers[3]!.waitFor(1);
    expect(onPort1).to.deep.equal(ethernetFrame(BROADCAST, A));
    expect(onTrunk).to.deep.equal(ethernetFrame(BROADCAST, A, { tags: [{ tpid: 0x8100, vid: 10 }] }));
    expect(await peers[2]!.settle()).to.equal(0);
    expect(peers[0]!.received).to.have.length(0);
  });

  it("learns source addresses and sends known unicast to one port only", async () => {
    await peers[1]!.send(ethernetFrame(BROADCAST, B), lports[1]!);
    await peers[0]!.waitFor(1);
    await peers[0]!.send(ethernetFrame(B, A), lports[0]!);
    await peers[1]!.waitFor(1);
    expect(await peers[3]!.settle()).to.equal(1); // only the earlier broadcast
    const table = (await s.request("GET", `${base}/mac_table`)).json;
    expect(table.map((e: { mac: string; vlan: number; port_number: number }) => [e.mac, e.vlan, e.port_number])).to.have.deep.members([
      [A, 10, 0],
      [B, 10, 1],
    ]);
  });

  it("counts frames and bytes per port and shows them on the switch", async () => {
    await peers[0]!.send(ethernetFrame(BROADCAST, A), lports[0]!);
    await peers[1]!.waitFor(1);
    await peers[3]!.waitFor(1);
    const stats = (await s.request("GET", base)).json.ports_statistics as { port_number: number; frames_in: number; frames_out: number; bytes_in: number }[];
    const byPort = new Map(stats.map((p) => [p.port_number, p]));
    expect(byPort.get(0)).to.deep.include({ frames_in: 1, bytes_in: 60, frames_out: 0 });
    expect(byPort.get(1)).to.deep.include({ frames_in: 0, frames_out: 1 });
    expect(byPort.get(3)).to.deep.include({ frames_out: 1 });
  });

  it("ignores datagrams from anyone but the NIO's rhost:rport", async () => {
    const stranger = await UdpPeer.open();
    try {
      await stranger.send(ethernetFrame(BROADCAST, C), lports[0]!);
      expect(await peers[1]!.settle(150)).to.equal(0);
    } finally {
      await stranger.close();
    }
  });

  it("carries distinct frames worth several of the batched path's receive pools byte for byte and in order (ADR 0107)", async () => {
    // 120 × 1,400 bytes: about three 64 KiB pools; in bursts of 8, so batches of one and of several, each
    // burst received before the next leaves (the receiving test socket's default buffer holds ~90 of them).
    const frames = Array.from({ length: 120 }, (_, i) => {
      const frame = ethernetFrame(BROADCAST, A, { payload: 1386 });
      frame.fill(i % 251, 14);
      return frame;
    });
    for (let i = 0; i < frames.length; i += 8) {
      await Promise.all(frames.slice(i, i + 8).map((f) => peers[0]!.send(f, lports[0]!)));
      await peers[1]!.waitFor(Math.min(i + 8, frames.length), 5000);
    }
    const received = peers[1]!.received;
    expect(received.map((f, i) => f.equals(frames[i]!))).to.deep.equal(frames.map(() => true));
  });

  it("drops and counts empty datagrams and runts, and carries frames up to 65,507 bytes", async () => {
    await peers[0]!.send(Buffer.alloc(0), lports[0]!);
    await peers[0]!.send(Buffer.alloc(13, 1), lports[0]!);
    const jumbo = ethernetFrame(BROADCAST, A, { payload: 65507 - 14 });
    await peers[0]!.send(jumbo, lports[0]!);
    const [received] = await peers[1]!.waitFor(1);
    expect(received!.length).to.equal(65507);
    const stats = (await s.request("GET", base)).json.ports_statistics as { port_number: number; drops: Record<string, number> }[];
    expect(stats.find((p) => p.port_number === 0)?.drops).to.deep.equal({ runt: 2 });
  });

  it("applies a NIO's filters from the next frame, without reopening its socket", async () => {
    const nio = { type: "nio_udp", lport: lports[1], rhost: "127.0.0.1", rport: peers[1]!.port };
    expect((await s.request("PUT", `${base}/adapters/0/ports/1/nio`, { ...nio, filters: { packet_loss: [100] } })).status).to.equal(201);
    await peers[0]!.send(ethernetFrame(BROADCAST, A), lports[0]!);
    await peers[3]!.waitFor(1);
    expect(await peers[1]!.settle()).to.equal(0);
    await s.request("PUT", `${base}/adapters/0/ports/1/nio`, { ...nio, filters: {} });
    await peers[0]!.send(ethernetFrame(BROADCAST, A), lports[0]!);
    await peers[1]!.waitFor(1);
  });

  it("drops the frames a bpf filter matches, in both directions of the port", async () => {
    const nio = { type: "nio_udp", lport: lports[1], rhost: "127.0.0.1", rport: peers[1]!.port };
    expect((await s.request("PUT", `${base}/adapters/0/ports/1/nio`, { ...nio, filters: { bpf: ["ether broadcast"] } })).status).to.equal(201);
    await peers[0]!.send(ethernetFrame(BROADCAST, A), lports[0]!);
    await peers[3]!.waitFor(1);
    expect(await peers[1]!.settle()).to.equal(0);
    await peers[1]!.send(ethernetFrame(BROADCAST, B), lports[1]!);
    expect(await peers[0]!.settle(), "nothing from port 1 either").to.equal(0);
    await peers[1]!.send(ethernetFrame(A, B), lports[1]!);
    await peers[0]!.waitFor(1);
    const stats = (await s.request("GET", base)).json.ports_statistics as { port_number: number; drops: Record<string, number> }[];
    expect(stats.find((p) => p.port_number === 1)?.drops).to.deep.equal({ bpf: 2 });
  });

  it("delays frames by the configured latency", async () => {
    const nio = { type: "nio_udp", lport: lports[1], rhost: "127.0.0.1", rport: peers[1]!.port };
    await s.request("PUT", `${base}/adapters/0/ports/1/nio`, { ...nio, filters: { delay: [80] } });
    const started = performance.now();
    await peers[0]!.send(ethernetFrame(BROADCAST, A), lports[0]!);
    await peers[3]!.waitFor(1);
    const fast = performance.now() - started;
    await peers[1]!.waitFor(1);
    const slow = performance.now() - started;
    expect(fast).to.be.below(60);
    expect(slow).to.be.at.least(79);
  });

  it("closes a removed NIO's socket at once: its port can be bound again right after", async () => {
    expect((await s.request("DELETE", `${base}/adapters/0/ports/0/nio`)).status).to.equal(204);
    const socket = createSocket("udp4");
    await new Promise<void>((resolve, reject) => {
      socket.once("error", reject);
      socket.bind(lports[0]!, "127.0.0.1", () => resolve());
    });
    await new Promise<void>((resolve) => socket.close(() => resolve()));
  });

  it("keeps a port working while its peer is gone (ECONNREFUSED) and delivers again once the peer is back", async () => {
    const peerPort = peers[1]!.port;
    await peers[1]!.close();
    // Sends towards the closed peer draw ICMP port-unreachable, and the kernel fails the connected
    // socket's next send with ECONNREFUSED: that must neither crash the server nor close the NIO.
    for (let i = 0; i < 20; i++) await peers[0]!.send(ethernetFrame(BROADCAST, A), lports[0]!);
    await peers[3]!.waitFor(20);
    peers[1] = await UdpPeer.open(peerPort);
    await peers[0]!.send(ethernetFrame(BROADCAST, A), lports[0]!);
    const [again] = await peers[1]!.waitFor(1);
    expect(again).to.deep.equal(ethernetFrame(BROADCAST, A));
    expect((await s.request("GET", "/v2/version")).status).to.equal(200);
  });

  it("refuses a NIO whose local port is taken, or whose rhost does not resolve, with 409 and leaves the port free", async () => {
    const holder = await UdpPeer.open();
    try {
      const busy = await s.request("POST", `${base}/adapters/0/ports/0/nio`, { type: "nio_udp", lport: holder.port, rhost: "127.0.0.1", rport: 9 });
      expect(busy.status).to.equal(409, "port 0 still has its NIO");
      await s.request("DELETE", `${base}/adapters/0/ports/0/nio`);
      const taken = await s.request("POST", `${base}/adapters/0/ports/0/nio`, { type: "nio_udp", lport: holder.port, rhost: "127.0.0.1", rport: 9 });
      expect(taken.status).to.equal(409);
      expect(taken.json.message).to.equal(`Could not create an UDP connection to 127.0.0.1:9: local port is already in use (EADDRINUSE)`);
      const unresolved = await s.request("POST", `${base}/adapters/0/ports/0/nio`, { type: "nio_udp", lport: lports[0], rhost: "no.such.host.invalid", rport: 9 });
      expect(unresolved.status).to.equal(409);
      expect(unresolved.json.message).to.match(/^Could not create an UDP connection to no\.such\.host\.invalid:9: Name or service not known/);
      const ok = await s.request("POST", `${base}/adapters/0/ports/0/nio`, { type: "nio_udp", lport: lports[0], rhost: "127.0.0.1", rport: peers[0]!.port });
      expect(ok.status).to.equal(201);
    } finally {
      await holder.close();
    }
  });

  it("applies a new ports_mapping to live ports at once", async () => {
    await s.request("PUT", base, {
      ports_mapping: [
        { name: "Ethernet0", port_number: 0, type: "access", vlan: 20 },
        { name: "Ethernet1", port_number: 1, type: "access", vlan: 10 },
        { name: "Ethernet2", port_number: 2, type: "access", vlan: 20 },
        { name: "Ethernet3", port_number: 3, type: "dot1q", vlan: 1 },
      ],
    });
    await peers[0]!.send(ethernetFrame(BROADCAST, A), lports[0]!);
    await peers[2]!.waitFor(1);
    expect(await peers[1]!.settle()).to.equal(0);
  });
});

describe("captures on live traffic", () => {
  let s: TestServer;
  let peers: UdpPeer[];
  let lports: number[];
  let base: string;

  beforeEach(async () => {
    s = await startTestServer();
    await s.request("POST", "/v2/compute/projects", { name: "cap", project_id: PROJECT });
    const sw = (await s.request("POST", `/v2/compute/projects/${PROJECT}/ethernet_switch/nodes`, { name: "SW1" })).json;
    base = `/v2/compute/projects/${PROJECT}/ethernet_switch/nodes/${sw.node_id}`;
    peers = await Promise.all([UdpPeer.open(), UdpPeer.open()]);
    lports = [];
    for (let i = 0; i < 2; i++) {
      const lport = (await s.request("POST", `/v2/compute/projects/${PROJECT}/ports/udp`)).json.udp_port;
      lports.push(lport);
      await s.request("POST", `${base}/adapters/0/ports/${i}/nio`, { type: "nio_udp", lport, rhost: "127.0.0.1", rport: peers[i]!.port });
    }
  });
  afterEach(async () => {
    await s.close();
    await Promise.all(peers.map((p) => p.close()));
  });

  it("writes both directions of a port, after its filters, to a classic pcap that the pcap route streams while it grows", async () => {
    const started = await s.request("POST", `${base}/adapters/0/ports/1/start_capture`, { capture_file_name: "live.pcap", data_link_type: "DLT_EN10MB" });
    expect(started.status).to.equal(200);
    const stream = await fetch(`${s.url}${base}/adapters/0/ports/1/pcap`);
    expect(stream.status).to.equal(200);
    expect(stream.headers.get("content-type")).to.equal("application/vnd.tcpdump.pcap");
    const body = stream.arrayBuffer();
    await peers[0]!.send(ethernetFrame(BROADCAST, A), lports[0]!); // leaves through port 1
    await peers[1]!.waitFor(1);
    await peers[1]!.send(ethernetFrame(A, B), lports[1]!); // enters through port 1
    await peers[0]!.waitFor(1);
    await new Promise((r) => setTimeout(r, 150));
    expect((await s.request("POST", `${base}/adapters/0/ports/1/stop_capture`)).status).to.equal(204);
    const bytes = Buffer.from(await body);
    expect(bytes.readUInt32LE(0)).to.equal(0xa1b2c3d4);
    expect(bytes.readUInt32LE(20)).to.equal(1);
    const first = bytes.subarray(24 + 16, 24 + 16 + 60);
    expect(first).to.deep.equal(ethernetFrame(BROADCAST, A));
    const secondHeader = 24 + 16 + 60;
    expect(bytes.readUInt32LE(secondHeader + 8)).to.equal(60);
    expect(bytes.subarray(secondHeader + 16, secondHeader + 76)).to.deep.equal(ethernetFrame(A, B));
    expect(bytes.length).to.equal(24 + 2 * (16 + 60));
  });
});
