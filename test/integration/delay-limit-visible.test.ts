import { expect } from "chai";
import { startTestServer, type TestServer } from "../support/http-harness.js";
import { wireUdpNio } from "../support/http-nios.js";
import { UdpPeer, ethernetFrame } from "../support/udp-peer.js";
import { parseExposition } from "../support/prometheus-text.js";

const PROJECT = "77777777-3333-4444-8555-000000000072";
const A = "00:50:79:66:68:01";
const BROADCAST = "ff:ff:ff:ff:ff:ff";

/**
 * A delay's bound reached is for the user and the operator to see (ADR 0072): the drops it makes are
 * `delay_limit` in the node's `ports_statistics` and in `netemu_port_dropped_frames_total`, on the
 * main thread and in a worker, through the HTTP API with real sockets.
 */
for (const [plane, workers] of [["the main-thread data plane", 0], ["a worker data plane", 1]] as const) {
  describe(`frames past a delay's bound, as the API and /metrics show them (${plane})`, function () {
    this.timeout(20_000);
    let s: TestServer;
    const peers: UdpPeer[] = [];

    beforeEach(async () => {
      s = await startTestServer({ dataPlaneWorkers: workers, dataPlane: { heldFramesPerPort: 5 } });
    });
    afterEach(async () => {
      await s.close();
      await Promise.all(peers.splice(0).map((p) => p.close()));
    });

    const wire = (base: string, port: number, filters?: Record<string, unknown>) => wireUdpNio(s, PROJECT, base, port, peers, filters);

    it("counts the frames a port's delay had no room for as delay_limit, in ports_statistics and in /metrics", async () => {
      await s.request("POST", "/v2/compute/projects", { name: "bounds", project_id: PROJECT });
      const sw = (await s.request("POST", `/v2/compute/projects/${PROJECT}/ethernet_switch/nodes`, { name: "SW1" })).json;
      const base = `/v2/compute/projects/${PROJECT}/ethernet_switch/nodes/${sw.node_id}`;
      const p0 = await wire(base, 0);
      await wire(base, 1, { delay: [10_000] });
      const frame = ethernetFrame(BROADCAST, A, { payload: 100 });
      for (let i = 0; i < 12; i++) await p0.peer.send(frame, p0.lport);
      let drops: Record<string, number> | undefined;
      const deadline = Date.now() + 5000;
      while (Date.now() < deadline) {
        const stats = (await s.request("GET", base)).json.ports_statistics as { port_number: number; drops: Record<string, number> }[] | undefined;
        drops = stats?.find((p) => p.port_number === 1)?.drops;
        if (drops?.["delay_limit"] === 7) break;
        await new Promise((r) => setTimeout(r, 20));
      }
      expect(drops).to.deep.equal({ delay_limit: 7 });
      const m = parseExposition((await s.request("GET", "/metrics")).text);
      const series = m.samples.filter((x) => x.name === "netemu_port_dropped_frames_total" && x.labels["reason"] === "delay_limit");
      expect(series.map((x) => [x.labels["port_number"], x.value])).to.deep.equal([["1", 7]]);
    });
  });
}
