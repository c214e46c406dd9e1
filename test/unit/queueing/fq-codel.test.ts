import { expect } from "chai";
import fc from "fast-check";
import type { QueueObserver, QueuedFrame } from "../../../src/domain/queueing/codel.js";
import { FqCodelQueueDiscipline } from "../../../src/domain/queueing/fq-codel.js";
import { ECN_CE, ecnOf } from "../../../src/domain/queueing/ip-headers.js";
import { FQ_CODEL_DEFAULTS } from "../../../src/domain/queueing/queue-discipline.js";
import { FC_SEED } from "../../support/hardening-kit.js";
import { flowFrame } from "../../support/ip-frames.js";

const RUNS = Number.parseInt(process.env["FC_RUNS"] ?? "200", 10);

class Log implements QueueObserver {
  readonly drops: { entry: QueuedFrame; reason: string }[] = [];
  marks = 0;
  dropped(entry: QueuedFrame, reason: string): void {
    this.drops.push({ entry, reason });
  }
  marked(): void {
    this.marks++;
  }
  sojourn(): void {}
}

const sportOf = (f: Uint8Array): number => ((f[34] as number) << 8) | (f[35] as number);
const idOf = (f: Uint8Array): number => ((f[18] as number) << 8) | (f[19] as number);

describe("FQ-CoDel (RFC 8290): flow queues served by deficit round robin, each under CoDel", () => {
  it("puts frames of different 5-tuples in different queues and the frames of one flow in one", () => {
    const q = new FqCodelQueueDiscipline(FQ_CODEL_DEFAULTS, new Log());
    expect(q.flowOf(flowFrame({ sport: 1, id: 1 }))).to.equal(q.flowOf(flowFrame({ sport: 1, id: 2, length: 1500 })));
    const distinct = new Set([1, 2, 3, 4, 5, 6, 7, 8].map((sport) => q.flowOf(flowFrame({ sport }))));
    expect(distinct.size).to.be.greaterThan(6);
  });

  it("sends a sparse flow's frame (a ping) before a bulk flow's standing queue: new flows go first", () => {
    const q = new FqCodelQueueDiscipline(FQ_CODEL_DEFAULTS, new Log());
    for (let i = 0; i < 100; i++) q.enqueue(flowFrame({ sport: 1, length: 1514 }), 0);
    // The bulk flow has been served a while: it is an old flow now.
    for (let i = 0; i < 5; i++) q.dequeue(1);
    q.enqueue(flowFrame({ protocol: 1, sport: 0, length: 98 }), 2);
    const next = q.dequeue(2);
    expect(next?.frame.length).to.equal(98);
  });

  it("shares the rate by bytes between backlogged flows of different frame sizes, within a quantum", () => {
    const q = new FqCodelQueueDiscipline(FQ_CODEL_DEFAULTS, new Log());
    for (let i = 0; i < 3000; i++) q.enqueue(flowFrame({ sport: 1, length: 1514 }), 0);
    for (let i = 0; i < 20000; i++) q.enqueue(flowFrame({ sport: 2, length: 200 }), 0);
    const bytes = new Map<number, number>();
    // Dequeued at time 0: no sojourn, no CoDel; the schedule alone.
    for (let i = 0; i < 5000; i++) {
      const e = q.dequeue(0) as QueuedFrame;
      bytes.set(sportOf(e.frame), (bytes.get(sportOf(e.frame)) ?? 0) + e.frame.length);
    }
    expect(Math.abs((bytes.get(1) ?? 0) - (bytes.get(2) ?? 0))).to.be.at.most(2 * FQ_CODEL_DEFAULTS.quantum);
  });

  it("gives a flow that spent its quantum a new one at the back of the old flows", () => {
    const q = new FqCodelQueueDiscipline({ ...FQ_CODEL_DEFAULTS, quantum: 3000 }, new Log());
    for (let i = 0; i < 4; i++) q.enqueue(flowFrame({ sport: 1, length: 1500, id: i }), 0);
    for (let i = 0; i < 4; i++) q.enqueue(flowFrame({ sport: 2, length: 1500, id: 10 + i }), 0);
    const order = [0, 1, 2, 3, 4, 5, 6, 7].map(() => idOf((q.dequeue(0) as QueuedFrame).frame));
    // Two 1,500 B frames per 3,000 B quantum, flow by flow.
    expect(order).to.deep.equal([0, 1, 10, 11, 2, 3, 12, 13]);
  });

  it("at the frame limit drops from the head of the flow holding the most bytes, not from the flow that arrived", () => {
    const log = new Log();
    const q = new FqCodelQueueDiscipline({ ...FQ_CODEL_DEFAULTS, limit: 100 }, log);
    for (let i = 0; i < 90; i++) q.enqueue(flowFrame({ sport: 1, length: 1514, id: i }), 0);
    for (let i = 0; i < 10; i++) q.enqueue(flowFrame({ sport: 2, length: 100, id: 1000 + i }), 0);
    expect(log.drops).to.have.length(0);
    q.enqueue(flowFrame({ sport: 2, length: 100, id: 2000 }), 0);
    // Half the fat flow's bytes, at most 64 frames, from its head.
    expect(log.drops.map((d) => idOf(d.entry.frame))).to.deep.equal([...Array(45).keys()]);
    expect(log.drops.every((d) => d.reason === "overlimit")).to.equal(true);
    expect(q.length).to.equal(56);
  });

  it("drops at most drop_batch frames at once", () => {
    const log = new Log();
    const q = new FqCodelQueueDiscipline({ ...FQ_CODEL_DEFAULTS, limit: 200, dropBatch: 8 }, log);
    for (let i = 0; i < 201; i++) q.enqueue(flowFrame({ sport: 1, length: 100 }), 0);
    expect(log.drops).to.have.length(8);
  });

  it("at the memory limit drops from the fattest flow too", () => {
    const log = new Log();
    const q = new FqCodelQueueDiscipline({ ...FQ_CODEL_DEFAULTS, memoryLimit: 10 * 1514 }, log);
    for (let i = 0; i < 10; i++) q.enqueue(flowFrame({ sport: 1, length: 1514 }), 0);
    q.enqueue(flowFrame({ sport: 2, length: 64 }), 0);
    expect(log.drops.length).to.be.greaterThan(0);
    expect(log.drops.every((d) => sportOf(d.entry.frame) === 1)).to.equal(true);
    expect(q.bytes).to.be.at.most(10 * 1514);
  });

  it("runs CoDel per flow: a bulk flow's standing queue is cut while a sparse flow beside it loses nothing", () => {
    const log = new Log();
    const q = new FqCodelQueueDiscipline({ ...FQ_CODEL_DEFAULTS, ecn: false }, log);
    // A 10 Mbit/s link: 1514 B leave every 1.2 ms; the bulk flow offers two frames per slot, the sparse one a frame every 10 ms.
    let sparseSent = 0;
    for (let t = 0; t < 3000; t += 1.2) {
      q.enqueue(flowFrame({ sport: 1, length: 1514 }), t);
      q.enqueue(flowFrame({ sport: 1, length: 1514 }), t);
      if (Math.floor(t / 10) !== Math.floor((t - 1.2) / 10)) q.enqueue(flowFrame({ sport: 2, length: 100 }), t);
      const e = q.dequeue(t);
      if (e !== undefined && sportOf(e.frame) === 2) sparseSent++;
    }
    expect(log.drops.length).to.be.greaterThan(0);
    expect(log.drops.every((d) => d.reason === "codel" && sportOf(d.entry.frame) === 1)).to.equal(true);
    expect(sparseSent).to.be.greaterThan(295);
  });

  it("marks instead of dropping ECN-capable frames by default (ecn on, as Linux's fq_codel)", () => {
    const log = new Log();
    const q = new FqCodelQueueDiscipline(FQ_CODEL_DEFAULTS, log);
    let marked = 0;
    for (let t = 0; t < 3000; t += 1.2) {
      q.enqueue(flowFrame({ sport: 1, length: 1514, ecn: 1 }), t);
      q.enqueue(flowFrame({ sport: 1, length: 1514, ecn: 1 }), t);
      const e = q.dequeue(t);
      if (e !== undefined && ecnOf(e.frame) === ECN_CE) marked++;
    }
    expect(log.drops.filter((d) => d.reason === "codel")).to.have.length(0);
    expect(log.marks).to.be.greaterThan(0);
    expect(marked).to.equal(log.marks);
  });

  it("sends or drops every frame exactly once and keeps each flow's order (property)", () => {
    fc.assert(
      fc.property(
        fc.array(fc.tuple(fc.array(fc.tuple(fc.integer({ min: 1, max: 4 }), fc.integer({ min: 64, max: 1514 })), { maxLength: 6 }), fc.integer({ min: 0, max: 6 })), { minLength: 1, maxLength: 300 }),
        fc.integer({ min: 1, max: 8 }),
        (steps, flows) => {
          const log = new Log();
          const q = new FqCodelQueueDiscipline({ ...FQ_CODEL_DEFAULTS, flows, limit: 60, quantum: 300 }, log);
          const sent: QueuedFrame[] = [];
          let id = 0;
          let t = 0;
          for (const [ins, outs] of steps) {
            t += 2;
            for (const [sport, length] of ins) q.enqueue(flowFrame({ sport, length, id: id++ }), t);
            for (let i = 0; i < outs; i++) {
              const e = q.dequeue(t);
              if (e !== undefined) sent.push(e);
            }
          }
          const all = [...sent, ...log.drops.map((d) => d.entry), ...q.drain()].map((e) => idOf(e.frame)).sort((a, b) => a - b);
          expect(all).to.deep.equal([...Array(id).keys()]);
          expect(q.length).to.equal(0);
          expect(q.bytes).to.equal(0);
          for (let sport = 1; sport <= 4; sport++) {
            const ids = sent.filter((e) => sportOf(e.frame) === sport).map((e) => idOf(e.frame));
            expect(ids).to.deep.equal([...ids].sort((a, b) => a - b));
          }
        },
      ),
      { numRuns: RUNS, seed: FC_SEED, endOnFailure: true },
    );
  });
});
