import { expect } from "chai";
import { startTestServer, type TestServer } from "../support/http-harness.js";
import { wireUdpNio } from "../support/http-nios.js";
import type { UdpPeer } from "../support/udp-peer.js";
import { parseExposition } from "../support/prometheus-text.js";
import { flowFrame } from "../support/ip-frames.js";
import { ECN_CE, ecnOf, ipv4HeaderChecksum } from "../../src/domain/queueing/ip-headers.js";

/**
 * The bandwidth stage's queue disciplines on live ports (ADR 0100): frames wait in a CoDel or FQ-CoDel
 * queue and leave at the rate; what CoDel drops and marks shows in ports_statistics and the metrics.
 * On the main thread and in a worker thread, through the compute API, on real sockets on 127.0.0.1.
 * Assertions are on order and counts, not on times (the machine is shared).
 */
const PROJECT = "77777777-3333-4444-8555-aaaaaaaaaaaa";

interface QueueAnswer {
  discipline: string;
  backlog_frames: number;
  codel_drops: number;
  overlimit_drops: number;
  ecn_marks: number;
  sent_frames: number;
  sojourn_mean_ms: number;
  sojourn_max_ms: number;
}
interface PortAnswer {
  port_number: number;
  frames_out: number;
  drops: Record<string, number>;
  queues?: { in?: QueueAnswer; out?: QueueAnswer };
  queue_delay?: { in: { sum_ms: number; frames: number; max_ms: number }; out: { sum_ms: number; frames: number; max_ms: number } };
}

const bulk = (i: number, ecn = 0) => flowFrame({ sport: 40000, dport: 5201, length: 1000, ecn, id: i });
/** A ping: another flow (ICMP), small. */
const ping = () => flowFrame({ protocol: 1, sport: 0, dport: 0, length: 98, id: 0xffff });
const idOf = (f: Uint8Array) => ((f[18] as number) << 8) | (f[19] as number);

for (const [plane, workers] of [["data plane on the main thread", 0], ["data plane in a worker thread", 1]] as const) {
  describe(`bandwidth queue disciplines on live ports (${plane}, real sockets)`, function () {
    this.timeout(30_000);
    let s: TestServer;
    let base: string;
    const peers: UdpPeer[] = [];

    beforeEach(async () => {
      s = await startTestServer({ dataPlaneWorkers: workers });
      await s.request("POST", "/v2/compute/projects", { name: "queues", project_id: PROJECT });
      const sw = (await s.request("POST", `/v2/compute/projects/${PROJECT}/ethernet_switch/nodes`, { name: "SW1" })).json;
      base = `/v2/compute/projects/${PROJECT}/ethernet_switch/nodes/${sw.node_id}`;
    });
    afterEach(async () => {
      await s.close();
      await Promise.all(peers.splice(0).map((p) => p.close()));
    });

    const wire = async (port: number, filters?: Record<string, unknown>) => {
      const wired = await wireUdpNio(s, PROJECT, base, port, peers, filters);
      // Room for 400 frames at once: a late timer sends the frames whose turn passed together, and a
      // peer in this same process may not read them at once (the data plane may be on this thread).
      wired.peer.socket.setRecvBufferSize(4 << 20);
      return wired;
    };
    const portAnswer = async (port: number): Promise<PortAnswer> => ((await s.request("GET", base)).json.ports_statistics as PortAnswer[]).find((p) => p.port_number === port) as PortAnswer;
    /** Polls the port's statistics until its queue of `direction` has sent or dropped `frames`. */
    const drained = async (port: number, direction: "in" | "out", frames: number): Promise<PortAnswer> => {
      const deadline = Date.now() + 15_000;
      for (;;) {
        const p = await portAnswer(port);
        const q = p.queues?.[direction];
        if ((q !== undefined && q.backlog_frames === 0 && q.sent_frames + q.codel_drops + q.overlimit_drops >= frames) || Date.now() > deadline) return p;
        await new Promise((resolve) => setTimeout(resolve, 50));
      }
    };

    it("fq_codel sends a sparse flow's frame ahead of a bulk flow's backlog, where tail drop sends it last", async () => {
      for (const [discipline, filters] of [
        ["fq_codel", { bandwidth: [400], queue_discipline: ["fq_codel"] }],
        ["tail_drop", { bandwidth: [400, 5000] }],
      ] as const) {
        const p0 = await wire(0);
        const p1 = await wire(1, filters);
        // 100 frames of 1,000 B at 400 kbit/s: 2 s of backlog; then the ping.
        for (let i = 0; i < 100; i++) await p0.peer.send(bulk(i), p0.lport);
        await p0.peer.send(ping(), p0.lport);
        await p1.peer.waitFor(1, 5000);
        const deadline = Date.now() + 5000;
        while (!p1.peer.received.some((f) => idOf(f) === 0xffff) && Date.now() < deadline) await new Promise((resolve) => setTimeout(resolve, 20));
        const at = p1.peer.received.findIndex((f) => idOf(f) === 0xffff);
        // Sent after the 100 bulk frames (which may take a while to reach the queue on a loaded machine,
        // the queue draining 20 ms a frame meanwhile): under fq_codel it leaves next as a new flow, well
        // ahead of the backlog; the bound leaves 1.5 s for the bulk frames to come in.
        if (discipline === "fq_codel") expect(at, "the ping's place among the frames received").to.be.within(0, 75);
        else {
          await p1.peer.waitFor(101, 10_000);
          expect(p1.peer.received.findIndex((f) => idOf(f) === 0xffff)).to.equal(100);
        }
        await s.request("DELETE", `${base}/adapters/0/ports/0/nio`);
        await s.request("DELETE", `${base}/adapters/0/ports/1/nio`);
      }
    });

    it("codel drops from a standing queue at dequeue, and ports_statistics and the metrics say how many and how long frames waited", async () => {
      const p0 = await wire(0);
      const p1 = await wire(1, { bandwidth: [8000], queue_discipline: ["codel"] });
      // 400 frames of 1,000 B at 8 Mbit/s: 1 ms each, sent far faster: a queue of a few hundred ms.
      for (let i = 0; i < 400; i++) await p0.peer.send(bulk(i), p0.lport);
      const port = await drained(1, "out", 400);
      const q = port.queues?.out as QueueAnswer;
      expect(q.discipline).to.equal("codel");
      expect(q.codel_drops).to.be.greaterThan(0);
      expect(port.drops["codel"]).to.equal(q.codel_drops);
      expect(q.sent_frames + q.codel_drops).to.equal(400);
      expect(q.ecn_marks).to.equal(0);
      expect(q.sojourn_max_ms).to.be.greaterThan(5);
      // The port's measured queue delay (ADR 0097) counts what the discipline queued, as the page shows it.
      expect(port.queue_delay?.out.frames).to.equal(q.sent_frames);
      expect(port.queue_delay?.out.sum_ms).to.be.closeTo(q.sojourn_mean_ms * q.sent_frames, 1e-6 * q.sent_frames + 1e-6);
      await p1.peer.waitFor(q.sent_frames, 10_000);
      // Each flow's frames stay in order.
      const ids = p1.peer.received.map(idOf);
      expect(ids).to.deep.equal([...ids].sort((a, b) => a - b));

      const m = parseExposition((await s.request("GET", "/metrics")).text);
      const labels = { project_id: PROJECT, port_number: "1" };
      expect(m.value("netemu_port_dropped_frames_total", { ...labels, reason: "codel" })).to.equal(q.codel_drops);
      expect(m.value("netemu_port_queue_sent_frames_total", { ...labels, direction: "out", discipline: "codel" })).to.equal(q.sent_frames);
      expect(m.value("netemu_port_queue_sojourn_max_seconds", { ...labels, direction: "out", discipline: "codel" })).to.be.closeTo(q.sojourn_max_ms / 1000, 1e-9);
      expect(m.value("netemu_port_queue_backlog_frames", { ...labels, direction: "out", discipline: "codel" })).to.equal(0);
    });

    it("fq_codel on the way in marks ECN-capable frames CE instead of dropping them, each with a right IPv4 checksum", async () => {
      const p0 = await wire(0, {});
      const put = await s.request("PUT", `${base}/adapters/0/ports/0/nio`, { type: "nio_udp", lport: p0.lport, rhost: "127.0.0.1", rport: p0.peer.port, filters_in: { bandwidth: [8000], queue_discipline: ["fq_codel"] } });
      expect(put.status, put.text).to.equal(201);
      const p1 = await wire(1);
      for (let i = 0; i < 400; i++) await p0.peer.send(bulk(i, 2), p0.lport);
      await p1.peer.waitFor(400, 10_000);
      const port = await drained(0, "in", 400);
      const q = port.queues?.in as QueueAnswer;
      expect(q.discipline).to.equal("fq_codel");
      expect(q.codel_drops).to.equal(0);
      expect(port.drops["codel"]).to.equal(undefined);
      const marked = p1.peer.received.filter((f) => ecnOf(f) === ECN_CE);
      expect(marked.length).to.be.greaterThan(0);
      expect(q.ecn_marks).to.equal(marked.length);
      for (const f of marked) expect(((f[24] as number) << 8) | (f[25] as number)).to.equal(ipv4HeaderChecksum(f, 14));

      const m = parseExposition((await s.request("GET", "/metrics")).text);
      expect(m.value("netemu_port_queue_ecn_marks_total", { project_id: PROJECT, port_number: "0", direction: "in", discipline: "fq_codel" })).to.equal(marked.length);
    });

    it("refuses a queue discipline that does not read, saying what is wrong", async () => {
      const p1 = await wire(1, { bandwidth: [8000], queue_discipline: ["codel"] });
      const bad = await s.request("PUT", `${base}/adapters/0/ports/1/nio`, { type: "nio_udp", lport: p1.lport, rhost: "127.0.0.1", rport: p1.peer.port, filters: { bandwidth: [8000], queue_discipline: ["codel target 5"] } });
      expect(bad.status).to.equal(400);
      expect(bad.json.message).to.equal('Filter queue_discipline: target must be a time with its unit (500us, 5ms, 0.1s), got "5"');
    });
  });
}
