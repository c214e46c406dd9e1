import { expect } from "chai";
import * as E from "fp-ts/lib/Either.js";
import { FilterChain } from "../../../src/domain/filters/filter-chain.js";
import { type FilterSettings, parseFilterSettings, queueDisciplineOf } from "../../../src/domain/filters/filter-settings.js";
import { NETEMU_FILTER_CATALOGUE } from "../../../src/domain/filters/catalogue.js";
import { SeededRandom } from "../../../src/domain/filters/random.js";
import { filterProblemMessage } from "../../../src/adapters/shared/filter-messages.js";

const FRAME = new Uint8Array(1000);
const chain = (settings: FilterSettings): FilterChain => new FilterChain({ settings, suspend: false, random: new SeededRandom(1) });
const parsed = (raw: Record<string, unknown>): FilterSettings => {
  const r = parseFilterSettings(raw);
  if (E.isLeft(r)) throw new Error(JSON.stringify(r.left));
  return r.right;
};
const refusal = (raw: Record<string, unknown>): string => {
  const r = parseFilterSettings(raw);
  if (E.isRight(r)) throw new Error("taken");
  return filterProblemMessage(r.left.problem);
};

describe("queue_discipline: the bandwidth stage's queue as a filter kind (ADR 0100)", () => {
  it("is in netemu's catalogue as one text parameter, described with its disciplines", () => {
    const d = NETEMU_FILTER_CATALOGUE.find((x) => x.type === "queue_discipline");
    expect(d?.parameters).to.deep.equal([{ name: "Discipline", type: "text" }]);
    expect(d?.description).to.include("fq_codel").and.include("codel").and.include("tail_drop");
  });

  it("is taken as tc writes it, its items joined by spaces, and read back as given", () => {
    const s = parsed({ bandwidth: [10_000, 1000], queue_discipline: ["fq_codel", "target 5ms interval 100ms"] });
    expect(s.queue_discipline).to.deep.equal(["fq_codel", "target 5ms interval 100ms"]);
    expect(queueDisciplineOf(s)).to.include({ kind: "fq_codel", targetMs: 5, intervalMs: 100, ecn: true });
    expect(queueDisciplineOf(parsed({ bandwidth: [100] }))).to.deep.equal({ kind: "tail_drop" });
  });

  it("turns off as every kind does: an empty list or a blank text", () => {
    expect(parsed({ queue_discipline: [] })).to.deep.equal({});
    expect(parsed({ queue_discipline: [""] })).to.deep.equal({});
  });

  it("refuses, with a message naming what is wrong, each way a discipline text can be wrong", () => {
    expect(refusal({ queue_discipline: [5] })).to.equal("Filter queue_discipline: the discipline must be text, got 5");
    expect(refusal({ queue_discipline: ["fq_codel", undefined, Object.create(null)] })).to.equal("Filter queue_discipline: the discipline must be text, got undefined");
    expect(refusal({ queue_discipline: ["red"] })).to.equal('Filter queue_discipline: the discipline must be one of tail_drop, codel, fq_codel, got "red"');
    expect(refusal({ queue_discipline: ["tail_drop 5"] })).to.equal('Filter queue_discipline: tail_drop takes no parameters, got "5"');
    expect(refusal({ queue_discipline: ["codel quantum 300"] })).to.equal('Filter queue_discipline: codel has no parameter "quantum"; its parameters are target, interval, limit, mtu, ecn, noecn');
    expect(refusal({ queue_discipline: ["codel target"] })).to.equal("Filter queue_discipline: target needs a value after it");
    expect(refusal({ queue_discipline: ["fq_codel ecn ecn"] })).to.equal("Filter queue_discipline: ecn is given twice");
    expect(refusal({ queue_discipline: ["codel target 5"] })).to.equal('Filter queue_discipline: target must be a time with its unit (500us, 5ms, 0.1s), got "5"');
    expect(refusal({ queue_discipline: ["fq_codel memory_limit lots"] })).to.equal('Filter queue_discipline: memory_limit must be bytes (1514, 64kb, 32mb), got "lots"');
    expect(refusal({ queue_discipline: ["fq_codel flows x"] })).to.equal('Filter queue_discipline: flows must be a whole number, got "x"');
    expect(refusal({ queue_discipline: ["codel limit x"] })).to.equal('Filter queue_discipline: limit must be a whole number of frames, got "x"');
    expect(refusal({ queue_discipline: ["codel interval 20s"] })).to.equal("Filter queue_discipline: interval must be between 0.001 ms and 10000 ms, got 20000 ms");
    expect(refusal({ queue_discipline: ["fq_codel quantum 64"] })).to.equal("Filter queue_discipline: quantum must be between 256 bytes and 1048576 bytes, got 64 bytes");
    expect(refusal({ queue_discipline: ["fq_codel flows 0"] })).to.equal("Filter queue_discipline: flows must be between 1 and 65536, got 0");
  });

  it("leaves tail drop as it is: no queue_discipline, or tail_drop, keeps the Shaper's delay and drop", () => {
    for (const settings of [parsed({ bandwidth: [800, 15] }), parsed({ bandwidth: [800, 15], queue_discipline: ["tail_drop"] })]) {
      const c = chain(settings);
      expect(c.queue).to.equal(undefined);
      expect(c.process(FRAME, "egress", 0).delayMs).to.equal(10);
      expect(c.process(FRAME, "egress", 0).delayMs).to.equal(20);
      expect(c.process(FRAME, "egress", 0).drop).to.equal("bandwidth");
    }
  });

  it("under codel or fq_codel hands each frame to the queue (both copies of a duplicate) instead of computing a delay", () => {
    const c = chain(parsed({ bandwidth: [800], queue_discipline: ["codel"], duplicate: [100] }));
    expect(c.queue).to.deep.include({ rateKbps: 800 });
    expect(c.queue?.discipline.kind).to.equal("codel");
    expect(c.needsTime).to.equal(true);
    expect(c.isPassThrough).to.equal(false);
    for (let i = 0; i < 100; i++) {
      const o = c.process(FRAME, "egress", 0);
      expect(o).to.include({ queued: true, drop: undefined, copies: 2, delayMs: 0 });
    }
  });

  it("still drops before the queue what the earlier stages drop (packet_loss 100 %)", () => {
    const o = chain(parsed({ bandwidth: [800], queue_discipline: ["fq_codel"], packet_loss: [100] })).process(FRAME, "egress", 0);
    expect(o).to.include({ drop: "packet_loss", queued: false });
  });

  it("gives a frame that left the queue the rest of its chain: its delay", () => {
    const c = chain(parsed({ bandwidth: [800], queue_discipline: ["fq_codel"], delay: [30] }));
    expect(c.afterQueue()).to.include({ delayMs: 30, overtakes: false });
  });

  it("ignores queue_discipline without bandwidth: it only says how bandwidth's queue behaves", () => {
    const c = chain(parsed({ queue_discipline: ["fq_codel"] }));
    expect(c.queue).to.equal(undefined);
    expect(c.isPassThrough).to.equal(true);
  });
});
