import { expect } from "chai";
import { setTimeout as sleep } from "node:timers/promises";
import { startTestServer, type TestServer } from "../support/http-harness.js";
import { UdpPeer, ethernetFrame } from "../support/udp-peer.js";

const PROJECT = "67676767-3333-4444-8555-777777777779";
const SWITCH = "67676767-aaaa-4bbb-8ccc-000000000009";
const A = "00:50:79:66:68:01";
const BROADCAST = "ff:ff:ff:ff:ff:ff";
const PATH = "/v2/netemu/impairments";
/** Where in a frame the test writes its sequence number (inside the payload). */
const SEQ_AT = 20;
/**
 * How far from a step's boundary a frame must be sent to be judged: timers on a shared, busy machine
 * fire late by tens of milliseconds (the alarm is a setTimeout, the sync an HTTP-free call, a worker a
 * message away); 200 ms is several times what was seen, and leaves 600 ms of each second judged.
 */
const EDGE_MS = 200;

/**
 * A schedule really moves frames (ADR 0102): a flap "down 1 s every 2 s" stops and resumes a direction
 * at the scheduled times, and a change of step keeps a frame a delay holds (ADR 0055), on the main
 * thread and in a worker, on the datagram path the process runs (NETEMU_UDP_PATH).
 */
for (const workers of [0, 1]) {
  describe(`schedules moving real frames (${workers === 0 ? "data plane on the main thread" : "data plane in a worker thread"})`, function () {
    this.timeout(30_000);
    let s: TestServer;
    let peers: UdpPeer[] = [];
    const base = `/v2/compute/projects/${PROJECT}/ethernet_switch/nodes/${SWITCH}`;
    const link = async (port: number): Promise<number> => {
      const lport = (await s.request("POST", `/v2/compute/projects/${PROJECT}/ports/udp`)).json.udp_port as number;
      const r = await s.request("POST", `${base}/adapters/0/ports/${port}/nio`, { type: "nio_udp", lport, rhost: "127.0.0.1", rport: peers[port]!.port });
      expect(r.status, r.text).to.equal(201);
      return lport;
    };
    const frame = (seq: number): Buffer => {
      const f = ethernetFrame(BROADCAST, A, { payload: 46 });
      f.writeUInt32BE(seq, SEQ_AT);
      return f;
    };
    /** When each sequence number arrived at port 1's peer (performance.now()). */
    const arrivals = (): Map<number, number> => new Map(peers[1]!.received.map((f, i) => [f.readUInt32BE(SEQ_AT), peers[1]!.receivedAtMs[i]!]));
    /** Sets a schedule on Ethernet1's out direction; answers the time (performance.now()) it started. */
    const schedule = async (scheduleOut: unknown): Promise<number> => {
      const r = await s.request("PUT", PATH, { project: "lab", node: "Switch1", port: "Ethernet1", schedule_out: scheduleOut });
      expect(r.status, r.text).to.equal(200);
      // started_at is the wall-clock time the use case read: placed on this process's monotonic clock.
      return Date.parse(r.json.schedule_out_now.started_at) - (Date.now() - performance.now());
    };

    beforeEach(async () => {
      s = await startTestServer({ dataPlaneWorkers: workers });
      peers = [await UdpPeer.open(), await UdpPeer.open()];
      expect((await s.request("POST", "/v2/compute/projects", { name: "lab", project_id: PROJECT })).status).to.equal(201);
      expect((await s.request("POST", `/v2/compute/projects/${PROJECT}/ethernet_switch/nodes`, { name: "Switch1", node_id: SWITCH })).status).to.equal(201);
    });
    afterEach(async () => {
      await s.close();
      await Promise.all(peers.map((p) => p.close()));
    });

    it("stops the frames inside each 'down 1 s every 2 s' window and lets those between through", async () => {
      const lports = [await link(0), await link(1)];
      const t0 = await schedule({ period: 2, windows: [{ at: 0, for: 1, filters: { frequency_drop: [-1] } }] });
      const sentAt = new Map<number, number>();
      for (let seq = 0; performance.now() - t0 < 4_000; seq++) {
        sentAt.set(seq, performance.now());
        await peers[0]!.send(frame(seq), lports[0]!);
        await sleep(40);
      }
      await sleep(300);
      const got = arrivals();
      const down: number[] = [];
      const up: number[] = [];
      for (const [seq, at] of sentAt) {
        const phase = (at - t0) % 2_000;
        if (phase >= EDGE_MS && phase <= 1_000 - EDGE_MS) down.push(seq);
        if (phase >= 1_000 + EDGE_MS && phase <= 2_000 - EDGE_MS) up.push(seq);
      }
      expect(down.length, "frames sent well inside the windows").to.be.greaterThan(15);
      expect(up.length, "frames sent well between them").to.be.greaterThan(15);
      expect(down.filter((seq) => got.has(seq)), "frames that passed while down").to.deep.equal([]);
      expect(up.filter((seq) => !got.has(seq)), "frames lost while up").to.deep.equal([]);
    });

    it("keeps a frame a delay step holds when the next step takes the delay off, and lets the next frames straight through", async () => {
      const lports = [await link(0), await link(1)];
      const t0 = await schedule({ steps: [{ at: 0, filters: { delay: [800] } }, { at: 1, filters: {} }] });
      await sleep(Math.max(0, t0 + 500 - performance.now()));
      const heldSentAt = performance.now();
      await peers[0]!.send(frame(1), lports[0]!);
      await sleep(Math.max(0, t0 + 1_500 - performance.now()));
      const laterSentAt = performance.now();
      await peers[0]!.send(frame(2), lports[0]!);
      await peers[1]!.waitFor(2, 3_000);
      const got = arrivals();
      expect(got.get(1)! - heldSentAt, "the held frame left after its 800 ms, though the step changed meanwhile").to.be.within(750, 1_500);
      expect(got.get(2)! - laterSentAt, "a frame after the change is not delayed").to.be.below(300);
    });
  });
}
