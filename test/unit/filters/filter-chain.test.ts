import { expect } from "chai";
import { FILTER_CHAIN_ORDER, FilterChain, type BpfMatcher } from "../../../src/domain/filters/filter-chain.js";
import type { FilterSettings } from "../../../src/domain/filters/filter-settings.js";
import { type RandomSource, SeededRandom } from "../../../src/domain/filters/random.js";

const FRAME = Uint8Array.from({ length: 64 }, (_, i) => i);

/** A random source that replays the given values (then repeats the last). */
function replay(...values: number[]): RandomSource & { readonly draws: number } {
  let i = 0;
  return {
    next: () => values[Math.min(i++, values.length - 1)]!,
    get draws() {
      return i;
    },
  };
}

function chain(settings: FilterSettings, opts: { suspend?: boolean; random?: RandomSource; bpf?: BpfMatcher } = {}): FilterChain {
  return new FilterChain({
    settings,
    suspend: opts.suspend ?? false,
    random: opts.random ?? new SeededRandom(1),
    ...(opts.bpf !== undefined ? { bpf: opts.bpf } : {}),
  });
}

/** 1-based positions of the dropped frames among n. */
function droppedPositions(c: FilterChain, n: number): number[] {
  const out: number[] = [];
  for (let i = 1; i <= n; i++) if (c.process(FRAME).drop !== undefined) out.push(i);
  return out;
}

describe("Filter chain", () => {
  it("passes every frame unchanged and undelayed when no filter is set", () => {
    const c = chain({});
    expect(c.isPassThrough).to.equal(true);
    const o = c.process(FRAME);
    expect(o.drop).to.equal(undefined);
    expect(o.frame).to.equal(FRAME);
    expect(o.delayMs).to.equal(0);
  });

  describe("suspend", () => {
    it("drops everything with reason suspend, before any other filter runs", () => {
      let bpfCalls = 0;
      const random = replay(0.99);
      const c = chain({ bpf: ["icmp"], frequency_drop: [2], packet_loss: [50] }, {
        suspend: true,
        random,
        bpf: () => (bpfCalls++, false),
      });
      for (let i = 0; i < 10; i++) expect(c.process(FRAME).drop).to.equal("suspend");
      expect(bpfCalls).to.equal(0);
      expect(random.draws).to.equal(0);
    });
  });

  describe("frequency_drop", () => {
    it("with N = 3 drops frames 3, 6, 9 and 12", () => {
      expect(droppedPositions(chain({ frequency_drop: [3] }), 12)).to.deep.equal([3, 6, 9, 12]);
    });

    it("with N = 1 drops every frame and with −1 drops every frame", () => {
      expect(droppedPositions(chain({ frequency_drop: [1] }), 5)).to.deep.equal([1, 2, 3, 4, 5]);
      expect(droppedPositions(chain({ frequency_drop: [-1] }), 5)).to.deep.equal([1, 2, 3, 4, 5]);
    });

    it("with N = 0 drops nothing", () => {
      expect(droppedPositions(chain({ frequency_drop: [0] }), 50)).to.deep.equal([]);
    });

    it("keeps one counter for both directions: alternating directions still drop the global 3rd, 6th, 9th", () => {
      const c = chain({ frequency_drop: [3] });
      const aToB = Uint8Array.of(1, 1, 1, 1, 1, 1, 2, 2, 2, 2, 2, 2, 8, 0);
      const bToA = Uint8Array.of(2, 2, 2, 2, 2, 2, 1, 1, 1, 1, 1, 1, 8, 0);
      const drops: number[] = [];
      for (let i = 1; i <= 9; i++) if (c.process(i % 2 === 1 ? aToB : bToA).drop === "frequency_drop") drops.push(i);
      expect(drops).to.deep.equal([3, 6, 9]);
    });

    it("starts counting again when the chain is rebuilt", () => {
      const c1 = chain({ frequency_drop: [3] });
      c1.process(FRAME);
      c1.process(FRAME);
      expect(droppedPositions(chain({ frequency_drop: [3] }), 3)).to.deep.equal([3]);
    });
  });

  describe("packet_loss", () => {
    it("drops exactly when the random draw falls below p/100 (no off-by-one: p = 0 never, p = 100 always)", () => {
      expect(chain({ packet_loss: [10] }, { random: replay(0.0999) }).process(FRAME).drop).to.equal("packet_loss");
      expect(chain({ packet_loss: [10] }, { random: replay(0.1) }).process(FRAME).drop).to.equal(undefined);
      expect(chain({ packet_loss: [0] }, { random: replay(0) }).process(FRAME).drop).to.equal(undefined);
      expect(chain({ packet_loss: [100] }, { random: replay(0.999999) }).process(FRAME).drop).to.equal("packet_loss");
    });

    for (const p of [1, 10, 33, 50, 90, 99]) {
      it(`drops ${p} % of 100,000 frames, within ±0.5 percentage points`, () => {
        const c = chain({ packet_loss: [p] }, { random: new SeededRandom(p * 7919) });
        let dropped = 0;
        for (let i = 0; i < 100_000; i++) if (c.process(FRAME).drop === "packet_loss") dropped++;
        expect(Math.abs(dropped / 1000 - p)).to.be.below(0.5);
      });
    }
  });

  describe("corrupt", () => {
    for (const p of [1, 25, 50, 75, 99]) {
      it(`alters ${p} % of 100,000 frames, within ±0.5 percentage points, and never drops`, () => {
        const c = chain({ corrupt: [p] }, { random: new SeededRandom(p * 104729) });
        const original = Buffer.from(FRAME);
        let altered = 0;
        let dropped = 0;
        for (let i = 0; i < 100_000; i++) {
          const o = c.process(FRAME);
          if (o.drop !== undefined) dropped++;
          if (!original.equals(o.frame)) altered++;
        }
        expect(dropped).to.equal(0);
        expect(Math.abs(altered / 1000 - p)).to.be.below(0.5);
      });
    }

    it("at 100 % alters every frame that has a payload, and never the input buffer", () => {
      const c = chain({ corrupt: [100] });
      const copy = FRAME.slice();
      for (let i = 0; i < 100; i++) {
        const o = c.process(FRAME);
        expect(o.corrupted).to.equal(true);
        expect(Buffer.from(o.frame).equals(Buffer.from(FRAME))).to.equal(false);
      }
      expect([...FRAME]).to.deep.equal([...copy]);
    });
  });

  describe("delay", () => {
    it("delays every frame by the latency when there is no jitter, without drawing random numbers", () => {
      const random = replay(0.5);
      const c = chain({ delay: [250] }, { random });
      for (let i = 0; i < 5; i++) expect(c.process(FRAME).delayMs).to.equal(250);
      expect(c.process(FRAME).frame).to.equal(FRAME);
      expect(random.draws).to.equal(0);
    });

    it("adds a uniform integer jitter in [−J, +J] that reaches both bounds", () => {
      const c = chain({ delay: [50, 30] }, { random: new SeededRandom(42) });
      const seen = new Set<number>();
      for (let i = 0; i < 20_000; i++) seen.add(c.process(FRAME).delayMs);
      expect([...seen].every(Number.isInteger)).to.equal(true);
      expect([Math.min(...seen), Math.max(...seen), seen.size]).to.deep.equal([20, 80, 61]);
    });

    it("never delays below 0 when the jitter exceeds the latency", () => {
      const c = chain({ delay: [5, 10] }, { random: new SeededRandom(7) });
      let zeros = 0;
      let min = Infinity;
      let max = -Infinity;
      for (let i = 0; i < 21_000; i++) {
        const d = c.process(FRAME).delayMs;
        min = Math.min(min, d);
        max = Math.max(max, d);
        if (d === 0) zeros++;
      }
      expect([min, max]).to.deep.equal([0, 15]);
      // draws −10..−5 (6 of 21 values) all clamp to 0
      expect(zeros / 21_000).to.be.within(0.26, 0.31);
    });
  });

  describe("bpf", () => {
    it("drops a frame the matcher matches and passes the others", () => {
      const isArp: BpfMatcher = (f) => f[12] === 0x08 && f[13] === 0x06;
      const c = chain({ bpf: ["arp"] }, { bpf: isArp });
      const arp = FRAME.slice();
      arp.set([0x08, 0x06], 12);
      expect(c.process(arp).drop).to.equal("bpf");
      expect(c.process(FRAME).drop).to.equal(undefined);
    });

    it("refuses to build a chain with bpf expressions but no compiled matcher", () => {
      expect(() => chain({ bpf: ["icmp"] })).to.throw(/matcher/);
    });

    it("ignores a matcher when the settings hold no bpf expression", () => {
      expect(chain({ bpf: [" \n "] }, { bpf: () => true }).process(FRAME).drop).to.equal(undefined);
    });
  });

  describe("order", () => {
    it("is suspend, match, bpf, frequency_drop, packet_loss, burst_loss, corrupt, duplicate, bandwidth, reorder, delay", () => {
      expect(FILTER_CHAIN_ORDER).to.deep.equal(["suspend", "match", "bpf", "frequency_drop", "packet_loss", "burst_loss", "corrupt", "duplicate", "bandwidth", "reorder", "delay"]);
    });

    it("does not advance the frequency counter for frames bpf dropped", () => {
      const dropOdd: BpfMatcher = (f) => f[0] === 1;
      const c = chain({ frequency_drop: [2], bpf: ["x"] }, { bpf: dropOdd });
      const odd = Uint8Array.of(1, ...FRAME.subarray(1));
      const reasons = [odd, FRAME, odd, FRAME, odd, FRAME, FRAME].map((f) => c.process(f).drop);
      expect(reasons).to.deep.equal(["bpf", undefined, "bpf", "frequency_drop", "bpf", undefined, "frequency_drop"]);
    });

    it("stops at the first drop: a frame lost to packet_loss is neither corrupted nor delayed", () => {
      // draws: loss check 0.0 → dropped; next frame: loss 0.9 → kept, corrupt 0.0 → corrupted, jitter 0.5
      const random = replay(0.0, 0.9, 0.0, 0.5);
      const c = chain({ delay: [10, 2], corrupt: [50], packet_loss: [50] }, { random });
      const first = c.process(FRAME);
      expect([first.drop, first.corrupted, first.delayMs]).to.deep.equal(["packet_loss", false, 0]);
      expect(random.draws).to.equal(1);
      const second = c.process(FRAME);
      expect([second.drop, second.corrupted, second.delayMs]).to.deep.equal([undefined, true, 10]);
    });

    it("does not depend on the order of the settings' keys", () => {
      const a = chain({ packet_loss: [30], frequency_drop: [4], corrupt: [20] }, { random: new SeededRandom(9) });
      const b = chain({ corrupt: [20], frequency_drop: [4], packet_loss: [30] }, { random: new SeededRandom(9) });
      for (let i = 0; i < 1000; i++) {
        const x = a.process(FRAME);
        const y = b.process(FRAME);
        expect([x.drop, Buffer.from(x.frame).toString("hex")]).to.deep.equal([y.drop, Buffer.from(y.frame).toString("hex")]);
      }
    });
  });
});
