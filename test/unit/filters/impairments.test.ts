import { expect } from "chai";
import * as E from "fp-ts/lib/Either.js";
import { FilterChain } from "../../../src/domain/filters/filter-chain.js";
import { type FilterSettings, parseFilterSettings } from "../../../src/domain/filters/filter-settings.js";
import { Shaper } from "../../../src/domain/filters/bandwidth.js";
import { GilbertElliott } from "../../../src/domain/filters/burst-loss.js";
import { SeededRandom } from "../../../src/domain/filters/random.js";

const frameOf = (bytes: number): Uint8Array => new Uint8Array(bytes);
const chain = (settings: FilterSettings, seed = 7): FilterChain => new FilterChain({ settings, suspend: false, random: new SeededRandom(seed) });

describe("netemu's impairments beyond GNS3's five (ADR 0050)", () => {
  describe("bandwidth: a rate limit per direction with a bounded queue", () => {
    it("sends back-to-back frames one transmission time apart, and drops what would wait longer than the queue", () => {
      // 1000-byte frames at 8,000 kbit/s take 1 ms each; a 5 ms queue holds the frames that start within 5 ms.
      const shaper = new Shaper(8000, 5);
      const leaves = Array.from({ length: 8 }, () => shaper.admit(1000, 100));
      expect(leaves).to.deep.equal([1, 2, 3, 4, 5, 6, undefined, undefined]);
      expect(shaper.admit(1000, 106), "the transmitter is free again at 106 ms").to.equal(1);
    });

    it("holds the rate over a long run whatever is offered: 10 s at twice the rate passes the rate's bytes, within 0.5 %", () => {
      const c = chain({ bandwidth: [2000, 100] });
      const frame = frameOf(500);
      let passedBytes = 0;
      let dropped = 0;
      // 1,000 frames/s of 500 B = 4,000 kbit/s offered to a 2,000 kbit/s limit.
      for (let t = 0; t < 10_000; t++) {
        const o = c.process(frame, "egress", t);
        if (o.drop === "bandwidth") dropped++;
        else if (o.delayMs + t <= 10_000) passedBytes += frame.length;
      }
      const kbps = (passedBytes * 8) / 10_000;
      expect(kbps).to.be.within(2000 * 0.995, 2000 * 1.005);
      expect(dropped / 10_000).to.be.within(0.49, 0.51);
    });

    it("counts whole frames: a frame twice as long takes twice as long", () => {
      const c = chain({ bandwidth: [1000] });
      expect(c.process(frameOf(125), "egress", 0).delayMs).to.equal(1);
      expect(c.process(frameOf(250), "egress", 10).delayMs).to.equal(2);
    });

    it("gives each direction its own transmitter: a full ingress queue does not slow egress", () => {
      const c = chain({ bandwidth: [800, 10] });
      for (let i = 0; i < 20; i++) c.process(frameOf(1000), "ingress", 0);
      expect(c.process(frameOf(1000), "ingress", 0).drop).to.equal("bandwidth");
      expect(c.process(frameOf(1000), "egress", 0)).to.deep.include({ drop: undefined, delayMs: 10 });
    });

    it("adds the delay filter's latency after the frame is sent", () => {
      const c = chain({ bandwidth: [8000], delay: [40] });
      expect(c.process(frameOf(1000), "egress", 0).delayMs).to.equal(41);
      expect(c.process(frameOf(1000), "egress", 0).delayMs).to.equal(42);
    });
  });

  describe("burst_loss: the Gilbert-Elliott model (netem's gemodel)", () => {
    /** Loss rate and mean length of the runs of lost frames over `n` frames. */
    function measure(model: GilbertElliott, n: number, seed: number): { loss: number; meanBurst: number } {
      const random = new SeededRandom(seed);
      let lost = 0;
      let bursts = 0;
      let previous = false;
      for (let i = 0; i < n; i++) {
        const l = model.loses(random);
        if (l) lost++;
        if (l && !previous) bursts++;
        previous = l;
      }
      return { loss: lost / n, meanBurst: lost / bursts };
    }

    it("loses p/(p+r) of the frames in bursts of 1/r on average (p 2 %, r 25 %: 7.41 %, 4 frames), over 400,000 frames", () => {
      const { loss, meanBurst } = measure(new GilbertElliott(2, 25, 100, 0), 400_000, 11);
      expect(loss).to.be.within(0.0741 - 0.003, 0.0741 + 0.003);
      expect(meanBurst).to.be.within(4 * 0.95, 4 * 1.05);
    });

    it("loses with each state's own chance: (p·bad + r·good)/(p+r) = 4.63 % for p 2, r 25, bad 50 %, good 1 %", () => {
      const { loss } = measure(new GilbertElliott(2, 25, 50, 1), 400_000, 12);
      expect(loss).to.be.within(0.0463 - 0.002, 0.0463 + 0.002);
    });

    it("drops as burst_loss in the chain, each direction with its own state", () => {
      const c = chain({ burst_loss: [100, 1] });
      // p 100 %: the first frame arrives in the good state (kept) and turns the link bad for the next.
      expect(c.process(frameOf(64), "ingress", 0).drop).to.equal(undefined);
      expect(c.process(frameOf(64), "ingress", 0).drop).to.equal("burst_loss");
      expect(c.process(frameOf(64), "egress", 0).drop, "egress is still good").to.equal(undefined);
    });
  });

  describe("duplicate", () => {
    it("sends the chosen share of frames twice (10 % over 200,000 frames, within 0.3 points)", () => {
      const c = chain({ duplicate: [10] });
      let twice = 0;
      for (let i = 0; i < 200_000; i++) if (c.process(frameOf(64), "egress", 0).copies === 2) twice++;
      expect(twice / 200_000).to.be.within(0.097, 0.103);
    });

    it("queues the copy behind the original under a rate limit, with the same latency", () => {
      const c = chain({ duplicate: [100], bandwidth: [8000], delay: [10] });
      const o = c.process(frameOf(1000), "egress", 0);
      expect([o.copies, o.delayMs, o.copyDelayMs]).to.deep.equal([2, 11, 12]);
    });
  });

  describe("reorder: frames that skip the delay and overtake the held ones (netem's reorder)", () => {
    it("lets the chosen share of frames through without the delay (25 % over 200,000 frames, within 0.3 points)", () => {
      const c = chain({ delay: [50], reorder: [25] });
      let overtaking = 0;
      for (let i = 0; i < 200_000; i++) {
        const o = c.process(frameOf(64), "egress", 0);
        if (o.overtakes) {
          overtaking++;
          expect(o.delayMs).to.equal(0);
        } else expect(o.delayMs).to.equal(50);
      }
      expect(overtaking / 200_000).to.be.within(0.247, 0.253);
    });

    it("does nothing without a delay, and still waits for the rate limit", () => {
      expect(chain({ reorder: [100] }).process(frameOf(64), "egress", 0).overtakes).to.equal(false);
      const o = chain({ reorder: [100], delay: [50], bandwidth: [8000] }).process(frameOf(1000), "egress", 0);
      expect([o.overtakes, o.delayMs]).to.deep.equal([true, 1]);
    });
  });

  describe("delay_distribution: the jitter drawn from netem's distributions", () => {
    /** Mean, standard deviation, minimum and median of `n` delays. */
    function moments(settings: FilterSettings, n: number): { mean: number; sd: number; min: number; max: number; median: number } {
      const c = chain(settings, 21);
      const xs = Array.from({ length: n }, () => c.process(frameOf(64), "egress", 0).delayMs).sort((a, b) => a - b);
      const mean = xs.reduce((a, b) => a + b, 0) / n;
      const sd = Math.sqrt(xs.reduce((a, b) => a + (b - mean) ** 2, 0) / n);
      return { mean, sd, min: xs[0] as number, max: xs[n - 1] as number, median: xs[Math.floor(n / 2)] as number };
    }

    it("normal: the latency as mean and the jitter as standard deviation (100 ± 10 ms over 200,000 frames)", () => {
      const m = moments({ delay: [100, 10], delay_distribution: ["normal"] }, 200_000);
      expect(m.mean).to.be.within(99.9, 100.1);
      expect(m.sd).to.be.within(9.9, 10.1);
      expect(m.median).to.be.within(99.8, 100.2);
    });

    it("pareto: the same mean and deviation, a floor below the mean and a long tail above it, cut at 4 jitters", () => {
      const m = moments({ delay: [100, 10], delay_distribution: ["pareto"] }, 400_000);
      expect(m.mean).to.be.within(99.8, 100.2);
      expect(m.sd).to.be.within(9.8, 10.2);
      // Pareto(3) cut and scaled (ADR 0072): nothing below 100 − 10 × 0.8202 = 91.80 ms, nothing above 140 ms; the median is under the mean.
      expect(m.min).to.be.at.least(91.79);
      expect(m.max).to.be.at.most(140 + 1e-9);
      expect(m.max, "the cut is reached").to.be.above(139.99);
      expect(m.median).to.be.below(99);
    });

    it("uniform is GNS3's: an integer within ± jitter", () => {
      const m = moments({ delay: [100, 10], delay_distribution: ["uniform"] }, 50_000);
      expect(m.min).to.equal(90);
      expect(m.mean).to.be.within(99.8, 100.2);
    });
  });

  describe("correlation: delay_correlation and loss_correlation", () => {
    /** Pearson's lag-1 correlation of a series. */
    function lag1(xs: readonly number[]): number {
      const n = xs.length;
      const mean = xs.reduce((a, b) => a + b, 0) / n;
      let num = 0;
      let den = 0;
      for (let i = 0; i < n; i++) {
        den += ((xs[i] as number) - mean) ** 2;
        if (i > 0) num += ((xs[i] as number) - mean) * ((xs[i - 1] as number) - mean);
      }
      return num / den;
    }
    const delays = (settings: FilterSettings, n: number): number[] => {
      const c = chain(settings, 31);
      return Array.from({ length: n }, () => c.process(frameOf(64), "egress", 0).delayMs);
    };

    it("makes each normal jitter follow the last (ρ 0.8 → lag-1 correlation 0.8 ± 0.02) and keeps its mean and deviation, over 200,000 frames", () => {
      const xs = delays({ delay: [100, 10], delay_distribution: ["normal"], delay_correlation: [80] }, 200_000);
      expect(lag1(xs)).to.be.within(0.78, 0.82);
      const mean = xs.reduce((a, b) => a + b, 0) / xs.length;
      const sd = Math.sqrt(xs.reduce((a, b) => a + (b - mean) ** 2, 0) / xs.length);
      expect(mean).to.be.within(99.7, 100.3);
      expect(sd).to.be.within(9.7, 10.3);
    });

    it("correlates GNS3's uniform jitter too, keeping it within ± jitter around the latency", () => {
      const xs = delays({ delay: [100, 10], delay_correlation: [90] }, 100_000);
      expect(lag1(xs)).to.be.above(0.8);
      expect(Math.min(...xs)).to.equal(90);
      expect(Math.max(...xs)).to.equal(110);
      expect(lag1(delays({ delay: [100, 10] }, 100_000)), "uncorrelated without it").to.be.within(-0.02, 0.02);
    });

    it("correlates duplicate, reorder and corrupt the same way, each keeping its rate (20 %, ρ 60 %: 20 %, 68 % after a yes)", () => {
      for (const [kind, hit] of [
        ["duplicate", (o: { copies: number }) => o.copies === 2],
        ["reorder", (o: { overtakes: boolean }) => o.overtakes],
        ["corrupt", (o: { corrupted: boolean }) => o.corrupted],
      ] as const) {
        const settings = { [kind]: [20], [`${kind}_correlation`]: [60], ...(kind === "reorder" ? { delay: [10] } : {}) } as FilterSettings;
        const c = chain(settings, 43);
        let yes = 0;
        let afterYes = 0;
        let yesAfterYes = 0;
        let previous = false;
        for (let i = 0; i < 200_000; i++) {
          const y = (hit as (o: unknown) => boolean)(c.process(frameOf(128), "egress", 0));
          if (y) yes++;
          if (previous) {
            afterYes++;
            if (y) yesAfterYes++;
          }
          previous = y;
        }
        expect(yes / 200_000, kind).to.be.within(0.195, 0.205);
        expect(yesAfterYes / afterYes, kind).to.be.within(0.66, 0.70);
      }
    });

    it("keeps packet loss at its rate and makes a loss follow a loss more often (p 10 %, ρ 50 %: 10 % lost, 55 % after a loss)", () => {
      const c = chain({ packet_loss: [10], loss_correlation: [50] }, 41);
      let lost = 0;
      let afterLoss = 0;
      let lostAfterLoss = 0;
      let previous = false;
      for (let i = 0; i < 400_000; i++) {
        const l = c.process(frameOf(64), "egress", 0).drop === "packet_loss";
        if (l) lost++;
        if (previous) {
          afterLoss++;
          if (l) lostAfterLoss++;
        }
        previous = l;
      }
      expect(lost / 400_000).to.be.within(0.097, 0.103);
      expect(lostAfterLoss / afterLoss).to.be.within(0.53, 0.57);
    });
  });

  describe("match: a link end's filters act only on the frames a pcap-filter expression matches", () => {
    const isOdd = (f: Uint8Array): boolean => (f[0] as number) % 2 === 1;
    const classified = (settings: FilterSettings): FilterChain => new FilterChain({ settings: { match: ["x"], ...settings }, suspend: false, random: new SeededRandom(3), classify: isOdd });
    const odd = Uint8Array.of(1, 2, 3);
    const even = Uint8Array.of(2, 2, 3);

    it("lets the other frames pass untouched, and impairs the matching ones", () => {
      const c = classified({ packet_loss: [100] });
      expect(c.process(even, "egress", 0)).to.deep.include({ drop: undefined, delayMs: 0 });
      expect(c.process(odd, "egress", 0).drop).to.equal("packet_loss");
      const d = classified({ delay: [30] });
      expect(d.process(even, "egress", 0).delayMs).to.equal(0);
      expect(d.process(odd, "egress", 0).delayMs).to.equal(30);
    });

    it("counts only the matching frames for frequency_drop", () => {
      const c = classified({ frequency_drop: [2] });
      const drops = [odd, even, even, odd, even, odd, odd].map((f) => c.process(f, "egress", 0).drop);
      expect(drops).to.deep.equal([undefined, undefined, undefined, "frequency_drop", undefined, undefined, "frequency_drop"]);
    });

    it("does not scope suspend: a suspended link end drops everything", () => {
      const c = new FilterChain({ settings: { match: ["x"], delay: [5] }, suspend: true, random: new SeededRandom(3), classify: isOdd });
      expect(c.process(even, "egress", 0).drop).to.equal("suspend");
    });

    it("needs its compiled matcher", () => {
      expect(() => new FilterChain({ settings: { match: ["tcp"], delay: [5] }, suspend: false, random: new SeededRandom(3) })).to.throw(/match expressions but no compiled matcher/);
    });
  });

  describe("validation, in GNS3's wire shape", () => {
    const parsed = (raw: Record<string, unknown>) => parseFilterSettings(raw);
    it("takes a rate with or without its queue, the two state chances with or without their losses, and a chance", () => {
      expect(parsed({ bandwidth: [10_000] })).to.deep.equal(E.right({ bandwidth: [10_000] }));
      expect(parsed({ bandwidth: [10_000, 200], burst_loss: [1, 30], duplicate: [5] })).to.deep.equal(E.right({ bandwidth: [10_000, 200], burst_loss: [1, 30], duplicate: [5] }));
      expect(parsed({ burst_loss: [1, 30, 80, 2] })).to.deep.equal(E.right({ burst_loss: [1, 30, 80, 2] }));
      expect(parsed({ reorder: [25], delay_distribution: [" pareto\n"] })).to.deep.equal(E.right({ reorder: [25], delay_distribution: ["pareto"] }));
    });

    it("reads a first value of 0 as off, as GNS3 does for its five", () => {
      expect(parsed({ bandwidth: [0], burst_loss: [0, 50], duplicate: [0] })).to.deep.equal(E.right({}));
    });

    it("refuses values out of their bounds and wrong counts, naming the parameter", () => {
      const problem = (raw: Record<string, unknown>) => {
        const r = parsed(raw);
        return E.isLeft(r) ? r.left.problem : undefined;
      };
      expect(problem({ bandwidth: [4] })).to.deep.include({ problem: "out_of_range", kind: "bandwidth", got: 4 });
      expect(problem({ bandwidth: [1000, 0] })).to.deep.include({ problem: "out_of_range", kind: "bandwidth", got: 0 });
      expect(problem({ burst_loss: [5] })).to.deep.include({ problem: "value_count", kind: "burst_loss", minimum: 2, got: 1 });
      expect(problem({ burst_loss: [5, 0] })).to.deep.include({ problem: "out_of_range", kind: "burst_loss", got: 0 });
      expect(problem({ duplicate: [101] })).to.deep.include({ problem: "out_of_range", kind: "duplicate", got: 101 });
      expect(problem({ duplicate: [2.555] })).to.deep.include({ problem: "too_fine", kind: "duplicate" });
      expect(problem({ delay_distribution: ["gaussian"] })).to.deep.equal({ problem: "not_a_distribution", got: "gaussian" });
      expect(problem({ match: [7] })).to.deep.equal({ problem: "bpf_not_text", kind: "match", got: 7 });
      expect(problem({ delay_distribution: ["normal", "pareto"] })).to.deep.equal({ problem: "not_a_distribution", got: ["normal", "pareto"] });
    });
  });
});
