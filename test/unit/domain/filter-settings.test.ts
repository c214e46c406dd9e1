import { expect } from "chai";
import * as E from "fp-ts/lib/Either.js";
import { FILTER_CATALOGUE, type IntParameter } from "../../../src/domain/filters/catalogue.js";
import { normaliseFilters, parseFilterSettings, bpfLines } from "../../../src/domain/filters/filter-settings.js";
import { filterProblemMessage } from "../../../src/adapters/shared/filter-messages.js";

const valuesWith = (kind: string, index: number, value: number): number[] => {
  const d = FILTER_CATALOGUE.find((f) => f.type === kind);
  const params = (d?.parameters ?? []) as IntParameter[];
  // Other parameters at a valid, non-zero value so that normalisation keeps the entry.
  return params.map((p, i) => (i === index ? value : Math.max(p.minimum, 1)));
};

describe("filter settings", () => {
  describe("bounds of every integer parameter", () => {
    for (const descriptor of FILTER_CATALOGUE) {
      descriptor.parameters.forEach((parameter, index) => {
        if (parameter.type !== "int") return;
        const { minimum, maximum } = parameter;
        const kind = descriptor.type;
        // A first value of 0 means "off" and is dropped before validation, so 0 as first value is no test of the minimum.
        const accepted = [minimum, maximum].filter((v) => !(index === 0 && v === 0));
        for (const v of accepted) {
          it(`accepts ${kind} ${parameter.name} = ${v} (${v === minimum ? "minimum" : "maximum"})`, () => {
            const result = parseFilterSettings({ [kind]: valuesWith(kind, index, v) });
            expect(E.isRight(result), JSON.stringify(result)).to.equal(true);
          });
        }
        for (const v of [minimum - 1, maximum + 1]) {
          it(`refuses ${kind} ${parameter.name} = ${v}, naming the filter, the parameter and its bounds`, () => {
            const result = parseFilterSettings({ [kind]: valuesWith(kind, index, v) });
            expect(result).to.deep.equal(E.left({ _tag: "InvalidFilterSettings", problem: { problem: "out_of_range", kind, parameter, got: v } }));
            if (E.isLeft(result)) {
              // A count is a whole number; a %, ms or kbit/s takes decimals (ADR 0101).
              const whole = parameter.unit !== "%" && parameter.unit !== "ms" && parameter.unit !== "kbit/s";
              expect(filterProblemMessage(result.left.problem)).to.equal(
                `Filter ${kind}: ${parameter.name} must be ${whole ? "an integer " : ""}between ${minimum} and ${maximum} ${parameter.unit}, got ${v}`,
              );
            }
          });
        }
      });
    }
  });

  describe("GNS3's normalisation", () => {
    it("drops entries whose first value is 0 or empty, so the web UI's reset clears everything", () => {
      expect(normaliseFilters({ bpf: [], corrupt: [0], delay: [0, 0], frequency_drop: [0], packet_loss: [0] })).to.deep.equal({});
    });

    it("strips spaces and newlines of text values and drops blank bpf text", () => {
      expect(normaliseFilters({ bpf: ["  icmp \n"] })).to.deep.equal({ bpf: ["icmp"] });
      expect(normaliseFilters({ bpf: [" \n  "] })).to.deep.equal({});
    });

    it("keeps delay with zero jitter and a latency alone", () => {
      expect(parseFilterSettings({ delay: [50, 0] })).to.deep.equal(E.right({ delay: [50, 0] }));
      expect(parseFilterSettings({ delay: [50] })).to.deep.equal(E.right({ delay: [50] }));
    });
  });

  describe("what is refused", () => {
    const refuse = (raw: unknown): string => {
      const r = parseFilterSettings(raw);
      if (E.isRight(r)) throw new Error("expected a refusal");
      return filterProblemMessage(r.left.problem);
    };

    it("refuses a filters value that is not an object", () => {
      expect(refuse([])).to.equal("filters must be an object mapping a filter type to its values, got an array");
    });

    it("refuses unknown filter types", () => {
      expect(refuse({ drop: [5] })).to.include("Unknown filter type 'drop'");
    });

    it("refuses a wrong count of values", () => {
      expect(refuse({ delay: [1, 2, 3] })).to.equal("Filter delay takes 1 or 2 value(s) (Latency, Jitter (-/+)), got 3");
      expect(refuse({ corrupt: [1, 2] })).to.equal("Filter corrupt takes 1 value(s) (Chance), got 2");
    });

    it("refuses floats, strings, booleans, null and objects as a count (frequency_drop)", () => {
      for (const [v, shown] of [[1.5, "1.5"], ["5", '"5"'], [true, "true"], [null, "null"], [{}, "an object"]] as const) {
        expect(refuse({ frequency_drop: [v] })).to.equal(`Filter frequency_drop: Frequency must be an integer between -1 and 32767 th packet, got ${shown}`);
      }
    });

    it("refuses texts without a %, booleans, null and objects as a chance, and takes 1.5 (ADR 0101)", () => {
      expect(refuse({ packet_loss: ["5"] })).to.equal('Filter packet_loss: Chance "5" is not a percentage; give a number of %, or a text such as 0.5%');
      for (const [v, shown] of [[true, "true"], [null, "null"], [{}, "an object"]] as const) {
        expect(refuse({ packet_loss: [v] })).to.equal(`Filter packet_loss: Chance must be a number of %, or a text such as 0.5%, got ${shown}`);
      }
      expect(parseFilterSettings({ packet_loss: [1.5] })).to.deep.equal(E.right({ packet_loss: [1.5] }));
    });

    it("refuses bpf values that are not text", () => {
      expect(refuse({ bpf: [5] })).to.equal("Filter bpf: Filters must be text, got 5");
    });

  });

  it("splits bpf text into one expression per non-blank line", () => {
    expect(bpfLines({ bpf: ["icmp\n\ntcp src port 53", "arp"] })).to.deep.equal(["icmp", "tcp src port 53", "arp"]);
  });
});
