import { expect } from "chai";
import { CODEL_DEFAULTS, FQ_CODEL_DEFAULTS, parseQueueDiscipline, sameQueueDiscipline } from "../../../src/domain/queueing/queue-discipline.js";

const spec = (text: string) => {
  const r = parseQueueDiscipline(text);
  if (!r.ok) throw new Error(`refused: ${JSON.stringify(r.problem)}`);
  return r.spec;
};
const problem = (text: string) => {
  const r = parseQueueDiscipline(text);
  if (r.ok) throw new Error(`taken: ${JSON.stringify(r.spec)}`);
  return r.problem;
};

describe("queue discipline text (tc's words): what the bandwidth stage queues with", () => {
  it("takes tail_drop, codel and fq_codel alone, with Linux's defaults (codel: 5 ms, 100 ms, 1000 frames, no ECN; fq_codel: ECN, 10240 frames, 32 MiB, 1024 flows, quantum 1514)", () => {
    expect(spec("tail_drop")).to.deep.equal({ kind: "tail_drop" });
    expect(spec("codel")).to.deep.equal({ kind: "codel", ...CODEL_DEFAULTS });
    expect(spec("fq_codel")).to.deep.equal({ kind: "fq_codel", ...FQ_CODEL_DEFAULTS });
    expect(FQ_CODEL_DEFAULTS).to.include({ targetMs: 5, intervalMs: 100, ecn: true, limit: 10240, memoryLimit: 33554432, flows: 1024, quantum: 1514 });
    expect(CODEL_DEFAULTS).to.include({ targetMs: 5, intervalMs: 100, ecn: false, limit: 1000 });
  });

  it("sets every parameter, times in us, ms or s and sizes in bytes, kb or mb", () => {
    expect(spec("codel target 500us interval 0.2s limit 50 mtu 9000 ecn")).to.deep.equal({ kind: "codel", targetMs: 0.5, intervalMs: 200, limit: 50, mtu: 9000, ecn: true });
    expect(spec("  fq_codel  target 2.5ms interval 50ms limit 1000 memory_limit 4mb flows 64 quantum 300 drop_batch 16 noecn ")).to.deep.equal({
      kind: "fq_codel",
      targetMs: 2.5,
      intervalMs: 50,
      limit: 1000,
      memoryLimit: 4 * 1024 * 1024,
      flows: 64,
      quantum: 300,
      dropBatch: 16,
      mtu: 1514,
      ecn: false,
    });
    expect(spec("fq_codel memory_limit 64kb")).to.include({ memoryLimit: 65536 });
    expect(spec("fq_codel memory_limit 20000")).to.include({ memoryLimit: 20000 });
  });

  it("refuses an unknown discipline, and an empty text", () => {
    expect(problem("pfifo")).to.deep.equal({ problem: "unknown_discipline", got: "pfifo" });
    expect(problem("   ")).to.deep.equal({ problem: "unknown_discipline", got: "" });
  });

  it("refuses a parameter the discipline does not have, naming the ones it has", () => {
    expect(problem("codel flows 4")).to.deep.include({ problem: "unknown_parameter", discipline: "codel", got: "flows" });
    expect(problem("tail_drop limit 5")).to.deep.equal({ problem: "unknown_parameter", discipline: "tail_drop", got: "limit", parameters: [] });
    const p = problem("fq_codel speed 3");
    expect(p.problem === "unknown_parameter" && p.parameters).to.include.members(["target", "interval", "limit", "memory_limit", "flows", "quantum", "drop_batch", "ecn", "noecn"]);
  });

  it("refuses a parameter without its value, and one given twice (ecn and noecn count as one)", () => {
    expect(problem("codel target")).to.deep.equal({ problem: "missing_value", parameter: "target" });
    expect(problem("codel limit 5 limit 6")).to.deep.equal({ problem: "repeated_parameter", parameter: "limit" });
    expect(problem("fq_codel ecn noecn")).to.deep.equal({ problem: "repeated_parameter", parameter: "ecn" });
  });

  it("refuses a time without a unit (tc would read 5 as 5 µs), a size or count that is not one", () => {
    expect(problem("codel target 5")).to.deep.equal({ problem: "not_a_value", parameter: "target", unit: "time", got: "5" });
    expect(problem("codel interval -1ms")).to.deep.include({ problem: "not_a_value", parameter: "interval" });
    expect(problem("fq_codel quantum 1.5kb")).to.deep.include({ problem: "not_a_value", parameter: "quantum", unit: "bytes" });
    expect(problem("fq_codel flows many")).to.deep.include({ problem: "not_a_value", parameter: "flows", unit: "count" });
  });

  it("refuses values out of their ranges, saying the range", () => {
    expect(problem("codel target 0ms")).to.deep.equal({ problem: "out_of_range", parameter: "target", unit: "time", minimum: 0.001, maximum: 10000, got: 0 });
    expect(problem("codel interval 11s")).to.deep.include({ problem: "out_of_range", parameter: "interval", got: 11000 });
    expect(problem("codel limit 0")).to.deep.include({ problem: "out_of_range", parameter: "limit", minimum: 1 });
    expect(problem("fq_codel flows 65537")).to.deep.include({ problem: "out_of_range", parameter: "flows", maximum: 65536 });
    expect(problem("fq_codel quantum 100")).to.deep.include({ problem: "out_of_range", parameter: "quantum", minimum: 256 });
    expect(problem("fq_codel memory_limit 1kb")).to.deep.include({ problem: "out_of_range", parameter: "memory_limit" });
    expect(problem("fq_codel drop_batch 0")).to.deep.include({ problem: "out_of_range", parameter: "drop_batch" });
    expect(problem("codel mtu 10")).to.deep.include({ problem: "out_of_range", parameter: "mtu" });
  });

  it("compares specs by value", () => {
    expect(sameQueueDiscipline(spec("fq_codel"), spec("fq_codel target 5ms"))).to.equal(true);
    expect(sameQueueDiscipline(spec("fq_codel"), spec("fq_codel noecn"))).to.equal(false);
    expect(sameQueueDiscipline(spec("codel"), spec("fq_codel"))).to.equal(false);
  });
});
