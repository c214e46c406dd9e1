import { expect } from "chai";
import * as E from "fp-ts/lib/Either.js";
import { FilterChain } from "../../../src/domain/filters/filter-chain.js";
import { type FilterSettings, parseFilterSettings } from "../../../src/domain/filters/filter-settings.js";
import { SeededRandom } from "../../../src/domain/filters/random.js";
import { type CapacityTrace, type ValueTrace, parseTrace } from "../../../src/domain/traces/trace.js";
import { resolveTraces } from "../../../src/application/traces/resolve-traces.js";
import { TraceShelf } from "../../../src/application/traces/trace-shelf.js";

const FULL = new Uint8Array(1514);
const read = <T>(text: string): T => {
  const r = parseTrace(text);
  if (!r.ok) throw new Error(JSON.stringify(r.problem));
  return r.trace as T;
};
const settings = (raw: Record<string, unknown>): FilterSettings => {
  const parsed = parseFilterSettings(raw);
  if (E.isLeft(parsed)) throw new Error(JSON.stringify(parsed.left));
  return parsed.right;
};

describe("the trace kinds in a filter chain (ADR 0103)", () => {
  it("reads capacity_trace as a name and an optional queue bound in frames, and delay_trace and loss_trace as a name", () => {
    expect(settings({ capacity_trace: ["Verizon-LTE-short.down", 500], delay_trace: ["d"], loss_trace: ["l"] })).to.deep.equal({ capacity_trace: ["Verizon-LTE-short.down", 500], delay_trace: ["d"], loss_trace: ["l"] });
  });

  it("refuses a name that is not a safe file name, a queue bound out of range, extra values, and capacity_trace with bandwidth", () => {
    const problem = (raw: Record<string, unknown>) => {
      const parsed = parseFilterSettings(raw);
      return E.isLeft(parsed) ? parsed.left.problem.problem : "parsed";
    };
    expect(problem({ capacity_trace: ["../etc/passwd"] })).to.equal("bad_trace_name");
    expect(problem({ delay_trace: [5] })).to.equal("bad_trace_name");
    expect(problem({ capacity_trace: ["t", 0] })).to.equal("out_of_range");
    expect(problem({ capacity_trace: ["t", 100_001] })).to.equal("out_of_range");
    expect(problem({ loss_trace: ["t", 2] })).to.equal("value_count");
    expect(problem({ capacity_trace: ["t"], bandwidth: [1000] })).to.equal("two_rates");
  });

  it("refuses codel and fq_codel beside capacity_trace, naming both kinds, as the trace's link is tail drop only; tail_drop itself is taken", () => {
    const refused = (raw: Record<string, unknown>) => {
      const parsed = parseFilterSettings(raw);
      return E.isLeft(parsed) ? parsed.left.problem : "parsed";
    };
    expect(refused({ capacity_trace: ["t"], queue_discipline: ["codel target 5ms"] })).to.deep.equal({ problem: "queue_on_trace", kinds: ["queue_discipline", "capacity_trace"], discipline: "codel" });
    expect(refused({ queue_discipline: ["fq_codel"], capacity_trace: ["t", 50] })).to.deep.equal({ problem: "queue_on_trace", kinds: ["queue_discipline", "capacity_trace"], discipline: "fq_codel" });
    expect(settings({ capacity_trace: ["t"], queue_discipline: ["tail_drop"] })).to.deep.equal({ queue_discipline: ["tail_drop"], capacity_trace: ["t"] });
  });

  it("paces frames by the capacity trace, in each direction on its own, and drops past the queue bound as bandwidth", () => {
    const capacity = read<CapacityTrace>("10\n");
    const c = new FilterChain({ settings: settings({ capacity_trace: ["t", 2] }), suspend: false, random: new SeededRandom(1), traces: { capacity } });
    expect(c.needsTime).to.equal(true);
    expect(c.process(FULL, "egress", 0).delayMs).to.equal(10);
    expect(c.process(FULL, "egress", 0).delayMs).to.equal(20);
    expect(c.process(FULL, "egress", 0).drop).to.equal("bandwidth");
    expect(c.process(FULL, "ingress", 5).delayMs).to.equal(10);
  });

  it("adds the delay trace's value of the moment to the frame's delay, from the first frame, to the µs", () => {
    const delay = read<ValueTrace>("0 20\n100 0.5\n200\n");
    const c = new FilterChain({ settings: settings({ delay: [5], delay_trace: ["d"] }), suspend: false, random: new SeededRandom(1), traces: { delay } });
    expect(c.process(FULL, "egress", 1000).delayMs).to.equal(25);
    const later = c.process(FULL, "egress", 1150);
    expect(later.delayMs).to.equal(5.5);
    expect(later.precise).to.equal(true);
    expect(c.process(FULL, "egress", 1200).delayMs).to.equal(25);
  });

  it("loses frames with the loss trace's chance of the moment, as packet_loss", () => {
    const loss = read<ValueTrace>("0 100\n50 0\n100\n");
    const c = new FilterChain({ settings: settings({ loss_trace: ["l"] }), suspend: false, random: new SeededRandom(1), traces: { loss } });
    expect(c.process(FULL, "egress", 0).drop).to.equal("packet_loss");
    expect(c.process(FULL, "egress", 49).drop).to.equal("packet_loss");
    expect(c.process(FULL, "egress", 50).drop).to.equal(undefined);
    expect(c.process(FULL, "egress", 120).drop).to.equal("packet_loss");
  });

  it("keeps the capacity trace's position and queue when another filter of the direction changes", () => {
    const capacity = read<CapacityTrace>("10\n");
    const first = new FilterChain({ settings: settings({ capacity_trace: ["t"] }), suspend: false, random: new SeededRandom(1), traces: { capacity } });
    first.process(FULL, "egress", 0);
    const next = new FilterChain({ settings: settings({ capacity_trace: ["t"], delay: [1] }), suspend: false, random: new SeededRandom(1), traces: { capacity }, carry: { shared: first, egress: first } });
    expect(next.process(FULL, "egress", 0).delayMs).to.equal(21);
  });

  it("resolves names through the book, refusing an unknown name and a trace of the wrong form, naming it", () => {
    const capacity = read<CapacityTrace>("10\n");
    const loss = read<ValueTrace>("0 150\n");
    const book = { traceNamed: (n: string) => (n === "cap" ? capacity : n === "big" ? loss : undefined) };
    expect(resolveTraces(settings({ capacity_trace: ["cap"] }), book)).to.deep.equal(E.right({ capacity }));
    expect(resolveTraces(settings({ capacity_trace: ["none"] }), book)).to.deep.equal(E.left({ _tag: "InvalidFilterSettings", problem: { problem: "unknown_trace", kind: "capacity_trace", name: "none" } }));
    const unfit = resolveTraces(settings({ delay_trace: ["cap"] }), book);
    expect(E.isLeft(unfit) && unfit.left.problem.problem).to.equal("unfit_trace");
    const tooLossy = resolveTraces(settings({ loss_trace: ["big"] }), book);
    expect(E.isLeft(tooLossy) && tooLossy.left.problem.problem).to.equal("unfit_trace");
  });

  it("keeps a worker's trace object when a sync brings the same value again, so a rebuilt chain goes on from its position", () => {
    const shelf = new TraceShelf();
    const capacity = read<CapacityTrace>("10\n");
    shelf.receive([{ name: "t", trace: capacity }]);
    const first = new FilterChain({ settings: settings({ capacity_trace: ["t"] }), suspend: false, random: new SeededRandom(1), traces: { capacity: shelf.traceNamed("t") as CapacityTrace } });
    first.process(FULL, "egress", 0);
    // The next sync (another filter changed) brings a structured clone of the same trace.
    shelf.receive([{ name: "t", trace: structuredClone(capacity) }]);
    expect(shelf.traceNamed("t")).to.equal(capacity);
    const next = new FilterChain({ settings: settings({ capacity_trace: ["t"], delay: [1] }), suspend: false, random: new SeededRandom(1), traces: { capacity: shelf.traceNamed("t") as CapacityTrace }, carry: { shared: first, egress: first } });
    expect(next.process(FULL, "egress", 0).delayMs).to.equal(21);
    // Another value under the name replaces it.
    shelf.receive([{ name: "t", trace: read<CapacityTrace>("20\n") }]);
    expect((shelf.traceNamed("t") as CapacityTrace).periodMs).to.equal(20);
  });
});
