import { expect } from "chai";
import { FairIntake, type IntakeBudget } from "../../../src/application/dataplane/fair-intake.js";
import { ManualTime } from "../../support/in-memory-data-plane.js";

/**
 * One thread's ports sharing it fairly (ADR 0075), on a manual clock: a frame's work is the time its
 * handler moves the clock on, as a costly filter would take it.
 */
describe("FairIntake: each port's frames within a work budget per turn", () => {
  const BUDGET: IntakeBudget = { turnMs: 1, backlogFrames: 4, backlogBytes: 1000 };
  const frame = (n: number, bytes = 10): Uint8Array => new Uint8Array(bytes).fill(n);

  /** A port whose every frame costs `costMs`; what it handled and shed, by the frame's first byte. */
  function port(intake: FairIntake, time: ManualTime, costMs: number, log: string[], name: string) {
    return intake.port(
      (f) => {
        time.now += costMs;
        log.push(`${name}${f[0]}`);
      },
      (f) => log.push(`${name}${f[0]} shed`),
    );
  }

  it("handles a port's frames at once while its work this turn is under the budget", () => {
    const time = new ManualTime();
    const intake = new FairIntake(time, time, BUDGET);
    const log: string[] = [];
    const p = port(intake, time, 0.3, log, "a");
    for (const n of [1, 2, 3, 4]) p.offer(frame(n));
    // 0.3, 0.6, 0.9 ms spent: the fourth still starts under 1 ms
    expect(log).to.deep.equal(["a1", "a2", "a3", "a4"]);
    expect(time.deferredWaiting).to.equal(0);
  });

  it("keeps a port's frames past its budget for the next turn, in order, and another port's frame does not wait behind them", () => {
    const time = new ManualTime();
    const intake = new FairIntake(time, time, BUDGET);
    const log: string[] = [];
    const costly = port(intake, time, 0.6, log, "a");
    const bystander = port(intake, time, 0.01, log, "b");
    for (const n of [1, 2, 3, 4]) costly.offer(frame(n));
    bystander.offer(frame(1));
    expect(log).to.deep.equal(["a1", "a2", "b1"]);
    expect(costly.waiting).to.equal(2);
    time.runDeferred();
    expect(log).to.deep.equal(["a1", "a2", "b1", "a3", "a4"]);
    expect(costly.waiting).to.equal(0);
  });

  it("gives a waiting port one budget per turn, so a frame that comes between turns is handled before the rest of its backlog", () => {
    const time = new ManualTime();
    const intake = new FairIntake(time, time, BUDGET);
    const log: string[] = [];
    const costly = port(intake, time, 1, log, "a");
    const bystander = port(intake, time, 0.01, log, "b");
    for (const n of [1, 2, 3, 4]) costly.offer(frame(n));
    expect(log).to.deep.equal(["a1"]);
    // one turn: a2 only (1 ms), then the loop's I/O: the bystander's frame, then the next turn
    const turns: string[][] = [];
    const drainOnce = (): void => {
      const before = log.length;
      time.runOneDeferred();
      turns.push(log.slice(before));
    };
    drainOnce();
    bystander.offer(frame(1));
    drainOnce();
    drainOnce();
    expect(turns).to.deep.equal([["a2"], ["a3"], ["a4"]]);
    expect(log).to.deep.equal(["a1", "a2", "b1", "a3", "a4"]);
  });

  it("serves the waiting ports round robin, each within a fresh budget per turn", () => {
    const time = new ManualTime();
    const intake = new FairIntake(time, time, BUDGET);
    const log: string[] = [];
    const a = port(intake, time, 1, log, "a");
    const b = port(intake, time, 1, log, "b");
    for (const n of [1, 2, 3]) a.offer(frame(n));
    for (const n of [1, 2, 3]) b.offer(frame(n));
    expect(log).to.deep.equal(["a1", "b1"]);
    time.runDeferred();
    expect(log).to.deep.equal(["a1", "b1", "a2", "b2", "a3", "b3"]);
  });

  it("sheds the frames its backlog cannot hold, past its frames or its bytes, and keeps the order of those it holds", () => {
    const time = new ManualTime();
    const intake = new FairIntake(time, time, BUDGET);
    const log: string[] = [];
    const p = port(intake, time, 2, log, "a");
    p.offer(frame(1));
    for (const n of [2, 3, 4, 5, 6]) p.offer(frame(n));
    // backlog of 4 frames: 2..5 kept, 6 shed
    expect(log).to.deep.equal(["a1", "a6 shed"]);
    time.runDeferred();
    expect(log).to.deep.equal(["a1", "a6 shed", "a2", "a3", "a4", "a5"]);

    const bytes: string[] = [];
    const q = port(intake, time, 2, bytes, "b");
    q.offer(frame(1));
    q.offer(frame(2, 600));
    q.offer(frame(3, 600));
    q.offer(frame(4, 300));
    expect(bytes).to.deep.equal(["b1", "b3 shed"]);
    time.runDeferred();
    expect(bytes).to.deep.equal(["b1", "b3 shed", "b2", "b4"]);
  });

  it("handles every waiting frame on drainAll whatever the budget, and forgets them on close", () => {
    const time = new ManualTime();
    const intake = new FairIntake(time, time, BUDGET);
    const log: string[] = [];
    const p = port(intake, time, 5, log, "a");
    for (const n of [1, 2, 3]) p.offer(frame(n));
    p.drainAll();
    expect(log).to.deep.equal(["a1", "a2", "a3"]);

    const gone: string[] = [];
    const q = port(intake, time, 5, gone, "b");
    for (const n of [1, 2, 3]) q.offer(frame(n));
    q.close();
    q.offer(frame(4));
    time.runDeferred();
    expect(gone).to.deep.equal(["b1"]);
    expect(q.waiting).to.equal(0);
  });

  it("drains on a timer of 0 ms with an embedder's Timers that cannot defer", () => {
    const time = new ManualTime();
    const timers = { setTimeout: time.setTimeout.bind(time), clearTimeout: time.clearTimeout.bind(time) };
    const intake = new FairIntake(time, timers, BUDGET);
    const log: string[] = [];
    const p = port(intake, time, 1, log, "a");
    for (const n of [1, 2]) p.offer(frame(n));
    expect(log).to.deep.equal(["a1"]);
    expect(time.timersWaiting).to.equal(1);
    time.advance(1);
    expect(log).to.deep.equal(["a1", "a2"]);
  });

  it("counts a frame's work even when its handler throws", () => {
    const time = new ManualTime();
    const intake = new FairIntake(time, time, BUDGET);
    const handled: number[] = [];
    const p = intake.port(
      (f) => {
        time.now += 2;
        handled.push(f[0] as number);
        if (f[0] === 1) throw new Error("a fault in the frame path");
      },
      () => undefined,
    );
    expect(() => p.offer(frame(1))).to.throw("a fault in the frame path");
    p.offer(frame(2));
    expect(handled).to.deep.equal([1]);
    time.runDeferred();
    expect(handled).to.deep.equal([1, 2]);
  });
});
