import { expect } from "chai";
import fc from "fast-check";
import { CodelController, CodelQueueDiscipline, FrameFifo, type QueueObserver, type QueuedFrame, controlLaw } from "../../../src/domain/queueing/codel.js";
import { CODEL_DEFAULTS } from "../../../src/domain/queueing/queue-discipline.js";
import { ECN_CE, ecnOf, ipv4HeaderChecksum } from "../../../src/domain/queueing/ip-headers.js";
import { FC_SEED } from "../../support/hardening-kit.js";
import { flowFrame } from "../../support/ip-frames.js";

const RUNS = Number.parseInt(process.env["FC_RUNS"] ?? "200", 10);

/** An observer that writes down what CoDel did. */
class Log implements QueueObserver {
  readonly drops: { at: number; entry: QueuedFrame; reason: string }[] = [];
  marks = 0;
  readonly sojourns: number[] = [];
  now = 0;
  dropped(entry: QueuedFrame, reason: string): void {
    this.drops.push({ at: this.now, entry, reason });
  }
  marked(): void {
    this.marks++;
  }
  sojourn(ms: number): void {
    this.sojourns.push(ms);
  }
}

/** A queue of `n` frames of `bytes` each, all enqueued at `at`: a standing queue whose sojourn only grows. */
function standing(n: number, at: number, frame: () => Uint8Array = () => new Uint8Array(1000)): CodelQueueDiscipline {
  const q = new CodelQueueDiscipline({ ...CODEL_DEFAULTS, limit: 100_000 }, new Log());
  for (let i = 0; i < n; i++) q.enqueue(frame(), at);
  return q;
}

/** Dequeues once a ms from `from` to `to`, with `log` as observer; answers the frames sent. */
function run(q: CodelQueueDiscipline, controller: CodelController, log: Log, from: number, to: number): QueuedFrame[] {
  const sent: QueuedFrame[] = [];
  for (let t = from; t <= to; t++) {
    log.now = t;
    const e = controller.dequeue(q, t, log);
    if (e !== undefined) sent.push(e);
  }
  return sent;
}

describe("CoDel (RFC 8289): the control law at dequeue", () => {
  it("computes the next drop interval/√count after the last: 100, 70.7, 57.7, 50 ms apart", () => {
    expect(controlLaw(0, 100, 1)).to.equal(100);
    expect(controlLaw(0, 100, 2)).to.be.closeTo(70.71, 0.01);
    expect(controlLaw(0, 100, 3)).to.be.closeTo(57.74, 0.01);
    expect(controlLaw(10, 100, 4)).to.equal(60);
  });

  it("never drops while the sojourn stays below the 5 ms target, however long the queue", () => {
    const q = new CodelQueueDiscipline(CODEL_DEFAULTS, new Log());
    const log = new Log();
    const c = new CodelController(CODEL_DEFAULTS);
    // 10 frames in, 10 out each ms: each waits 4 ms at most.
    for (let t = 0; t < 2000; t++) {
      for (let i = 0; i < 10; i++) q.enqueue(new Uint8Array(1500), t);
      if (t >= 4) for (let i = 0; i < 10; i++) c.dequeue(q, t, log);
    }
    expect(log.drops).to.have.length(0);
    expect(Math.max(...log.sojourns)).to.equal(4);
  });

  it("never drops from a backlog of one frame (at most an MTU), however long it waited", () => {
    const log = new Log();
    const c = new CodelController(CODEL_DEFAULTS);
    const fifo = new FrameFifo();
    for (let t = 1000; t < 3000; t += 10) {
      fifo.push({ frame: new Uint8Array(1514), enqueuedMs: t - 500 });
      expect(c.dequeue({ shift: () => fifo.shift(), get backlogBytes() { return fifo.bytes; } }, t, log)).to.not.equal(undefined);
    }
    expect(log.drops).to.have.length(0);
  });

  it("drops the first frame only once the sojourn has been above target for a whole interval, then at interval/√count", () => {
    const q = standing(2000, 0);
    const log = new Log();
    const c = new CodelController(CODEL_DEFAULTS);
    run(q, c, log, 1000, 1400);
    // Above target from t=1000: first drop at 1100 (count 1, next 1200), 1200 (count 2, next 1270.7), 1271, 1329, 1379.
    expect(log.drops.map((d) => d.at)).to.deep.equal([1100, 1200, 1271, 1329, 1379]);
    expect(log.drops.every((d) => d.reason === "codel")).to.equal(true);
    expect(c.count).to.equal(5);
  });

  it("leaves the dropping state as soon as a frame's sojourn is below target", () => {
    const q = standing(300, 0);
    const log = new Log();
    const c = new CodelController(CODEL_DEFAULTS);
    run(q, c, log, 1000, 1150);
    expect(c.dropping).to.equal(true);
    q.drain();
    for (let i = 0; i < 10; i++) q.enqueue(new Uint8Array(1000), 1150);
    log.now = 1151;
    c.dequeue(q, 1151, log);
    expect(c.dropping).to.equal(false);
  });

  it("re-enters dropping with the count it left at, less the count it entered with, when that is more than 1 and it left less than 16 intervals ago (§5.4)", () => {
    const q = standing(2000, 0);
    const log = new Log();
    const c = new CodelController(CODEL_DEFAULTS);
    run(q, c, log, 1000, 1400); // count 5, entered at 1
    q.drain();
    for (let i = 0; i < 10; i++) q.enqueue(new Uint8Array(1000), 1400);
    c.dequeue(q, 1401, log); // below target: leaves dropping
    expect(c.dropping).to.equal(false);
    q.drain();
    for (let i = 0; i < 2000; i++) q.enqueue(new Uint8Array(1000), 1402);
    const before = log.drops.length;
    run(q, c, log, 1500, 1700);
    const again = log.drops.slice(before).map((d) => d.at);
    // Above target from 1500; drops at 1600 with count 4 (5 − 1), the next 100/√4 = 50 ms later.
    expect(again[0]).to.equal(1600);
    expect(again[1]).to.equal(1650);
  });

  it("re-enters dropping from count 1 when it left more than 16 intervals ago", () => {
    const q = standing(2000, 0);
    const log = new Log();
    const c = new CodelController(CODEL_DEFAULTS);
    run(q, c, log, 1000, 1400);
    q.drain();
    for (let i = 0; i < 10; i++) q.enqueue(new Uint8Array(1000), 1400);
    c.dequeue(q, 1401, log);
    q.drain();
    for (let i = 0; i < 2000; i++) q.enqueue(new Uint8Array(1000), 3400);
    const before = log.drops.length;
    run(q, c, log, 3500, 3700);
    expect(log.drops.slice(before).map((d) => d.at).slice(0, 2)).to.deep.equal([3600, 3700]);
  });

  it("with ECN on, marks ECN-capable frames CE and sends them instead of dropping (checksum kept right); Not-ECT frames are still dropped", () => {
    const settings = { ...CODEL_DEFAULTS, ecn: true, limit: 100_000 };
    const ect = new CodelQueueDiscipline(settings, new Log());
    for (let i = 0; i < 2000; i++) ect.enqueue(flowFrame({ ecn: 2, length: 1000 }), 0);
    const log = new Log();
    const sent = run(ect, ect.controller, log, 1000, 1400);
    expect(log.drops).to.have.length(0);
    expect(log.marks).to.equal(5);
    const marked = sent.filter((e) => ecnOf(e.frame) === ECN_CE);
    expect(marked).to.have.length(5);
    for (const e of marked) expect(((e.frame[24] as number) << 8) | (e.frame[25] as number)).to.equal(ipv4HeaderChecksum(e.frame, 14));

    const notEct = new CodelQueueDiscipline(settings, new Log());
    for (let i = 0; i < 2000; i++) notEct.enqueue(flowFrame({ ecn: 0, length: 1000 }), 0);
    const log2 = new Log();
    run(notEct, notEct.controller, log2, 1000, 1400);
    expect(log2.marks).to.equal(0);
    expect(log2.drops).to.have.length(5);
  });

  it("drops at the tail, as 'overlimit', a frame that finds `limit` frames queued", () => {
    const log = new Log();
    const q = new CodelQueueDiscipline({ ...CODEL_DEFAULTS, limit: 3 }, log);
    for (let i = 0; i < 5; i++) q.enqueue(new Uint8Array([i]), 0);
    expect(q.length).to.equal(3);
    expect(log.drops.map((d) => [d.reason, d.entry.frame[0]])).to.deep.equal([
      ["overlimit", 3],
      ["overlimit", 4],
    ]);
  });

  it("sends or drops every frame exactly once, in order, and drops only frames whose sojourn reached target (property)", () => {
    fc.assert(
      fc.property(fc.array(fc.tuple(fc.integer({ min: 0, max: 5 }), fc.integer({ min: 0, max: 5 })), { minLength: 1, maxLength: 400 }), fc.boolean(), (steps, ecn) => {
        const log = new Log();
        const q = new CodelQueueDiscipline({ ...CODEL_DEFAULTS, ecn, limit: 50 }, log);
        const sent: QueuedFrame[] = [];
        let id = 0;
        let t = 0;
        for (const [ins, outs] of steps) {
          t += 3;
          log.now = t;
          for (let i = 0; i < ins; i++) q.enqueue(flowFrame({ ecn: id % 2 === 0 ? 2 : 0, length: 800, id: id++ }), t);
          for (let i = 0; i < outs; i++) {
            const e = q.dequeue(t);
            if (e !== undefined) sent.push(e);
          }
        }
        const ids = (es: readonly QueuedFrame[]) => es.map((e) => ((e.frame[18] as number) << 8) | (e.frame[19] as number));
        const all = [...ids(sent), ...ids(log.drops.map((d) => d.entry)), ...ids(q.drain())].sort((a, b) => a - b);
        expect(all).to.deep.equal([...Array(id).keys()]);
        const sentIds = ids(sent);
        expect(sentIds).to.deep.equal([...sentIds].sort((a, b) => a - b));
        for (const d of log.drops) if (d.reason === "codel") expect(d.at - d.entry.enqueuedMs).to.be.at.least(CODEL_DEFAULTS.targetMs);
      }),
      { numRuns: RUNS, seed: FC_SEED, endOnFailure: true },
    );
  });
});
