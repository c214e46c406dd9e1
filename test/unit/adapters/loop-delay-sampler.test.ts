import { expect } from "chai";
import { LoopDelaySampler, type DelayHistogram } from "../../../src/adapters/threads/data-plane/loop-delay-sampler.js";

/** A histogram that records delays only while enabled, as perf_hooks' does (nanoseconds). */
class FakeHistogram implements DelayHistogram {
  enabled = false;
  switches = 0;
  private delays: number[] = [];

  enable(): boolean {
    this.switches++;
    const was = this.enabled;
    this.enabled = true;
    return !was;
  }
  disable(): boolean {
    this.switches++;
    const was = this.enabled;
    this.enabled = false;
    return was;
  }
  reset(): void {
    this.delays = [];
  }
  /** A sample, kept only while sampling (what the monitor's timer would record). */
  tick(ns: number): void {
    if (this.enabled) this.delays.push(ns);
  }
  get count(): number {
    return this.delays.length;
  }
  get min(): number {
    return this.delays.length === 0 ? 9223372036854775807 : Math.min(...this.delays);
  }
  get max(): number {
    return this.delays.length === 0 ? 0 : Math.max(...this.delays);
  }
  get mean(): number {
    return this.delays.reduce((a, b) => a + b, 0) / this.delays.length;
  }
  percentile(p: number): number {
    const sorted = [...this.delays].sort((a, b) => a - b);
    return sorted[Math.min(sorted.length - 1, Math.ceil((p / 100) * sorted.length) - 1)] ?? 0;
  }
}

describe("a data-plane worker's event-loop delay, sampled while it carries frames (ADR 0113)", () => {
  it("does not sample before a load reading saw frames move", () => {
    const h = new FakeHistogram();
    const sampler = new LoopDelaySampler(h);
    h.tick(10e6);
    expect(sampler.active).to.equal(false);
    expect(h.enabled).to.equal(false);
    expect(sampler.reading().p99Seconds).to.be.NaN;
  });

  it("samples from a reading that saw frames move until one that saw none", () => {
    const h = new FakeHistogram();
    const sampler = new LoopDelaySampler(h);
    sampler.carrying(true);
    h.tick(10e6);
    h.tick(12e6);
    sampler.carrying(false);
    h.tick(500e6);
    expect(h.enabled).to.equal(false);
    expect(sampler.reading()).to.deep.equal({ minSeconds: 0.01, meanSeconds: 0.011, p50Seconds: 0.01, p90Seconds: 0.012, p99Seconds: 0.012, maxSeconds: 0.012 });
  });

  it("turns the monitor on and off only when the worker starts or stops carrying frames", () => {
    const h = new FakeHistogram();
    const sampler = new LoopDelaySampler(h);
    for (const moved of [false, true, true, true, false, false]) sampler.carrying(moved);
    expect(h.switches).to.equal(2);
  });

  it("starts each reading afresh, and reads NaN for every figure when no sample came since the last", () => {
    const h = new FakeHistogram();
    const sampler = new LoopDelaySampler(h);
    sampler.carrying(true);
    h.tick(20e6);
    expect(sampler.reading().maxSeconds).to.equal(0.02);
    expect(Object.values(sampler.reading()).every(Number.isNaN)).to.equal(true);
  });
});
