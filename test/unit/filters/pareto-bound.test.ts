import { expect } from "chai";
import fc from "fast-check";
import { PARETO_MAX_DEVIATIONS, PARETO_MIN_DEVIATIONS, distributedDelayMs } from "../../../src/domain/filters/delay.js";
import type { RandomSource } from "../../../src/domain/filters/random.js";
import { FC_SEED } from "../../support/hardening-kit.js";

const RUNS = Number.parseInt(process.env["FC_RUNS"] ?? "500", 10);

/** A source that answers `u` once (the pareto jitter draws one uniform per frame). */
const drawing = (u: number): RandomSource => ({ next: () => u });

/** The largest double below 1: the latest draw a uniform source can give. */
const LAST_BELOW_ONE = 1 - 2 ** -53;

describe("delay_distribution pareto: a tail cut at a documented maximum (ADR 0072)", () => {
  it("never draws a delay later than latency + 4 × jitter, nor earlier than latency − 0.82 × jitter, for any latency, jitter and draw", () => {
    fc.assert(
      fc.property(fc.integer({ min: 0, max: 32767 }), fc.integer({ min: 1, max: 32767 }), fc.double({ min: 0, max: LAST_BELOW_ONE, noNaN: true }), (latency, jitter, u) => {
        const d = distributedDelayMs(latency, jitter, "pareto", drawing(u));
        expect(d).to.be.at.most(latency + PARETO_MAX_DEVIATIONS * jitter + 1e-9);
        expect(d).to.be.at.least(Math.max(0, latency - PARETO_MIN_DEVIATIONS * jitter) - 1e-9);
      }),
      { numRuns: RUNS, seed: FC_SEED, endOnFailure: true },
    );
  });

  it("reaches its maximum at the last draws: one frame in 10⁶ no longer holds the line for 100 jitters", () => {
    expect(PARETO_MAX_DEVIATIONS).to.equal(4);
    expect(distributedDelayMs(100, 1000, "pareto", drawing(LAST_BELOW_ONE))).to.be.closeTo(4100, 1e-6);
    expect(distributedDelayMs(100, 1000, "pareto", drawing(1 - 1e-6))).to.be.closeTo(4100, 1e-6);
    expect(PARETO_MIN_DEVIATIONS).to.be.within(0.82, 0.821);
    expect(distributedDelayMs(1000, 1000, "pareto", drawing(0))).to.be.closeTo(1000 - PARETO_MIN_DEVIATIONS * 1000, 1e-6);
  });
});
