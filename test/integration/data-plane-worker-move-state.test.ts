import { expect } from "chai";
import * as E from "fp-ts/lib/Either.js";
import { mkdtemp, rm } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { WorkerDataPlane, workerIndexOf } from "../../src/adapters/threads/data-plane/worker-data-plane.js";
import { attachNio, type ComputeNode } from "../../src/domain/switching/compute-node.js";
import { createEthernetSwitch } from "../../src/domain/switching/ethernet-switch.js";
import { defaultPortsMapping } from "../../src/domain/switching/port.js";
import type { FilterSettings } from "../../src/domain/filters/filter-settings.js";
import type { TraceBook } from "../../src/application/ports/trace-store.js";
import { type Trace, parseTrace } from "../../src/domain/traces/trace.js";
import { RecordingLogger } from "../support/in-memory-data-plane.js";
import { twoDataPlaneWorkers } from "../support/two-data-plane-workers.js";
import { UdpPeer, ethernetFrame, freeUdpPort } from "../support/udp-peer.js";

const PROJECT = "77777777-3333-4444-8555-77777777777a";
const NODE = "aaaaaaaa-0000-4000-8000-0000000000d1";
const HOME = workerIndexOf(NODE, 2);
const OTHER = 1 - HOME;
const A = "00:50:79:66:68:0a";
const B = "00:50:79:66:68:0b";
const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

const traceOf = (text: string): Trace => {
  const read = parseTrace(text);
  if (!read.ok) throw new Error(read.problem.problem);
  return read.trace;
};
/** Traces of a 10 s loop (ADR 0103): an opportunity every 10 ms; a delay of 1 ms, then 2 ms from 5 s. */
const TRACES = new Map<string, Trace>([
  ["every-10ms-for-10s", traceOf(Array.from({ length: 1000 }, (_, i) => `${10 * (i + 1)}\n`).join(""))],
  ["delay-10s", traceOf("0 1\n5000 2\n10000\n")],
]);
const BOOK: TraceBook = { traceNamed: (name) => TRACES.get(name) };

/** What a node takes with it to another worker: its state crosses the threads' structuredClone boundary (ADR 0069). */
describe("a node moved to another data-plane worker goes on with what it knew (real workers and sockets on 127.0.0.1)", function () {
  this.timeout(20_000);
  let dp: WorkerDataPlane;
  let logger: RecordingLogger;
  const opened: UdpPeer[] = [];

  beforeEach(() => {
    logger = new RecordingLogger();
    dp = twoDataPlaneWorkers({ logger, loadIntervalMs: 0, traces: BOOK });
  });
  afterEach(async () => {
    await dp.close();
    await Promise.all(opened.splice(0).map((p) => p.close()));
  });

  /** A switch with one NIO per filter setting given, each towards its own peer. */
  async function wiredSwitch(filters: FilterSettings[]): Promise<{ node: ComputeNode; peers: UdpPeer[]; lports: number[] }> {
    let node: ComputeNode = createEthernetSwitch({ nodeId: NODE, projectId: PROJECT, name: "SW1", console: null, consoleType: "none", portsMapping: defaultPortsMapping() });
    const peers: UdpPeer[] = [];
    const lports: number[] = [];
    for (const [i, f] of filters.entries()) {
      const peer = await UdpPeer.open();
      opened.push(peer);
      peers.push(peer);
      lports.push(await freeUdpPort());
      const attached: E.Either<{ _tag: string }, ComputeNode> = attachNio(node, i, { type: "nio_udp", lport: lports[i] as number, rhost: "127.0.0.1", rport: peer.port, filters: f, suspend: false });
      if (E.isLeft(attached)) throw new Error(attached.left._tag);
      node = attached.right;
    }
    expect(E.isRight(await dp.sync(node))).to.equal(true);
    return { node, peers, lports };
  }

  it("does not flood an address it learned before the move", async () => {
    const sw = await wiredSwitch([{}, {}, {}]);
    const [p0, p1, p2] = sw.peers as [UdpPeer, UdpPeer, UdpPeer];
    // B speaks from port 1: the switch learns it there (the broadcast reaches ports 0 and 2).
    await p1.send(ethernetFrame("ff:ff:ff:ff:ff:ff", B), sw.lports[1] as number);
    await p2.waitFor(1);
    expect((await dp.macTable(NODE)).map((e) => [e.mac, e.port])).to.deep.equal([[B, 1]]);
    expect(await dp.moveNode(NODE, OTHER)).to.equal(true);
    expect((await dp.macTable(NODE)).map((e) => [e.mac, e.port]), "the moved switch's table").to.deep.equal([[B, 1]]);
    p2.received.length = 0;
    await p0.send(ethernetFrame(B, A), sw.lports[0] as number);
    await p1.waitFor(1);
    expect(await p2.settle(100), "port 2 gets no copy of a frame to a known address").to.equal(0);
  });

  it("keeps counting its ports' frames from where they stood", async () => {
    const sw = await wiredSwitch([{}, {}]);
    const [p0, p1] = sw.peers as [UdpPeer, UdpPeer];
    for (let i = 0; i < 5; i++) await p0.send(ethernetFrame("ff:ff:ff:ff:ff:ff", A), sw.lports[0] as number);
    await p1.waitFor(5);
    expect((await dp.counters(NODE)).get(0)?.framesIn).to.equal(5);
    expect(await dp.moveNode(NODE, OTHER)).to.equal(true);
    expect((await dp.counters(NODE)).get(0)?.framesIn, "right after the move").to.equal(5);
    await p0.send(ethernetFrame("ff:ff:ff:ff:ff:ff", A), sw.lports[0] as number);
    await p1.waitFor(6);
    const counters = await dp.counters(NODE);
    expect(counters.get(0)?.framesIn).to.equal(6);
    expect(counters.get(1)?.framesOut).to.equal(6);
  });

  it("keeps the queue delay its shaped port measured, and its recent maximum, across the move (ADR 0097)", async () => {
    // Port 1 sends at 100 kbit/s: four frames of 1,000 B back to back wait about 0, 80, 160 and 240 ms.
    const sw = await wiredSwitch([{}, { bandwidth: [100, 1000] }]);
    const [p0, p1] = sw.peers as [UdpPeer, UdpPeer];
    for (let i = 0; i < 4; i++) await p0.send(ethernetFrame("ff:ff:ff:ff:ff:ff", A, { payload: 986 }), sw.lports[0] as number);
    await p1.waitFor(4, 3000);
    const before = (await dp.counters(NODE)).get(1)!.queueDelay.egress;
    expect(before.frames).to.equal(4);
    expect(await dp.moveNode(NODE, OTHER)).to.equal(true);
    const after = (await dp.counters(NODE)).get(1)!.queueDelay.egress;
    expect([after.frames, after.sumMs], "right after the move").to.deep.equal([before.frames, before.sumMs]);
    // Read within the same one to two seconds, the maximum is still the one measured before the move.
    expect(after.maxMs).to.equal(before.maxMs);
  });

  it("delivers a frame its 200 ms delay line held at the move about on time", async () => {
    const sw = await wiredSwitch([{}, { delay: [200, 0] }]);
    const [p0, p1] = sw.peers as [UdpPeer, UdpPeer];
    const sentAt = performance.now();
    await p0.send(ethernetFrame("ff:ff:ff:ff:ff:ff", A), sw.lports[0] as number);
    await sleep(50);
    expect(p1.received, "still held when the node moves").to.have.length(0);
    expect(await dp.moveNode(NODE, OTHER)).to.equal(true);
    await p1.waitFor(1, 2000);
    const late = (p1.receivedAtMs[0] as number) - sentAt;
    // On time within a loaded machine's timer slack: never before its delay, and not a move's worth after.
    expect(late).to.be.at.least(195);
    expect(late).to.be.below(450);
  });

  for (const discipline of ["codel", "fq_codel"] as const) {
    it(`sends what its ${discipline} queue held at the move from the other worker, at the rate, none lost, and goes on counting its queue (ADR 0100)`, async () => {
      // Port 1 sends at 100 kbit/s: a frame of 1,000 B takes 80 ms, six take 480. CoDel's target is
      // set far above that wait, so that it drops nothing: every frame must come out.
      const sw = await wiredSwitch([{}, { bandwidth: [100], queue_discipline: [`${discipline} target 5s interval 10s`] }]);
      const [p0, p1] = sw.peers as [UdpPeer, UdpPeer];
      const sentAt = performance.now();
      for (let i = 0; i < 6; i++) await p0.send(ethernetFrame("ff:ff:ff:ff:ff:ff", A, { payload: 986 }), sw.lports[0] as number);
      // Moved as soon as its queue holds frames (a loaded machine may take a while to read them).
      let before = (await dp.counters(NODE)).get(1)?.queues?.egress;
      for (const deadline = Date.now() + 3000; (before?.backlogFrames ?? 0) < 2 && Date.now() < deadline; before = (await dp.counters(NODE)).get(1)?.queues?.egress) await sleep(5);
      expect(before?.backlogFrames, "frames wait in the queue when the node moves").to.be.at.least(2);
      expect(await dp.moveNode(NODE, OTHER)).to.equal(true);
      const after = (await dp.counters(NODE)).get(1)?.queues?.egress;
      expect(after?.sentFrames, "its count went along").to.be.at.least(before?.sentFrames as number);
      await p1.waitFor(6, 5000);
      // Never faster than the rate: the sixth frame's last bit leaves 480 ms after the first arrived (less a ms of timer slack per frame).
      expect((p1.receivedAtMs[5] as number) - sentAt).to.be.at.least(470);
      expect(await p1.settle(100)).to.equal(6);
      const counters = (await dp.counters(NODE)).get(1);
      expect([counters?.queues?.egress?.discipline, counters?.queues?.egress?.sentFrames, counters?.queues?.egress?.backlogFrames]).to.deep.equal([discipline, 6, 0]);
      expect(counters?.drops).to.deep.equal({});
    });
  }

  it("goes on replaying its traces from where they stood, rather than restarting them at the next frame (ADR 0103, issue 29)", async () => {
    const sw = await wiredSwitch([{}, { capacity_trace: ["every-10ms-for-10s"], delay_trace: ["delay-10s"] }]);
    const [p0, p1] = sw.peers as [UdpPeer, UdpPeer];
    const egress = async () => (await dp.counters(NODE)).get(1)?.traces?.egress;
    await p0.send(ethernetFrame("ff:ff:ff:ff:ff:ff", A), sw.lports[0] as number);
    await p1.waitFor(1, 3000);
    await sleep(300);
    const before = await egress();
    expect(before?.capacity?.name).to.equal("every-10ms-for-10s");
    const capacityBefore = before?.capacity?.positionMs as number;
    const delayBefore = before?.delay?.positionMs as number;
    expect(capacityBefore, "the traces started at the first frame, 300 ms ago").to.be.at.least(290);
    expect(await dp.moveNode(NODE, OTHER)).to.equal(true);
    const after = await egress();
    // Read right after the move, before any frame came there: each trace stands a little further on
    // (the move's time; generous, a loaded machine may take seconds), not at its start nor nowhere.
    expect(after?.capacity?.positionMs, "the capacity trace's position right after the move").to.be.within(capacityBefore, capacityBefore + 3000);
    expect(after?.delay?.positionMs, "the delay trace's position right after the move").to.be.within(delayBefore, delayBefore + 3000);
    expect(after?.capacity?.waitingFrames).to.equal(0);
    await p0.send(ethernetFrame("ff:ff:ff:ff:ff:ff", A), sw.lports[0] as number);
    await p1.waitFor(2, 3000);
    // A frame after the move does not start the traces again: they are still a loop's 300 ms or more on.
    const later = await egress();
    expect(later?.capacity?.positionMs, "the capacity trace's position after a frame there").to.be.at.least(capacityBefore);
    expect(later?.delay?.positionMs, "the delay trace's position after a frame there").to.be.at.least(delayBefore);
  });

  it("goes on counting towards its next frequency drop, as its filter chain's state came along", async () => {
    const sw = await wiredSwitch([{ frequency_drop: [3] }, {}]);
    const [p0, p1] = sw.peers as [UdpPeer, UdpPeer];
    for (let i = 0; i < 2; i++) await p0.send(ethernetFrame("ff:ff:ff:ff:ff:ff", A), sw.lports[0] as number);
    await p1.waitFor(2);
    expect(await dp.moveNode(NODE, OTHER)).to.equal(true);
    // The third frame of the count is dropped, the fourth passes.
    await p0.send(ethernetFrame("ff:ff:ff:ff:ff:ff", A), sw.lports[0] as number);
    await p0.send(ethernetFrame("ff:ff:ff:ff:ff:ff", A), sw.lports[0] as number);
    await p1.waitFor(3);
    expect(await p1.settle(100)).to.equal(3);
    expect((await dp.counters(NODE)).get(0)?.drops).to.deep.equal({ frequency_drop: 1 });
  });

  it("stays where it is while a capture runs on it, capturing and forwarding, and moves once it stopped", async () => {
    const dir = await mkdtemp(join(tmpdir(), "netemu-move-capture-"));
    try {
      const sw = await wiredSwitch([{}, {}]);
      const [p0, p1] = sw.peers as [UdpPeer, UdpPeer];
      const file = join(dir, "port0.pcap");
      expect(E.isRight(await dp.start(NODE, 0, file))).to.equal(true);
      expect(await dp.moveNode(NODE, OTHER)).to.equal(false);
      expect(logger.lines.find((l) => l.msg === "a node stays on its data plane worker while a capture runs on it")?.fields).to.deep.equal({ nodeId: NODE, worker: HOME, port: 0 });
      expect(await dp.fileOf(NODE, 0)).to.equal(file);
      await p0.send(ethernetFrame("ff:ff:ff:ff:ff:ff", A), sw.lports[0] as number);
      await p1.waitFor(1);
      await dp.stop(NODE, 0);
      expect(await dp.moveNode(NODE, OTHER)).to.equal(true);
      expect((await dp.counters(NODE)).get(0)?.framesIn).to.equal(1);
    } finally {
      await rm(dir, { recursive: true, force: true });
    }
  });
});
