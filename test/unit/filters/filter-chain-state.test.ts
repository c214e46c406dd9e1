import { expect } from "chai";
import { FilterChain, type FilterChainState } from "../../../src/domain/filters/filter-chain.js";
import type { FilterSettings } from "../../../src/domain/filters/filter-settings.js";
import { SeededRandom } from "../../../src/domain/filters/random.js";
import { EthernetSwitchFabric } from "../../../src/domain/switching/forwarding.js";
import { PortCounters } from "../../../src/domain/switching/port-counters.js";
import { DelayLine } from "../../../src/application/dataplane/delay-line.js";

const chain = (settings: FilterSettings, seed: number): FilterChain => new FilterChain({ settings, suspend: false, random: new SeededRandom(seed) });
const frame = new Uint8Array(100).fill(0x11);

/** What each frame met: dropped (and why) or passed with its delay and whether it was corrupted or copied. */
function fates(c: FilterChain, frames: number, startMs: number): string[] {
  const out: string[] = [];
  for (let i = 0; i < frames; i++) {
    const o = c.process(frame, i % 2 === 0 ? "ingress" : "egress", startMs + i);
    out.push(o.drop ?? `${o.delayMs.toFixed(3)}/${o.corrupted}/${o.copies}/${o.overtakes}/${o.frame[60]}`);
  }
  return out;
}

describe("a filter chain's state, carried to a chain built elsewhere from the same settings (ADR 0069)", () => {
  const everything: FilterSettings = {
    frequency_drop: [7],
    packet_loss: [20],
    loss_correlation: [40],
    burst_loss: [10, 30],
    corrupt: [30],
    corrupt_correlation: [20],
    duplicate: [10],
    bandwidth: [8000, 20],
    reorder: [10],
    delay: [20, 5],
    delay_correlation: [50],
  };

  it("goes on exactly as the original would have, every stage with memory included, after crossing structuredClone", () => {
    const original = chain(everything, 11);
    fates(original, 333, 0);
    const state: FilterChainState = structuredClone(original.state());
    const moved = chain(everything, 99);
    moved.resume(state);
    expect(fates(moved, 500, 333)).to.deep.equal(fates(original, 500, 333));
  });

  it("without the state, a chain of the same settings goes another way (what the test above rules out)", () => {
    const original = chain(everything, 11);
    fates(original, 333, 0);
    expect(fates(chain(everything, 99), 500, 333)).to.not.deep.equal(fates(original, 500, 333));
  });

  it("leaves a stage as it started when the state holds nothing of its kind, and takes no frequency count past its period", () => {
    const c = chain({ frequency_drop: [3] }, 1);
    c.resume({ frequencyCounter: 99, corruptPosition: Number.NaN, fates: { loses: true, corrupts: false, duplicates: false, reorders: false }, random: [1, 2] });
    // Starts its count afresh: the third frame is the one dropped.
    expect(fates(c, 3, 0).map((f) => (f === "frequency_drop" ? "drop" : "pass"))).to.deep.equal(["pass", "pass", "drop"]);
  });

  it("takes no transmitter that would never be free (a time that is no time is left as the chain started it)", () => {
    const c = chain({ bandwidth: [8000] }, 1);
    c.resume({ frequencyCounter: 0, corruptPosition: 0, fates: { loses: false, corrupts: false, duplicates: false, reorders: false }, transmitters: { ingress: Number.POSITIVE_INFINITY, egress: Number.NaN } });
    expect(c.process(frame, "ingress", 0).drop).to.equal(undefined);
    expect(c.process(frame, "egress", 0).drop).to.equal(undefined);
  });
});

describe("a switch's MAC table and a port's counters, carried elsewhere (ADR 0069)", () => {
  it("learns again what it had learned, on the ports attached, oldest first, and leaves out what is out of range", () => {
    const entries = [
      { vlan: 1, mac: 0x0050_7966_6801, port: 1, lastSeenMs: 1000 },
      { vlan: 1, mac: 0x0050_7966_6802, port: 2, lastSeenMs: 2000 },
    ];
    const to = new EthernetSwitchFabric({ agingTimeMs: 300_000, capacity: 8 });
    to.setPort(1, { type: "access", vlan: 1 } as never);
    to.relearn(structuredClone([...entries, { vlan: 1, mac: 0x0050_7966_6803, port: 9, lastSeenMs: 3000 }, { vlan: 5000, mac: 1, port: 1, lastSeenMs: 3000 }, { vlan: 1, mac: -1, port: 1, lastSeenMs: 3000 }]));
    expect(to.learnedEntries()).to.deep.equal([entries[0]]);
  });

  it("counts on from where the port's counters stood, a count that is not one left at zero", () => {
    const from = new PortCounters();
    from.countIn(100);
    from.countInDropped(60, "packet_loss");
    from.countOut(80);
    from.countEgressDrop("bandwidth");
    const to = new PortCounters();
    to.resume(structuredClone(from.snapshot()));
    expect(to.snapshot()).to.deep.equal(from.snapshot());
    const odd = new PortCounters();
    odd.resume({ ...from.snapshot(), framesIn: -3, bytesIn: Number.NaN, ingressDrops: { packet_loss: 2, not_a_reason: 5 } });
    expect(odd.snapshot()).to.deep.include({ framesIn: 0, bytesIn: 0, ingressDrops: { packet_loss: 2 } });
  });
});

describe("a delay line handed over to another thread (ADR 0069)", () => {
  class ManualTimers {
    pending: { at: number; fn: () => void }[] = [];
    constructor(private readonly clock: { now: number }) {}
    setTimeout(fn: () => void, ms: number): unknown {
      const t = { at: this.clock.now + ms, fn };
      this.pending.push(t);
      return t;
    }
    clearTimeout(h: unknown): void {
      this.pending = this.pending.filter((t) => t !== h);
    }
    defer(fn: () => void): void {
      this.setTimeout(fn, 0);
    }
    runUntil(ms: number): void {
      while (this.pending.some((t) => t.at <= ms)) {
        const next = this.pending.sort((a, b) => a.at - b.at).shift()!;
        this.clock.now = next.at;
        next.fn();
      }
      this.clock.now = ms;
    }
  }

  it("gives its frames with their departures, sends nothing more itself, and the line taking them up sends each at its time, in order", () => {
    const clock = { now: 0 };
    const timers = new ManualTimers(clock);
    const sentHere: number[] = [];
    const here = new DelayLine({ nowMs: () => clock.now }, timers, (f) => sentHere.push(f[0] as number));
    here.push(Uint8Array.of(1), 200);
    clock.now = 10;
    here.push(Uint8Array.of(2), 100);
    clock.now = 50;
    const held = structuredClone(here.handOver());
    expect(held.frames.map((f) => [f.frame[0], f.departureMs])).to.deep.equal([[1, 200], [2, 200]]);
    timers.runUntil(1000);
    expect(sentHere).to.deep.equal([]);

    const clock2 = { now: 60 };
    const timers2 = new ManualTimers(clock2);
    const sent: [number, number][] = [];
    const there = new DelayLine({ nowMs: () => clock2.now }, timers2, (f) => sent.push([f[0] as number, clock2.now]));
    there.takeUp(held);
    // A frame pushed after, with a shorter delay, still leaves behind them (the order is kept).
    there.push(Uint8Array.of(3), 10);
    timers2.runUntil(1000);
    expect(sent).to.deep.equal([[1, 200], [2, 200], [3, 200]]);
  });

  it("leaves out a held frame whose departure is no time, and sends the others", () => {
    const clock = { now: 0 };
    const timers = new ManualTimers(clock);
    const sent: number[] = [];
    const line = new DelayLine({ nowMs: () => clock.now }, timers, (f) => sent.push(f[0] as number));
    line.takeUp({ frames: [{ frame: Uint8Array.of(1), departureMs: Number.POSITIVE_INFINITY }, { frame: Uint8Array.of(2), departureMs: 5 }], lastDepartureMs: Number.POSITIVE_INFINITY });
    line.push(Uint8Array.of(3), 1);
    timers.runUntil(100);
    expect(sent).to.deep.equal([2, 3]);
  });
});
