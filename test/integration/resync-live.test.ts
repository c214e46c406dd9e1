import { expect } from "chai";
import { startTestServer, type TestServer } from "../support/http-harness.js";
import { UdpPeer, ethernetFrame } from "../support/udp-peer.js";

/**
 * What a GNS3 user meets on `netemu serve` (ADR 0055): a change of a switch that does not touch a
 * port's filters leaves that port's impairments where they were: frequency_drop's count, a bandwidth
 * backlog, the burst-loss state, frames held by a delay. On the main thread and in a worker thread
 * alike, through the compute API, on real sockets on 127.0.0.1.
 */
const PROJECT = "77777777-3333-4444-8555-777777777777";
const A = "00:50:79:66:68:01";
const BROADCAST = "ff:ff:ff:ff:ff:ff";

for (const workers of [0, 1]) {
  describe(`re-syncing a live switch keeps its ports' impairment state (${workers === 0 ? "data plane on the main thread" : "data plane in a worker thread"}, real sockets)`, function () {
    this.timeout(30_000);
    let s: TestServer;
    const opened: UdpPeer[] = [];
    let base: string;
    let peers: UdpPeer[];
    let lports: number[];

    beforeEach(async () => {
      s = await startTestServer({ dataPlaneWorkers: workers });
      await s.request("POST", "/v2/compute/projects", { name: "resync", project_id: PROJECT });
      const sw = (await s.request("POST", `/v2/compute/projects/${PROJECT}/ethernet_switch/nodes`, { name: "SW1" })).json;
      base = `/v2/compute/projects/${PROJECT}/ethernet_switch/nodes/${sw.node_id}`;
      peers = [];
      lports = [];
      for (let i = 0; i < 3; i++) {
        const peer = await UdpPeer.open();
        opened.push(peer);
        peers.push(peer);
        lports.push((await s.request("POST", `/v2/compute/projects/${PROJECT}/ports/udp`)).json.udp_port as number);
      }
    });
    afterEach(async () => {
      await s.close();
      await Promise.all(opened.splice(0).map((p) => p.close()));
    });

    const nio = (port: number, extra: Record<string, unknown> = {}) => ({ type: "nio_udp", lport: lports[port], rhost: "127.0.0.1", rport: peers[port]?.port, ...extra });
    const attach = async (port: number, extra: Record<string, unknown> = {}): Promise<void> => {
      const r = await s.request("POST", `${base}/adapters/0/ports/${port}/nio`, nio(port, extra));
      expect(r.status, r.text).to.equal(201);
    };
    const setFilters = async (port: number, extra: Record<string, unknown>): Promise<void> => {
      const r = await s.request("PUT", `${base}/adapters/0/ports/${port}/nio`, nio(port, extra));
      expect(r.status, r.text).to.equal(201);
    };
    /** A frame from port 0's peer; the switch floods it out of port 1 (through its filters). */
    const send = (fill: number, payload = 46): Promise<void> => {
      const frame = ethernetFrame(BROADCAST, A, { payload });
      frame.fill(fill, frame.length - payload);
      return (peers[0] as UdpPeer).send(frame, lports[0] as number);
    };
    const fills = (peer: UdpPeer): number[] => peer.received.map((f) => f[f.length - 1] as number);
    const settle = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));
    const egressDrops = async (port: number): Promise<Record<string, number>> =>
      ((await s.request("GET", base)).json.ports_statistics as { port_number: number; drops: Record<string, number> }[]).find((p) => p.port_number === port)?.drops ?? {};

    const changes: readonly { name: string; apply: () => Promise<unknown> }[] = [
      { name: "a rename", apply: () => s.request("PUT", base, { name: "SW1-renamed" }) },
      { name: "a stop and a start", apply: async () => (await s.request("POST", `${base}/stop`), s.request("POST", `${base}/start`)) },
      { name: "a suspend and a resume", apply: async () => (await s.request("POST", `${base}/suspend`), s.request("POST", `${base}/start`)) },
      { name: "a NIO added on another port", apply: () => attach(2) },
      { name: "a NIO added on another port and removed again", apply: async () => (await attach(2), s.request("DELETE", `${base}/adapters/0/ports/2/nio`)) },
    ];

    for (const change of changes) {
      it(`frequency_drop [3]: two frames, ${change.name}, and the third frame is dropped`, async () => {
        await attach(0);
        await attach(1, { filters: { frequency_drop: [3] } });
        await send(1);
        await send(2);
        await (peers[1] as UdpPeer).waitFor(2);
        await change.apply();
        await send(3);
        await send(4);
        await (peers[1] as UdpPeer).waitFor(3);
        await settle(100);
        expect(fills(peers[1] as UdpPeer)).to.deep.equal([1, 2, 4]);
      });
    }

    it("a bandwidth backlog outlives a NIO added on another port: the 40th frame of 1,000 bytes at 400 kbit/s leaves at 800 ms, none dropped", async () => {
      await attach(0);
      await attach(1, { filters: { bandwidth: [400, 10_000] } });
      const started = performance.now();
      for (let i = 0; i < 20; i++) await send(i, 986);
      await attach(2);
      for (let i = 20; i < 40; i++) await send(i, 986);
      const got = await (peers[1] as UdpPeer).waitFor(40, 5000);
      const lastAfter = ((peers[1] as UdpPeer).receivedAtMs[39] as number) - started;
      expect(got).to.have.length(40);
      // 40 × 20 ms; a transmitter that forgot its backlog lets the last one out near 500 ms.
      expect(lastAfter).to.be.within(790, 1200);
      expect(await egressDrops(1)).to.deep.equal({});
    });

    it("the burst-loss state outlives a rename: a link gone bad loses the next frame", async () => {
      // p 100 %: the first frame finds the link good and turns it bad; a bad link loses every frame.
      await attach(0);
      await attach(1, { filters: { burst_loss: [100, 1] } });
      await send(1);
      await (peers[1] as UdpPeer).waitFor(1);
      await s.request("PUT", base, { name: "SW1-renamed" });
      await send(2);
      await settle(200);
      expect(fills(peers[1] as UdpPeer)).to.deep.equal([1]);
      expect(await egressDrops(1)).to.deep.equal({ burst_loss: 1 });
    });

    it("a frame held by a 300 ms delay leaves at its time through a rename and a NIO added", async () => {
      await attach(0);
      await attach(1, { filters: { delay: [300] } });
      const started = performance.now();
      await send(1);
      await settle(50);
      await s.request("PUT", base, { name: "SW1-renamed" });
      await attach(2);
      await (peers[1] as UdpPeer).waitFor(1, 2000);
      expect(((peers[1] as UdpPeer).receivedAtMs[0] as number) - started).to.be.within(295, 700);
    });

    it("a filter changed in the other direction leaves this direction's count alone", async () => {
      await attach(0);
      await attach(1, { filters_out: { frequency_drop: [3] } });
      await send(1);
      await send(2);
      await (peers[1] as UdpPeer).waitFor(2);
      await setFilters(1, { filters_in: { delay: [5] } });
      await send(3);
      await send(4);
      await (peers[1] as UdpPeer).waitFor(3);
      await settle(100);
      expect(fills(peers[1] as UdpPeer)).to.deep.equal([1, 2, 4]);
    });
  });
}
