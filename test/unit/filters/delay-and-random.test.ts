import { expect } from "chai";
import { DepartureScheduler, frameDelayMs, nextDeparture } from "../../../src/domain/filters/delay.js";
import { SeededRandom, chance, uniformInt } from "../../../src/domain/filters/random.js";

describe("Departure scheduling (one direction)", () => {
  it("sends each frame after its own delay when nothing is ahead of it (no head-of-line build-up)", () => {
    const s = new DepartureScheduler();
    // a burst of 5 frames at t=0 with delay 100 leaves together at 100, not at 100, 200, ... 500
    expect([0, 0, 0, 0, 0].map((t) => s.departure(t, 100))).to.deep.equal([100, 100, 100, 100, 100]);
  });

  it("keeps the order: a frame with a shorter delay waits for the frame before it, but no longer", () => {
    const s = new DepartureScheduler();
    expect(s.departure(0, 80)).to.equal(80);
    expect(s.departure(10, 20)).to.equal(80); // would be 30: held until 80 to stay behind
    expect(s.departure(20, 100)).to.equal(120);
    expect(s.departure(200, 0)).to.equal(200);
    expect(s.lastDeparture).to.equal(200);
  });

  it("starts afresh after reset, and has a functional form", () => {
    const s = new DepartureScheduler();
    s.departure(0, 1000);
    s.reset();
    expect(s.departure(0, 5)).to.equal(5);
    expect(nextDeparture(80, 10, 20)).to.equal(80);
    expect(nextDeparture(Number.NEGATIVE_INFINITY, 10, 20)).to.equal(30);
  });

  it("never makes departures go backwards for any arrivals and delays", () => {
    const r = new SeededRandom(3);
    const s = new DepartureScheduler();
    let arrival = 0;
    let previous = Number.NEGATIVE_INFINITY;
    let violations = 0;
    for (let i = 0; i < 10_000; i++) {
      arrival += uniformInt(r, 0, 5);
      const delay = frameDelayMs(20, 20, r);
      const d = s.departure(arrival, delay);
      if (d < previous || d < arrival + delay) violations++;
      previous = d;
    }
    expect(violations).to.equal(0);
  });
});

describe("Frame delay", () => {
  it("is the latency without jitter, and clamps at 0", () => {
    const r = new SeededRandom(1);
    expect(frameDelayMs(100, 0, r)).to.equal(100);
    for (let i = 0; i < 1000; i++) expect(frameDelayMs(0, 3, r)).to.be.within(0, 3);
  });
});

describe("Seeded random source", () => {
  it("repeats the same sequence for the same seed and differs for another seed", () => {
    const a = new SeededRandom(123);
    const b = new SeededRandom(123);
    const c = new SeededRandom(124);
    const xs = Array.from({ length: 10 }, () => a.next());
    expect(Array.from({ length: 10 }, () => b.next())).to.deep.equal(xs);
    expect(Array.from({ length: 10 }, () => c.next())).to.not.deep.equal(xs);
  });

  it("gives numbers in [0, 1), evenly spread", () => {
    const r = new SeededRandom(0);
    const buckets = new Array<number>(10).fill(0);
    let outside = 0;
    for (let i = 0; i < 100_000; i++) {
      const x = r.next();
      if (!(x >= 0 && x < 1)) outside++;
      else buckets[Math.floor(x * 10)]!++;
    }
    expect(outside).to.equal(0);
    for (const n of buckets) expect(n).to.be.within(9_500, 10_500);
  });

  it("decides chance(p) with probability p/100 and draws uniform integers in a closed range", () => {
    const r = new SeededRandom(5);
    expect(chance({ next: () => 0 }, 0)).to.equal(false);
    expect(chance({ next: () => 0.9999 }, 100)).to.equal(true);
    const seen = new Set<number>();
    for (let i = 0; i < 1000; i++) seen.add(uniformInt(r, -2, 2));
    expect([...seen].sort((a, b) => a - b)).to.deep.equal([-2, -1, 0, 1, 2]);
  });
});
