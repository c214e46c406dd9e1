import { expect } from "chai";
import { startTestServer, type TestServer } from "../support/http-harness.js";
import { wireUdpNio } from "../support/http-nios.js";
import { UdpPeer, ethernetFrame } from "../support/udp-peer.js";
import { parseExposition, type Exposition } from "../support/prometheus-text.js";

const PROJECT = "77777777-3333-4444-8555-999999999999";
const A = "00:50:79:66:68:01";
const B = "00:50:79:66:68:02";
const BROADCAST = "ff:ff:ff:ff:ff:ff";
/** A port without bandwidth: nothing went through a queue either way. */
const NO_QUEUE = { in: { sum_ms: 0, frames: 0, max_ms: 0 }, out: { sum_ms: 0, frames: 0, max_ms: 0 } };

/** Polls the scrape until `ready` holds: a worker data plane counts a frame a moment after it left. */
async function scrapeUntil(s: TestServer, ready: (m: Exposition) => boolean, ms = 3000): Promise<Exposition> {
  const deadline = Date.now() + ms;
  for (;;) {
    const r = await s.request("GET", "/metrics");
    expect(r.status, r.text).to.equal(200);
    const m = parseExposition(r.text);
    if (ready(m) || Date.now() > deadline) return m;
    await new Promise((resolve) => setTimeout(resolve, 20));
  }
}

for (const [plane, workers] of [["the main-thread data plane", 0], ["a worker data plane", 1]] as const) {
  describe(`metrics of live traffic (${plane}, real sockets on 127.0.0.1)`, function () {
    this.timeout(20_000);
    let s: TestServer;
    const peers: UdpPeer[] = [];

    beforeEach(async () => {
      s = await startTestServer({ dataPlaneWorkers: workers });
    });
    afterEach(async () => {
      await s.close();
      await Promise.all(peers.splice(0).map((p) => p.close()));
    });

    const wire = (base: string, projectId: string, port: number) => wireUdpNio(s, projectId, base, port, peers);

    it("gives each port's frames and bytes in and out, its drops by reason and the switch's MAC table size", async () => {
      await s.request("POST", "/v2/compute/projects", { name: "metrics", project_id: PROJECT });
      const sw = (await s.request("POST", `/v2/compute/projects/${PROJECT}/ethernet_switch/nodes`, { name: "SW1" })).json;
      const base = `/v2/compute/projects/${PROJECT}/ethernet_switch/nodes/${sw.node_id}`;
      const p0 = await wire(base, PROJECT, 0);
      const p1 = await wire(base, PROJECT, 1);

      const frame = ethernetFrame(BROADCAST, A, { payload: 46 });
      for (let i = 0; i < 3; i++) await p0.peer.send(frame, p0.lport);
      await p1.peer.waitFor(3);
      await p0.peer.send(Buffer.alloc(10, 1), p0.lport); // a runt
      const put = await s.request("PUT", `${base}/adapters/0/ports/1/nio`, { type: "nio_udp", lport: p1.lport, rhost: "127.0.0.1", rport: p1.peer.port, filters: { frequency_drop: [-1] } });
      expect(put.status, put.text).to.equal(201);
      for (let i = 0; i < 2; i++) await p0.peer.send(frame, p0.lport);
      await p1.peer.send(ethernetFrame(A, B, { payload: 100 }), p1.lport);

      const port = (n: number) => ({ project_id: PROJECT, node_id: sw.node_id, node_name: "SW1", port_number: String(n) });
      const m = await scrapeUntil(s, (x) => x.all("netemu_port_receive_frames_total", port(0))[0]?.value === 6 && x.all("netemu_port_dropped_frames_total", port(1)).length === 1);
      expect(m.value("netemu_port_receive_frames_total", port(0))).to.equal(6);
      expect(m.value("netemu_port_receive_bytes_total", port(0))).to.equal(5 * frame.length + 10);
      expect(m.value("netemu_port_transmit_frames_total", port(1))).to.equal(3);
      expect(m.value("netemu_port_transmit_bytes_total", port(1))).to.equal(3 * frame.length);
      expect(m.value("netemu_port_dropped_frames_total", { ...port(0), reason: "runt" })).to.equal(1);
      // The drop-all filter drops both ways: the two floods towards port 1 and the frame from its peer.
      expect(m.value("netemu_port_dropped_frames_total", { ...port(1), reason: "frequency_drop" })).to.equal(3);
      expect(m.value("netemu_port_receive_frames_total", port(1))).to.equal(1);
      expect(m.value("netemu_port_transmit_frames_total", port(0))).to.equal(0);
      expect(m.value("netemu_mac_table_entries", { node_id: sw.node_id })).to.equal(1);
      expect(m.value("netemu_nios", { type: "nio_udp" })).to.equal(2);
      expect(m.all("netemu_port_receive_frames_total", { node_id: sw.node_id }).map((x) => x.labels.port_number).sort(), "only ports with a NIO").to.deep.equal(["0", "1"]);
    });

    it("gives the time frames waited in a shaped port's queue, summed and counted each way, and its recent maximum (ADR 0097)", async () => {
      await s.request("POST", "/v2/compute/projects", { name: "metrics", project_id: PROJECT });
      const sw = (await s.request("POST", `/v2/compute/projects/${PROJECT}/ethernet_switch/nodes`, { name: "SW1" })).json;
      const base = `/v2/compute/projects/${PROJECT}/ethernet_switch/nodes/${sw.node_id}`;
      const p0 = await wire(base, PROJECT, 0);
      const p1 = await wire(base, PROJECT, 1);
      // Port 1 sends at 100 kbit/s: 1,000-byte frames take 80 ms each, so the fifth waits ~320 ms for the four before it.
      const put = await s.request("PUT", `${base}/adapters/0/ports/1/nio`, { type: "nio_udp", lport: p1.lport, rhost: "127.0.0.1", rport: p1.peer.port, filters: {}, filters_out: { bandwidth: [100, 1000] } });
      expect(put.status, put.text).to.equal(201);
      for (let i = 0; i < 5; i++) await p0.peer.send(ethernetFrame(BROADCAST, A, { payload: 986 }), p0.lport);
      const port = (n: number) => ({ project_id: PROJECT, node_id: sw.node_id, node_name: "SW1", port_number: String(n) });
      const out = { ...port(1), direction: "out" };
      const m = await scrapeUntil(s, (x) => x.all("netemu_port_queued_frames_total", out)[0]?.value === 5);
      expect(m.value("netemu_port_queued_frames_total", out)).to.equal(5);
      // Sends and reads take some of the waits away: 0 + 80 + ... + 320 ms = 0.8 s at most.
      expect(m.value("netemu_port_queue_delay_seconds_total", out)).to.be.within(0.4, 0.81);
      expect(m.value("netemu_port_queue_delay_max_seconds", out)).to.be.within(0.2, 0.33);
      // Only a direction that has a queue has series.
      expect(m.all("netemu_port_queued_frames_total", { node_id: sw.node_id }).map((x) => `${x.labels.port_number} ${x.labels.direction}`)).to.deep.equal(["1 out"]);
    });

    it(workers === 0 ? "measures no data-plane thread of its own: the process's event-loop delay is the main thread's" : "gives each data-plane worker's event-loop delay while it carries frames", async () => {
      await s.request("POST", "/v2/compute/projects", { name: "metrics", project_id: PROJECT });
      const sw = (await s.request("POST", `/v2/compute/projects/${PROJECT}/ethernet_switch/nodes`, { name: "SW1" })).json;
      const base = `/v2/compute/projects/${PROJECT}/ethernet_switch/nodes/${sw.node_id}`;
      const p0 = await wire(base, PROJECT, 0);
      await wire(base, PROJECT, 1);
      // A worker samples its delay from a load reading (every second) that saw frames move (ADR 0113).
      const traffic = setInterval(() => void p0.peer.send(ethernetFrame(BROADCAST, A, { payload: 46 }), p0.lport), 5);
      try {
        const measured = (x: Exposition) => workers === 0 || x.all("netemu_dataplane_eventloop_lag_p99_seconds").some((y) => Number.isFinite(y.value));
        const m = await scrapeUntil(s, measured, 5000);
        const p99 = m.all("netemu_dataplane_eventloop_lag_p99_seconds");
        expect(p99.map((x) => x.labels.worker)).to.deep.equal(workers === 0 ? [] : ["0"]);
        for (const x of p99) expect(x.value).to.be.above(0).and.below(1);
        for (const x of m.all("netemu_dataplane_eventloop_lag_max_seconds")) expect(x.value).to.be.at.least(p99[0]!.value);
        expect(m.value("nodejs_eventloop_lag_p99_seconds")).to.be.above(0);
      } finally {
        clearInterval(traffic);
      }
    });

    if (workers > 0) {
      it("reads no event-loop delay (NaN) from a worker that carries no frame: it takes no sampling wake-ups", async () => {
        await s.request("POST", "/v2/compute/projects", { name: "metrics", project_id: PROJECT });
        const sw = (await s.request("POST", `/v2/compute/projects/${PROJECT}/ethernet_switch/nodes`, { name: "SW1" })).json;
        await wire(`/v2/compute/projects/${PROJECT}/ethernet_switch/nodes/${sw.node_id}`, PROJECT, 0);
        // Two load readings with nothing moving, and the reading since the last scrape.
        await s.request("GET", "/metrics");
        await new Promise((resolve) => setTimeout(resolve, 2200));
        const m = parseExposition((await s.request("GET", "/metrics")).text);
        for (const stat of ["min", "mean", "p50", "p90", "p99", "max"]) expect(m.value(`netemu_dataplane_eventloop_lag_${stat}_seconds`, { worker: "0" }), stat).to.be.NaN;
      });
    }

    it("gives the same counters on the controller's node and link answers, which clients may PUT back as they read them", async () => {
      const projectId = (await s.request("POST", "/v2/projects", { name: "lab" })).json.project_id as string;
      const node = async (name: string) => (await s.request("POST", `/v2/projects/${projectId}/nodes`, { name, node_type: "ethernet_switch", compute_id: "local" })).json.node_id as string;
      const [sw1, sw2] = [await node("SW1"), await node("SW2")];
      const link = (await s.request("POST", `/v2/projects/${projectId}/links`, {
        nodes: [
          { node_id: sw1, adapter_number: 0, port_number: 0 },
          { node_id: sw2, adapter_number: 0, port_number: 0 },
        ],
      })).json;
      // A host on SW1's port 1 broadcasts: SW1 floods it over the link, SW2 has nowhere else to send it.
      const host = await wire(`/v2/compute/projects/${projectId}/ethernet_switch/nodes/${sw1}`, projectId, 1);
      const frame = ethernetFrame(BROADCAST, A, { payload: 46 });
      await host.peer.send(frame, host.lport);
      await scrapeUntil(s, (x) => x.all("netemu_port_dropped_frames_total", { node_id: sw2, reason: "no_route" }).length === 1);

      const nodeUrl = `/v2/projects/${projectId}/nodes/${sw1}`;
      const got = (await s.request("GET", nodeUrl)).json;
      const counters = (framesIn: number, framesOut: number, drops: Record<string, number> = {}) => ({ frames_in: framesIn, bytes_in: framesIn * frame.length, frames_out: framesOut, bytes_out: framesOut * frame.length, drops, queue_delay: NO_QUEUE });
      expect(got.ports_statistics).to.deep.equal([
        { port_number: 0, ...counters(0, 1) },
        { port_number: 1, ...counters(1, 0) },
      ]);
      const listed = (await s.request("GET", `/v2/projects/${projectId}/nodes`)).json.find((n: { node_id: string }) => n.node_id === sw1);
      const { ports_statistics: _node, ...gns3Node } = got;
      expect(gns3Node, "GNS3's fields and values are unchanged").to.deep.equal(listed);

      const linkUrl = `/v2/projects/${projectId}/links/${link.link_id}`;
      const gotLink = (await s.request("GET", linkUrl)).json;
      expect(gotLink.ports_statistics).to.deep.equal([
        { node_id: sw1, adapter_number: 0, port_number: 0, ...counters(0, 1) },
        { node_id: sw2, adapter_number: 0, port_number: 0, ...counters(1, 0, { no_route: 1 }) },
      ]);
      const { ports_statistics: _link, ...gns3Link } = gotLink;
      expect(gns3Link, "GNS3's fields and values are unchanged").to.deep.equal(link);

      // The web UI PUTs the whole link it read; a script may do the same with a node.
      const putLink = await s.request("PUT", linkUrl, gotLink);
      expect(putLink.status, putLink.text).to.equal(201);
      expect(putLink.json.ports_statistics, "PUT answers as GNS3 does, without counters").to.equal(undefined);
      const putNode = await s.request("PUT", nodeUrl, got);
      expect(putNode.status, putNode.text).to.equal(200);
      expect(putNode.json.name).to.equal("SW1");
    });
  });
}
