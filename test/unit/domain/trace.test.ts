import { expect } from "chai";
import fc from "fast-check";
import { CapacityTraceLink, type CapacityTrace, TRACE_LIMITS, type ValueTrace, ValueTracePlayer, isTraceName, meanCapacityKbps, parseTrace, traceDurationMs, valueAt } from "../../../src/domain/traces/trace.js";

const capacity = (text: string): CapacityTrace => {
  const read = parseTrace(text);
  if (!read.ok || read.trace.kind !== "capacity") throw new Error(`not a capacity trace: ${JSON.stringify(read)}`);
  return read.trace;
};
const values = (text: string): ValueTrace => {
  const read = parseTrace(text);
  if (!read.ok || read.trace.kind !== "values") throw new Error(`not a value trace: ${JSON.stringify(read)}`);
  return read.trace;
};
const problemOf = (text: string): unknown => {
  const read = parseTrace(text);
  if (read.ok) throw new Error("parsed");
  return read.problem;
};
/** A full-size frame: 1,500 bytes of IP packet behind a 14-byte Ethernet header, one opportunity. */
const FULL = 1514;

describe("trace parsing (ADR 0103)", () => {
  it("reads Mahimahi's format: one integer ms per line, repeated lines several opportunities, looping at the last timestamp", () => {
    const trace = capacity("1\n1\n3\n7\n");
    expect(trace.opportunitiesMs).to.deep.equal([1, 1, 3, 7]);
    expect(trace.periodMs).to.equal(7);
    expect(traceDurationMs(trace)).to.equal(7);
  });

  it("reads CRLF lines and a trace without a final newline", () => {
    expect(capacity("0\r\n5\r\n10").opportunitiesMs).to.deep.equal([0, 5, 10]);
  });

  it("answers a mean capacity of 12 Mbit/s for one opportunity per ms", () => {
    const trace = capacity(Array.from({ length: 1000 }, (_, i) => String(i + 1)).join("\n"));
    expect(meanCapacityKbps(trace)).to.equal(12_000);
  });

  it("refuses a decreasing timestamp, naming its line", () => {
    expect(problemOf("1\n5\n4\n")).to.deep.equal({ problem: "decreasing", line: 3, ms: 4, previousMs: 5 });
  });

  it("refuses a trace that lasts no time, as Mahimahi does", () => {
    expect(problemOf("0\n0\n")).to.deep.equal({ problem: "no_duration" });
  });

  it("refuses an empty text", () => {
    expect(problemOf("\n")).to.deep.equal({ problem: "empty" });
  });

  it("refuses a blank line inside the trace, naming it", () => {
    expect(problemOf("1\n\n2\n")).to.deep.include({ problem: "bad_line", line: 2 });
  });

  it("refuses a line that is not a number, naming it", () => {
    expect(problemOf("1\n2\nthree\n")).to.deep.include({ problem: "bad_line", line: 3 });
  });

  it("refuses a timestamp beyond the bound", () => {
    expect(problemOf(`1\n${TRACE_LIMITS.maxMs + 1}\n`)).to.deep.equal({ problem: "too_late", line: 2, ms: TRACE_LIMITS.maxMs + 1, limit: TRACE_LIMITS.maxMs });
  });

  it("refuses a text beyond the size bound before reading it", () => {
    expect(problemOf("1\n".repeat(TRACE_LIMITS.textChars / 2 + 1))).to.deep.include({ problem: "too_large" });
  });

  it("reads a value trace of `<ms> <value>` lines, looping at a lone last timestamp", () => {
    const trace = values("0 20\n5000 80.5\n10000\n");
    expect(trace).to.deep.equal({ kind: "values", atMs: [0, 5000], values: [20, 80.5], periodMs: 10000 });
    expect(traceDurationMs(trace)).to.equal(10000);
  });

  it("reads a value trace without a loop: its last value stays", () => {
    const trace = values("0 1\n100 2");
    expect(trace.periodMs).to.equal(undefined);
    expect(valueAt(trace, 1e9)).to.equal(2);
  });

  it("refuses a value trace that does not start at 0", () => {
    expect(problemOf("10 5\n20 6\n")).to.deep.equal({ problem: "first_not_zero", ms: 10 });
  });

  it("refuses a value trace whose times do not grow", () => {
    expect(problemOf("0 5\n20 6\n20 7\n")).to.deep.equal({ problem: "not_increasing", line: 3, ms: 20, previousMs: 20 });
  });

  it("refuses a value beyond the bound, and a negative one as a bad line", () => {
    expect(problemOf("0 5\n20 700000\n")).to.deep.include({ problem: "value_out_of_range", line: 2 });
    expect(problemOf("0 5\n20 -1\n")).to.deep.include({ problem: "bad_line", line: 2 });
  });

  it("refuses a line mixing the two forms", () => {
    expect(problemOf("0 5\n20\n30 1\n")).to.deep.include({ problem: "bad_line", line: 2 });
    expect(problemOf("0\n20 1\n")).to.deep.include({ problem: "bad_line", line: 2 });
  });

  it("takes names that are safe file names only", () => {
    for (const good of ["Verizon-LTE-short.down", "a", "x_1"]) expect(isTraceName(good), good).to.equal(true);
    for (const bad of ["", ".hidden", "../x", "a/b", "a b", "x".repeat(129), 3]) expect(isTraceName(bad), String(bad)).to.equal(false);
  });
});

describe("a value trace looked up at a time", () => {
  const trace = values("0 20\n5000 80\n10000\n");
  it("is piecewise constant and loops", () => {
    expect([0, 4999, 5000, 9999, 10000, 15001].map((t) => valueAt(trace, t))).to.deep.equal([20, 20, 80, 80, 20, 80]);
  });
  it("starts at the first frame that asks", () => {
    const player = new ValueTracePlayer(trace);
    expect(player.valueAt(1000)).to.equal(20);
    expect(player.valueAt(6000)).to.equal(80);
    expect(player.positionMs(12000)).to.equal(1000);
  });
});

describe("a link replaying a capacity trace (Mahimahi's semantics)", () => {
  it("delivers a full-size frame at the first opportunity strictly after it arrived", () => {
    const link = new CapacityTraceLink(capacity("5\n10\n"), 100);
    // Time starts at the first frame (t=1000): opportunities at 1005, 1010, 1015, ...
    expect(link.admit(FULL, 1000)).to.equal(5);
    expect(link.admit(FULL, 1000)).to.equal(10);
    expect(link.admit(FULL, 1000)).to.equal(15);
  });

  it("lets frames smaller than an opportunity share it: the bytes a frame leaves go to the next", () => {
    const link = new CapacityTraceLink(capacity("1\n2\n"), 100);
    // 3 frames of 500 IP bytes fill one 1,500-byte opportunity; the 4th waits for the next.
    const at = [0, 0, 0, 0].map(() => link.admit(514, 0));
    expect(at).to.deep.equal([1, 1, 1, 2]);
  });

  it("loses the unused bytes of an opportunity no frame waited for", () => {
    const link = new CapacityTraceLink(capacity("1\n2\n3\n"), 100);
    expect(link.admit(514, 0)).to.equal(1);
    // Arrives after opportunity 1: its surplus is gone; it goes at 2.
    expect(link.admit(514, 1.5)).to.equal(0.5);
  });

  it("spreads a frame larger than an opportunity over the next ones", () => {
    const link = new CapacityTraceLink(capacity("1\n2\n3\n4\n"), 100);
    // 4,000 bytes of packet: opportunities 1, 2 and 1,000 bytes of 3; the next 500-byte frame fits in 3's rest.
    expect(link.admit(4014, 0)).to.equal(3);
    expect(link.admit(514, 0)).to.equal(3);
    expect(link.admit(14 + 1, 0)).to.equal(4);
  });

  it("loops after its last timestamp", () => {
    const link = new CapacityTraceLink(capacity("10\n"), 100);
    expect([0, 0, 0].map(() => link.admit(FULL, 0))).to.deep.equal([10, 20, 30]);
  });

  it("skips an idle gap: a frame after a long silence waits for the next opportunity of the loop it is in", () => {
    const link = new CapacityTraceLink(capacity("100\n200\n1000\n"), 100);
    link.admit(FULL, 0);
    // 5,250 ms in: the loop of 1,000 ms is at 250: next opportunity at 5,000 + 1,000.
    expect(link.admit(FULL, 5250)).to.equal(750);
    expect(link.positionMs(5250)).to.equal(250);
  });

  it("drops a frame when the queue holds its bound of frames not yet delivered, and takes frames again as they leave", () => {
    const link = new CapacityTraceLink(capacity("10\n"), 2);
    expect(link.admit(FULL, 0)).to.equal(10);
    expect(link.admit(FULL, 0)).to.equal(20);
    expect(link.admit(FULL, 0)).to.equal(undefined);
    expect(link.waiting(10)).to.equal(1);
    expect(link.admit(FULL, 10)).to.equal(20);
  });

  it("keeps its position and queue when a chain that replays the same trace takes over", () => {
    const trace = capacity("10\n");
    const old = new CapacityTraceLink(trace, 10);
    old.admit(FULL, 0);
    const next = new CapacityTraceLink(trace, 10).resumeFrom(old);
    expect(next.admit(FULL, 0)).to.equal(20);
    expect(new CapacityTraceLink(capacity("10\n"), 10).resumeFrom(old).admit(FULL, 0)).to.equal(10);
  });

  it("delivers, over whole loops of a saturated link, exactly the trace's opportunities (property)", () => {
    fc.assert(
      fc.property(fc.array(fc.integer({ min: 0, max: 50 }), { minLength: 1, maxLength: 40 }), fc.integer({ min: 1, max: 4 }), (gaps, loops) => {
        let t = 0;
        const stamps = gaps.map((g) => (t += g));
        if (t === 0) return;
        const trace = capacity(stamps.join("\n"));
        const link = new CapacityTraceLink(trace, 1_000_000);
        const frames = stamps.length * loops;
        let last = 0;
        for (let i = 0; i < frames; i++) {
          const wait = link.admit(FULL, 0) as number;
          expect(wait).to.be.at.least(last);
          last = wait;
        }
        // The saturated link's last frame leaves at the last opportunity of the loops it used
        // (opportunities at time 0 of the first loop are not strictly after the first frame).
        const skipped = stamps.filter((s) => s === 0).length;
        const end = Math.floor((frames + skipped - 1) / stamps.length) * trace.periodMs + (stamps[(frames + skipped - 1) % stamps.length] as number);
        expect(last).to.equal(end);
      }),
    );
  });
});

describe("a trace's position as plain data, for a node that moves to another thread (ADR 0103, issue 29)", () => {
  /** Admits frames of `bytes` (with their Ethernet header) at each time, and answers each one's delivery time ("dropped" past the queue bound). */
  const deliveries = (link: CapacityTraceLink, frames: readonly (readonly [number, number])[]): (number | "dropped")[] =>
    frames.map(([bytes, at]) => {
      const wait = link.admit(bytes, at);
      return wait === undefined ? "dropped" : at + wait;
    });

  it("a capacity link built from another's state delivers the next frames exactly as the one it was taken from would have", () => {
    fc.assert(
      fc.property(
        fc.array(fc.integer({ min: 1, max: 40 }), { minLength: 1, maxLength: 6 }),
        fc.array(fc.tuple(fc.integer({ min: 60, max: 4000 }), fc.integer({ min: 0, max: 30 })), { minLength: 1, maxLength: 12 }),
        fc.array(fc.tuple(fc.integer({ min: 60, max: 4000 }), fc.integer({ min: 0, max: 30 })), { minLength: 1, maxLength: 12 }),
        (steps, first, second) => {
          let t = 0;
          const trace = capacity(steps.map((s) => `${(t += s)}\n`).join(""));
          const stayed = new CapacityTraceLink(trace, 8);
          let now = 1_000;
          const times = (frames: readonly (readonly [number, number])[]) => frames.map(([bytes, gap]) => [bytes, (now += gap)] as const);
          const before = times(first);
          deliveries(stayed, before);
          const moved = new CapacityTraceLink(trace, 8).takeUp(structuredClone(stayed.state()!));
          const after = times(second);
          expect(deliveries(moved, after)).to.deep.equal(deliveries(stayed, after));
          expect(moved.positionMs(now)).to.equal(stayed.positionMs(now));
        },
      ),
    );
  });

  it("a capacity link has no state before its first frame", () => {
    expect(new CapacityTraceLink(capacity("10\n"), 4).state()).to.equal(undefined);
  });

  it("takes up frames waiting only up to its own queue bound", () => {
    const big = new CapacityTraceLink(capacity("10\n"), 10);
    for (let i = 0; i < 6; i++) big.admit(1514, 0);
    const small = new CapacityTraceLink(capacity("10\n"), 2).takeUp(big.state()!);
    expect(small.waiting(0)).to.equal(2);
    expect(small.admit(1514, 0), "its queue is full").to.equal(undefined);
  });

  it("leaves out a state of another trace, or whose values are no position, and starts afresh at its next frame", () => {
    const from = new CapacityTraceLink(capacity("10\n20\n"), 4);
    from.admit(1514, 1_000);
    const state = from.state()!;
    for (const [what, bad] of [
      ["another period", { ...state, periodMs: 30 }],
      ["another number of opportunities", { ...state, opportunities: 3 }],
      ["a start that is no time", { ...state, startMs: Number.NaN }],
      ["an opportunity before the first", { ...state, cursor: -2 }],
      ["an opportunity that is not a whole number", { ...state, cursor: 0.5 }],
      ["more bytes left than an opportunity carries", { ...state, leftBytes: 1501 }],
      ["bytes left below none", { ...state, leftBytes: -1 }],
      ["delivery times out of order", { ...state, deliveriesMs: [1_020, 1_010] }],
      ["a delivery time that is no time", { ...state, deliveriesMs: [Number.NaN] }],
    ] as const) {
      const link = new CapacityTraceLink(capacity("10\n20\n"), 4).takeUp(bad);
      expect(link.state(), what).to.equal(undefined);
    }
  });

  it("a value trace goes on from its start elsewhere, and a start that is no time is left out", () => {
    const trace = values("0 1\n100 2\n200\n");
    const stayed = new ValueTracePlayer(trace);
    stayed.valueAt(1_000);
    const moved = new ValueTracePlayer(trace).takeUp(stayed.startedAtMs as number);
    expect([moved.positionMs(1_150), moved.valueAt(1_150)]).to.deep.equal([150, 2]);
    for (const bad of [Number.NaN, Number.POSITIVE_INFINITY]) {
      const fresh = new ValueTracePlayer(trace).takeUp(bad);
      expect(fresh.startedAtMs).to.equal(undefined);
    }
  });
});
