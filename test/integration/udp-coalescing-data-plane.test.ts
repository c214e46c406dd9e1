import { expect } from "chai";
import { loadUdpBatchAddon } from "../../src/adapters/transport/batched-udp-transport.js";
import { startTestServer, type TestServer } from "../support/http-harness.js";
import { wireUdpNio } from "../support/http-nios.js";
import { sendPaced } from "../support/paced-udp-sender.js";
import { UdpPeer, ethernetFrame, freeUdpPort } from "../support/udp-peer.js";

const PROJECT = "0c0a1e5c-3333-4444-8555-777777777777";
const A = "00:50:79:66:68:0a";
const BROADCAST = "ff:ff:ff:ff:ff:ff";
const FRAMES = 3000;

/**
 * NETEMU_UDP_COALESCE_US (ADR 0110) as a switch's NIOs live with it, on the main thread and in data-plane
 * workers (each thread sets its own from the environment it started with), on whichever datagram path
 * this run uses: the batched path coalesces, node:dgram has nothing to coalesce and goes on as before.
 */
for (const workers of [0, 2]) {
  describe(`receive coalescing at 300 µs through a switch ${workers === 0 ? "on the main thread" : "in data-plane workers"} (ADR 0110)`, function () {
    this.timeout(30_000);
    let s: TestServer;
    const opened: UdpPeer[] = [];
    const batched = process.env["NETEMU_UDP_PATH"] !== "dgram";

    beforeEach(async () => {
      // Read by each thread as it chooses its datagram path: the main thread now, workers as they start.
      process.env["NETEMU_UDP_COALESCE_US"] = "300";
      s = await startTestServer({ dataPlaneWorkers: workers });
      await s.request("POST", "/v2/compute/projects", { name: "coalescing", project_id: PROJECT });
    });
    afterEach(async () => {
      await s.close();
      await Promise.all(opened.splice(0).map((p) => p.close()));
      delete process.env["NETEMU_UDP_COALESCE_US"];
      // This thread is shared with the tests that follow.
      if (batched) loadUdpBatchAddon().setCoalescing(0);
    });

    it(`carries ${FRAMES} frames 50 µs apart once each and in order, and says the interval it runs with`, async () => {
      expect(s.netemu.datagramPath).to.deep.equal(batched ? { kind: "batched", coalescingMicroseconds: 300 } : { kind: "dgram", reason: "NETEMU_UDP_PATH=dgram" });
      const sw = (await s.request("POST", `/v2/compute/projects/${PROJECT}/ethernet_switch/nodes`, { name: "SW1" })).json;
      const base = `/v2/compute/projects/${PROJECT}/ethernet_switch/nodes/${sw.node_id}`;
      const generator = await freeUdpPort();
      const lport = (await s.request("POST", `/v2/compute/projects/${PROJECT}/ports/udp`)).json.udp_port as number;
      const nio = await s.request("POST", `${base}/adapters/0/ports/0/nio`, { type: "nio_udp", lport, rhost: "127.0.0.1", rport: generator });
      expect(nio.status, nio.text).to.equal(201);
      const { peer } = await wireUdpNio(s, PROJECT, base, 1, opened);
      const frames = Array.from({ length: FRAMES }, (_, i) => {
        const f = ethernetFrame(BROADCAST, A, { payload: 46 });
        f.writeUInt32BE(i, 14);
        return f;
      });
      const ticksBefore = batched ? loadUdpBatchAddon().coalescing().ticks : 0;
      await sendPaced({ fromPort: generator, toPort: lport, frames, gapMicros: 50 });
      const got = await peer.waitFor(FRAMES, 5000);
      await peer.settle(50);
      expect(got.map((f) => f.readUInt32BE(14))).to.deep.equal(frames.map((_, i) => i));
      if (batched && workers === 0) expect(loadUdpBatchAddon().coalescing().ticks - ticksBefore, "the main thread's coalescing timer drained the NIO").to.be.at.least(50);
    });
  });
}
