import { expect } from "chai";
import * as E from "fp-ts/lib/Either.js";
import { FILTER_CATALOGUE, NETEMU_FILTER_CATALOGUE, type IntParameter } from "../../../src/domain/filters/catalogue.js";
import { FilterChain } from "../../../src/domain/filters/filter-chain.js";
import { type FilterSettings, parseFilterSettings, renderFilterSettings } from "../../../src/domain/filters/filter-settings.js";
import { frameDelayMs } from "../../../src/domain/filters/delay.js";
import { SeededRandom } from "../../../src/domain/filters/random.js";
import { quantityOf, readQuantity } from "../../../src/domain/filters/quantity.js";
import { filterProblemMessage } from "../../../src/adapters/shared/filter-messages.js";

/**
 * netem's granularity (ADR 0101): chances to 0.01 %, times to 1 µs, rates to 1 bit/s, as numbers in the
 * catalogue's unit or as texts with their unit (read as tc reads them); GNS3's integers unchanged.
 */
const parsed = (raw: unknown): FilterSettings => {
  const r = parseFilterSettings(raw);
  if (E.isLeft(r)) throw new Error(filterProblemMessage(r.left.problem));
  return r.right;
};
const refusal = (raw: unknown): string => {
  const r = parseFilterSettings(raw);
  if (E.isRight(r)) throw new Error(`accepted ${JSON.stringify(raw)} as ${JSON.stringify(r.right)}`);
  return filterProblemMessage(r.left.problem);
};
const frame = new Uint8Array(100);

/**
 * The 99.9 % two-sided bounds of a Binomial(n, p) count, by the normal approximation (n·p ≥ 100 here, where
 * it is within a few counts of the exact quantiles): n·p ± 3.29 √(n·p·(1−p)). A seeded source makes the
 * count a fixed number: these bounds say a fair source lands inside them 999 times in 1,000.
 */
function binomialBounds(n: number, p: number): [number, number] {
  const mean = n * p;
  const sd = Math.sqrt(n * p * (1 - p));
  return [mean - 3.29 * sd, mean + 3.29 * sd];
}

describe("netem's granularity in filter values (ADR 0101)", () => {
  describe("what is taken", () => {
    it("takes chances to 0.01 %, as numbers or as texts with %", () => {
      expect(parsed({ packet_loss: [0.5], corrupt: [0.01], duplicate: ["12.34%"], reorder: ["0.5 %"] })).to.deep.equal({ packet_loss: [0.5], corrupt: [0.01], duplicate: [12.34], reorder: [0.5] });
      expect(parsed({ burst_loss: [0.25, "12.5%", 99.99, 0.01] })).to.deep.equal({ burst_loss: [0.25, 12.5, 99.99, 0.01] });
      expect(parsed({ loss_correlation: [25.75] })).to.deep.equal({ loss_correlation: [25.75] });
    });

    it("takes delay and jitter to the µs, as ms with 3 decimals or as times in us, ms or s (tc's words)", () => {
      expect(parsed({ delay: [0.5, 0.001] })).to.deep.equal({ delay: [0.5, 0.001] });
      expect(parsed({ delay: ["500us", "1.5ms"] })).to.deep.equal({ delay: [0.5, 1.5] });
      expect(parsed({ delay: ["250usec", "2usecs"] })).to.deep.equal({ delay: [0.25, 0.002] });
      expect(parsed({ delay: ["1.25s"] })).to.deep.equal({ delay: [1250] });
      expect(parsed({ delay: ["2sec", "3msec"] })).to.deep.equal({ delay: [2000, 3] });
      expect(parsed({ delay: ["7µs"] })).to.deep.equal({ delay: [0.007] });
      expect(parsed({ bandwidth: [1000, "2.5ms"] })).to.deep.equal({ bandwidth: [1000, 2.5] });
    });

    it("takes rates to the bit/s with tc's units: bits in bit, kbit, mbit, gbit; bytes in bps, kbps, mbps, gbps; powers of 1024 in kibit, mibps ...; any case", () => {
      const rate = (text: string): number => (parsed({ bandwidth: [text] }).bandwidth as readonly number[])[0] as number;
      expect(rate("10mbit")).to.equal(10_000);
      expect(rate("10Mbit")).to.equal(10_000);
      expect(rate("1gbit")).to.equal(1_000_000);
      expect(rate("8500bit")).to.equal(8.5);
      expect(rate("64.5kbit")).to.equal(64.5);
      expect(rate("1kbps")).to.equal(8); // tc: kbps is kilobytes per second
      expect(rate("1.25MBps")).to.equal(10_000);
      expect(rate("1gbps")).to.equal(8_000_000);
      expect(rate("1000bps")).to.equal(8);
      expect(rate("8kibit")).to.equal(8.192);
      expect(rate("1mibit")).to.equal(1048.576);
      expect(rate("1gibit")).to.equal(1_073_741.824);
      expect(rate("1kibps")).to.equal(8.192);
      expect(rate("1mibps")).to.equal(8388.608);
      expect(parsed({ bandwidth: [12.345] })).to.deep.equal({ bandwidth: [12.345] });
    });

    it("keeps what it reads as the number in the catalogue's unit: that is what is answered, compared and run", () => {
      expect(renderFilterSettings(parsed({ delay: ["500us"], bandwidth: ["10mbit"], packet_loss: ["0.5%"] }))).to.deep.equal({ packet_loss: [0.5], delay: [0.5], bandwidth: [10_000] });
      // A value read as 0 is off, as the number 0 is.
      expect(parsed({ delay: ["0ms"], packet_loss: ["0%"] })).to.deep.equal({});
    });

    it("answers a GNS3 client's integers byte for byte: every integer chance and a sweep of delays render as sent", () => {
      for (let v = 1; v <= 100; v++) {
        const raw = { packet_loss: [v], corrupt: [v], frequency_drop: [v], delay: [v * 327, v] };
        expect(JSON.stringify(renderFilterSettings(parsed(raw)))).to.equal(JSON.stringify({ frequency_drop: [v], packet_loss: [v], delay: [v * 327, v], corrupt: [v] }));
      }
    });

    it("does not change GNS3's catalogue: its five kinds still publish integer parameters", () => {
      expect(FILTER_CATALOGUE.flatMap((d) => d.parameters.map((p) => p.type))).to.deep.equal(["int", "int", "int", "int", "int", "text"]);
    });

    it("gives every %, ms and kbit/s parameter of the catalogue its granularity, and every other one whole numbers", () => {
      for (const d of [...FILTER_CATALOGUE, ...NETEMU_FILTER_CATALOGUE]) {
        for (const p of d.parameters) {
          if (p.type !== "int") continue;
          const q = quantityOf((p as IntParameter).unit);
          expect(q, `${d.type} ${p.name}`).to.equal(p.unit === "%" ? "percent" : p.unit === "ms" ? "time" : p.unit === "kbit/s" ? "rate" : "count");
        }
      }
      expect(readQuantity(2.5, "count", 0, 10)).to.deep.equal({ problem: "not_an_integer" });
    });
  });

  describe("what is refused, each with a message that names what is wrong", () => {
    const cases: [string, Record<string, unknown[]>, string][] = [
      ["a chance finer than 0.01 % (text)", { packet_loss: ["0.001%"] }, 'Filter packet_loss: Chance is finer than netemu takes (0.01 %), got "0.001%"'],
      ["a chance finer than 0.01 % (number)", { corrupt: [0.005] }, "Filter corrupt: Chance is finer than netemu takes (0.01 %), got 0.005"],
      ["a float that is not a decimal of 2 places", { duplicate: [0.1 + 0.2] }, "Filter duplicate: Chance is finer than netemu takes (0.01 %), got 0.30000000000000004"],
      ["a time finer than 1 µs", { delay: ["1.5us"] }, 'Filter delay: Latency is finer than netemu takes (0.001 ms, 1 µs), got "1.5us"'],
      ["a ms with 4 decimals", { delay: [10, 0.0005] }, "Filter delay: Jitter (-/+) is finer than netemu takes (0.001 ms, 1 µs), got 0.0005"],
      ["a rate finer than 1 bit/s", { bandwidth: ["1.0000001mbit"] }, 'Filter bandwidth: Rate is finer than netemu takes (0.001 kbit/s, 1 bit/s), got "1.0000001mbit"'],
      ["a rate unit tc does not have", { bandwidth: ["10xbit"] }, 'Filter bandwidth: Rate "10xbit" has a unit netemu does not read (xbit); give a number of kbit/s, or a rate with its unit'],
      ["a time unit netemu does not read", { delay: ["5min"] }, 'Filter delay: Latency "5min" has a unit netemu does not read (min); give a number of ms, or a time with its unit: us, ms or s (500us, 1.5ms, 2s)'],
      ["a time without its unit", { delay: ["300"] }, 'Filter delay: Latency "300" is not a time; give a number of ms'],
      ["a rate without its unit (tc would read bytes/s)", { bandwidth: ["1000"] }, 'Filter bandwidth: Rate "1000" is not a rate; give a number of kbit/s'],
      ["a chance without %", { packet_loss: ["0.5"] }, 'Filter packet_loss: Chance "0.5" is not a percentage; give a number of %, or a text such as 0.5%'],
      ["a text that is no number", { delay: ["soon"] }, 'Filter delay: Latency "soon" is not a time'],
      ["an exponent", { delay: ["1e3ms"] }, 'Filter delay: Latency "1e3ms" is not a time'],
      ["a negative number", { packet_loss: [-0.5] }, "Filter packet_loss: Chance must be between 0 and 100 %, got -0.5"],
      ["a negative text", { delay: ["-5ms"] }, 'Filter delay: Latency must be between 0 and 32767 ms, got "-5ms" (-5 ms)'],
      ["a text over the maximum", { delay: ["40s"] }, 'Filter delay: Latency must be between 0 and 32767 ms, got "40s" (40000 ms)'],
      ["a rate under the minimum", { bandwidth: ["1kbit"] }, 'Filter bandwidth: Rate must be between 8 and 10000000 kbit/s, got "1kbit" (1 kbit/s)'],
      ["NaN", { delay: [Number.NaN] }, "Filter delay: Latency must be a number of ms, or a time with its unit: us, ms or s (500us, 1.5ms, 2s), got NaN"],
      ["Infinity", { packet_loss: [Number.POSITIVE_INFINITY] }, "Filter packet_loss: Chance must be a number of %, or a text such as 0.5%, got Infinity"],
      ["null", { delay: [null] }, "Filter delay: Latency must be a number of ms, or a time with its unit: us, ms or s (500us, 1.5ms, 2s), got null"],
      ["a boolean", { bandwidth: [true] }, "Filter bandwidth: Rate must be a number of kbit/s"],
      ["a fraction of a count", { frequency_drop: [2.5] }, "Filter frequency_drop: Frequency must be an integer between -1 and 32767 th packet, got 2.5"],
      ["a text for a count", { frequency_drop: ["3"] }, 'Filter frequency_drop: Frequency must be an integer between -1 and 32767 th packet, got "3"'],
    ];
    for (const [what, raw, message] of cases) {
      it(`refuses ${what}: ${JSON.stringify(raw)}`, () => {
        expect(refusal(raw)).to.include(message);
      });
    }
  });

  describe("values that are exact where exactness is promised (seeded source)", () => {
    const N = 1_000_000;
    const count = (settings: FilterSettings, seed: number, hit: (o: ReturnType<FilterChain["process"]>) => boolean): number => {
      const c = new FilterChain({ settings, suspend: false, random: new SeededRandom(seed) });
      let n = 0;
      for (let i = 0; i < N; i++) if (hit(c.process(frame, "egress", i))) n++;
      return n;
    };

    it("loses 0.5 % of 1,000,000 frames within the binomial 99.9 % bounds (4,768..5,232)", () => {
      const lost = count(parsed({ packet_loss: ["0.5%"] }), 11, (o) => o.drop === "packet_loss");
      expect(lost).to.be.within(...binomialBounds(N, 0.005));
    });

    it("loses 0.01 %, the finest step, within its bounds (67..133 of 1,000,000), and 0.02 % about twice as many", () => {
      expect(count(parsed({ packet_loss: [0.01] }), 12, (o) => o.drop === "packet_loss")).to.be.within(...binomialBounds(N, 0.0001));
      expect(count(parsed({ packet_loss: [0.02] }), 13, (o) => o.drop === "packet_loss")).to.be.within(...binomialBounds(N, 0.0002));
    });

    it("corrupts 0.25 %, duplicates 1.75 % and reorders 12.34 % within their bounds", () => {
      expect(count(parsed({ corrupt: [0.25] }), 14, (o) => o.corrupted)).to.be.within(...binomialBounds(N, 0.0025));
      expect(count(parsed({ duplicate: [1.75] }), 15, (o) => o.copies === 2)).to.be.within(...binomialBounds(N, 0.0175));
      expect(count(parsed({ delay: [1], reorder: ["12.34%"] }), 16, (o) => o.overtakes)).to.be.within(...binomialBounds(N, 0.1234));
    });

    it("holds a 500 µs delay 0.5 ms for every frame, and asks the line to keep the fraction (precise)", () => {
      const c = new FilterChain({ settings: parsed({ delay: ["500us"] }), suspend: false, random: new SeededRandom(1) });
      for (let i = 0; i < 1000; i++) {
        const o = c.process(frame, "egress", i);
        expect(o.delayMs).to.equal(0.5);
        expect(o.precise).to.equal(true);
      }
      const whole = new FilterChain({ settings: parsed({ delay: [5, 1] }), suspend: false, random: new SeededRandom(1) });
      expect(whole.process(frame, "egress", 0).precise, "whole ms keep the timer's ms").to.equal(false);
    });

    it("draws a jitter given to the µs in whole µs, uniform over ±jitter; a jitter in whole ms in whole ms (GNS3's)", () => {
      const random = new SeededRandom(5);
      const draws = Array.from({ length: 200_000 }, () => frameDelayMs(1, 0.25, random));
      const distinct = new Set(draws.map((d) => Math.round(d * 1000)));
      expect(draws.reduce((a, b) => Math.min(a, b))).to.be.at.least(0.75 - 1e-12);
      expect(draws.reduce((a, b) => Math.max(a, b))).to.be.at.most(1.25 + 1e-12);
      expect(distinct.size).to.equal(501);
      const mean = draws.reduce((a, b) => a + b, 0) / draws.length;
      // The mean's standard error: 0.25/√3/√200,000 ≈ 0.00032 ms; 5 of them.
      expect(mean).to.be.within(1 - 0.0017, 1 + 0.0017);
      const wholeDraws = new Set(Array.from({ length: 10_000 }, () => frameDelayMs(10, 2, random)));
      expect([...wholeDraws].sort((a, b) => a - b)).to.deep.equal([8, 9, 10, 11, 12]);
    });

    it("sends at a rate given with its unit: 10mbit sends a 1,250-byte frame in 1 ms, 1kbps (8 kbit/s) a 100-byte frame in 100 ms", () => {
      const fast = new FilterChain({ settings: parsed({ bandwidth: ["10mbit"] }), suspend: false, random: new SeededRandom(1) });
      expect(fast.process(new Uint8Array(1250), "egress", 0).delayMs).to.equal(1);
      const slow = new FilterChain({ settings: parsed({ bandwidth: ["1kbps", "200ms"] }), suspend: false, random: new SeededRandom(1) });
      expect(slow.process(new Uint8Array(100), "egress", 0).delayMs).to.equal(100);
      const odd = new FilterChain({ settings: parsed({ bandwidth: ["8500bit"] }), suspend: false, random: new SeededRandom(1) });
      expect(odd.process(new Uint8Array(17), "egress", 0).delayMs).to.be.closeTo(16, 1e-9);
    });
  });
});
