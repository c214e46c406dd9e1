import { expect } from "chai";
import { HoldBudget } from "../../../src/domain/filters/hold-limit.js";
import { parseQueueDiscipline, type QueueDisciplineSpec } from "../../../src/domain/queueing/queue-discipline.js";
import { ECN_CE, ecnOf, ipv4HeaderChecksum } from "../../../src/domain/queueing/ip-headers.js";
import { TransmitQueue } from "../../../src/application/dataplane/transmit-queue.js";
import { ManualTime } from "../../support/in-memory-data-plane.js";
import { flowFrame } from "../../support/ip-frames.js";

type Queueing = Exclude<QueueDisciplineSpec, { kind: "tail_drop" }>;
const spec = (text: string): Queueing => {
  const r = parseQueueDiscipline(text);
  if (!r.ok || r.spec.kind === "tail_drop") throw new Error(text);
  return r.spec;
};

/** A queue on manual time that records what leaves (with when) and what it drops. */
function harness(opts: { budget?: HoldBudget; earlyByMs?: number } = {}) {
  const time = new ManualTime(1_000_000, opts.earlyByMs ?? 0);
  const sent: { frame: Uint8Array; at: number }[] = [];
  const drops: { bytes: number; reason: string }[] = [];
  const q = new TransmitQueue(time, time, (frame) => sent.push({ frame, at: time.now }), (bytes, reason) => drops.push({ bytes, reason }), undefined, opts.budget);
  return { time, sent, drops, q };
}

describe("TransmitQueue: the bandwidth stage's transmitter with a CoDel or FQ-CoDel queue (ADR 0100)", () => {
  it("sends a frame to an idle transmitter at once and hands it on when its last bit has left (1,000 B at 800 kbit/s: 10 ms)", () => {
    const { time, sent, q } = harness();
    q.offer(new Uint8Array(1000), spec("codel"), 800);
    expect(sent).to.have.length(0);
    time.advance(9);
    expect(sent).to.have.length(0);
    time.advance(1);
    expect(sent.map((s) => s.at - 1_000_000)).to.deep.equal([10]);
  });

  it("sends queued frames back to back at the rate: 10 frames of 1,000 B at 800 kbit/s leave 10 ms apart", () => {
    const { time, sent, q } = harness();
    for (let i = 0; i < 10; i++) q.offer(new Uint8Array(1000), spec("fq_codel"), 800);
    time.advance(200);
    expect(sent.map((s) => s.at - 1_000_000)).to.deep.equal([10, 20, 30, 40, 50, 60, 70, 80, 90, 100]);
  });

  it("keeps the rate exact when its timers fire late: a frame whose time passed leaves at once, the next from when the transmitter was really free", () => {
    const { time, sent, q } = harness();
    for (let i = 0; i < 10; i++) q.offer(new Uint8Array(100), spec("codel"), 800); // 1 ms each
    // One late wake-up 10 ms in: the ten frames' turns have all passed.
    time.now += 10;
    time.advance(0);
    expect(sent).to.have.length(10);
  });

  it("never hands a frame on before its last bit has left, when a timer fires early", () => {
    const { time, sent, q } = harness({ earlyByMs: 0.5 });
    q.offer(new Uint8Array(1000), spec("codel"), 800);
    time.advance(9);
    expect(sent).to.have.length(0);
    time.advance(1);
    expect(sent).to.have.length(1);
  });

  it("copies each frame it queues: a frame the caller reuses (a receive batch, a flood to other ports) is not changed by a mark", () => {
    const { time, sent, q } = harness();
    const frame = flowFrame({ ecn: 2 });
    q.offer(frame, spec("codel"), 800);
    frame.fill(0);
    time.advance(10);
    expect(sent[0]?.frame[12]).to.equal(0x08);
  });

  it("under a standing overload, CoDel drops at dequeue (reason codel) and the queue's statistics say so", () => {
    const { time, drops, q } = harness();
    // 2 Mbit/s offered into 1 Mbit/s for 2 s, Not-ECT.
    for (let t = 0; t < 2000; t += 6) {
      q.offer(flowFrame({ length: 750, ecn: 0 }), spec("codel"), 1000);
      q.offer(flowFrame({ length: 750, ecn: 0 }), spec("codel"), 1000);
      time.advance(6);
    }
    expect(drops.length).to.be.greaterThan(0);
    expect(drops.every((d) => d.reason === "codel")).to.equal(true);
    const s = q.statistics();
    expect(s).to.include({ discipline: "codel", codelDrops: drops.length, overlimitDrops: 0, ecnMarks: 0 });
    expect(s?.sojournMaxMs).to.be.greaterThan(5);
  });

  it("marks ECN-capable frames CE instead of dropping them under fq_codel's defaults, with a right IPv4 checksum", () => {
    const { time, sent, drops, q } = harness();
    for (let t = 0; t < 2000; t += 6) {
      q.offer(flowFrame({ length: 750, ecn: 2 }), spec("fq_codel"), 1000);
      q.offer(flowFrame({ length: 750, ecn: 2 }), spec("fq_codel"), 1000);
      time.advance(6);
    }
    expect(drops.filter((d) => d.reason === "codel")).to.have.length(0);
    const marked = sent.filter((s) => ecnOf(s.frame) === ECN_CE);
    expect(marked.length).to.be.greaterThan(0);
    expect(q.statistics()?.ecnMarks).to.equal(marked.length);
    for (const m of marked) expect(((m.frame[24] as number) << 8) | (m.frame[25] as number)).to.equal(ipv4HeaderChecksum(m.frame, 14));
  });

  it("drops at the discipline's limit as bandwidth (the queue was full), counted as overlimit", () => {
    const { drops, q } = harness();
    for (let i = 0; i < 10; i++) q.offer(new Uint8Array(100), spec("codel limit 3"), 8);
    // One is in flight, three wait, six are dropped.
    expect(drops.map((d) => d.reason)).to.deep.equal(Array(6).fill("bandwidth"));
    expect(q.statistics()).to.include({ overlimitDrops: 6, backlogFrames: 3, backlogBytes: 300 });
  });

  it("refuses a frame beyond the port's hold budget (delay_limit) and gives back the room of every frame sent or dropped", () => {
    const budget = new HoldBudget({ frames: 3, bytes: 1_000_000 });
    const { time, drops, q } = harness({ budget });
    for (let i = 0; i < 6; i++) q.offer(new Uint8Array(100), spec("codel"), 8);
    expect(drops.map((d) => d.reason)).to.deep.equal(["delay_limit", "delay_limit"]);
    time.advance(1000);
    for (let i = 0; i < 3; i++) q.offer(new Uint8Array(100), spec("codel"), 8);
    expect(drops).to.have.length(2);
  });

  it("takes over the frames queued under a discipline it is switched from, in their order, keeping their enqueue times", () => {
    const { time, sent, q } = harness();
    for (let i = 0; i < 5; i++) q.offer(Uint8Array.of(i), spec("codel"), 8); // 1 ms each
    q.offer(Uint8Array.of(5), spec("fq_codel"), 8);
    time.advance(100);
    expect(sent.map((s) => s.frame[0])).to.deep.equal([0, 1, 2, 3, 4, 5]);
    expect(q.statistics()?.discipline).to.equal("fq_codel");
  });

  it("on close drops what waits, stops its timer and gives the room back", () => {
    const budget = new HoldBudget({ frames: 10, bytes: 1_000_000 });
    const { time, sent, q } = harness({ budget });
    for (let i = 0; i < 5; i++) q.offer(new Uint8Array(100), spec("codel"), 8);
    expect(q.close()).to.equal(4);
    expect(time.timersWaiting).to.equal(0);
    time.advance(1000);
    expect(sent).to.have.length(0);
    expect(budget.frames).to.equal(0);
    q.offer(new Uint8Array(100), spec("codel"), 8);
    expect(q.pending).to.equal(0);
  });

  it("keeps going when delivering a frame throws: that frame is lost, the next still leaves", () => {
    const time = new ManualTime();
    const faults: unknown[] = [];
    let n = 0;
    const q = new TransmitQueue(time, time, () => {
      if (n++ === 0) throw new Error("socket gone");
    }, () => undefined, (err) => faults.push(err));
    q.offer(new Uint8Array(100), spec("codel"), 8);
    q.offer(new Uint8Array(100), spec("codel"), 8);
    time.advance(1000);
    expect(n).to.equal(2);
    expect(faults).to.have.length(1);
  });

  /**
   * 2 Mbit/s offered into 1 Mbit/s for 1.2 s (CoDel drops from about 100 ms on), each frame numbered;
   * with `moveAtMs`, the queue is handed over there through structuredClone to another (a node moving
   * to another thread, ADR 0069) and the offers go on into that one.
   */
  function overloaded(text: string, moveAtMs?: number) {
    const time = new ManualTime(1_000_000);
    const sent: [number, number][] = [];
    const drops: [number, string][] = [];
    const make = () => new TransmitQueue(time, time, (f) => void sent.push([f[19] as number, time.now]), (bytes, reason) => void drops.push([time.now, reason]));
    let q = make();
    let n = 0;
    for (let t = 0; t < 1200; t += 6) {
      if (moveAtMs !== undefined && t === moveAtMs) {
        const held = structuredClone(q.handOver());
        q = make();
        q.takeUp(held, spec(text));
      }
      for (let i = 0; i < 2; i++) q.offer(flowFrame({ length: 750, ecn: 0, id: n++ & 0xff }), spec(text), 1000);
      time.advance(6);
    }
    time.advance(2000);
    return { sent, drops, statistics: q.statistics() };
  }

  it("goes on exactly as it would have after handing over and taking up through structuredClone: same frames at the same times, the same CoDel drops, the same counters", () => {
    const stayed = overloaded("codel");
    // In CoDel's dropping state, with a standing queue and a frame in flight.
    const moved = overloaded("codel", 600);
    expect(stayed.drops.length, "CoDel dropped before and after the move").to.be.greaterThan(10);
    expect(moved.sent).to.deep.equal(stayed.sent);
    expect(moved.drops).to.deep.equal(stayed.drops);
    expect(moved.statistics).to.deep.equal(stayed.statistics);
  });

  it("under fq_codel, carries every frame and counter across a hand-over (its per-flow CoDel state restarts): nothing is lost uncounted", () => {
    const stayed = overloaded("fq_codel");
    const moved = overloaded("fq_codel", 600);
    const offered = 2 * 200;
    expect(moved.sent.length + moved.drops.length).to.equal(offered);
    expect(moved.statistics?.sentFrames).to.equal(moved.sent.length);
    expect(moved.statistics?.codelDrops).to.equal(moved.drops.length);
    expect(moved.sent.slice(0, 50), "what left before the move").to.deep.equal(stayed.sent.slice(0, 50));
  });

  it("switched to tail drop, lets its backlog go with when each frame's last bit leaves, at the rate, none dropped, and is left idle", () => {
    const { time, sent, drops, q } = harness();
    for (let i = 0; i < 4; i++) q.offer(new Uint8Array(1000), spec("codel"), 800);
    time.advance(5);
    const released = q.release();
    expect(released.frames.map((f) => f.doneMs - 1_000_000)).to.deep.equal([10, 20, 30, 40]);
    expect(released.freeAtMs - 1_000_000).to.equal(40);
    time.advance(100);
    expect([sent.length, drops.length, q.pending]).to.deep.equal([0, 0, 0]);
  });

  it("started after a tail-drop Shaper's backlog, sends its first frame only when the Shaper is free", () => {
    const { time, sent, q } = harness();
    q.startAfter(1_000_000 + 30);
    q.offer(new Uint8Array(1000), spec("codel"), 800);
    time.advance(39);
    expect(sent).to.have.length(0);
    time.advance(1);
    expect(sent.map((s) => s.at - 1_000_000)).to.deep.equal([40]);
  });

  it("takes up nothing on a closed queue: every frame handed to it is counted as dropped (delay_limit)", () => {
    const a = harness();
    for (let i = 0; i < 3; i++) a.q.offer(new Uint8Array(100), spec("codel"), 800);
    const held = a.q.handOver();
    const b = harness();
    b.q.close();
    b.q.takeUp(held, spec("codel"));
    expect(b.drops).to.deep.equal([
      { bytes: 100, reason: "delay_limit" },
      { bytes: 100, reason: "delay_limit" },
      { bytes: 100, reason: "delay_limit" },
    ]);
  });

  it("says nothing in its statistics before a frame came", () => {
    expect(harness().q.statistics()).to.equal(undefined);
  });
});
