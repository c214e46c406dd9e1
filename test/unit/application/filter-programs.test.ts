import { expect } from "chai";
import * as E from "fp-ts/lib/Either.js";
import { FilterPrograms } from "../../../src/application/filter-programs.js";
import type { BpfCompiler } from "../../../src/application/ports/bpf-compiler.js";
import { type BpfProgram, compileProgram } from "../../../src/domain/bpf/index.js";
import { filterProblemMessage } from "../../../src/adapters/shared/filter-messages.js";

/** A compiler that records what it was asked and answers netemu's own result (or a scripted refusal). */
class RecordingCompiler implements BpfCompiler {
  readonly asked: string[][] = [];
  refuse: { line: number; message: string } | undefined;
  async compile(lines: readonly string[]): Promise<E.Either<{ line: number; message: string }, BpfProgram>> {
    this.asked.push([...lines]);
    return this.refuse === undefined ? compileProgram(lines) : E.left(this.refuse);
  }
  async close(): Promise<void> {}
}

describe("the compiled programs of bpf and match filters", () => {
  it("compiles each distinct text once, however often and by whom it is asked", async () => {
    const compiler = new RecordingCompiler();
    const programs = new FilterPrograms(compiler);
    const asks = await Promise.all([programs.program(["icmp", "tcp port 80"]), programs.program(["icmp", "tcp port 80"]), programs.check({ bpf: ["icmp\n tcp port 80 "] })]);
    expect(asks.every((a) => a._tag === "Right")).to.equal(true);
    expect(compiler.asked).to.deep.equal([["icmp", "tcp port 80"]]);
    expect(programs.compiles).to.equal(1);
    await programs.program(["udp"]);
    expect(programs.compiles).to.equal(2);
  });

  it("hands the split, trimmed expression lines to the compiler and answers its refusal with the kind and the line", async () => {
    const compiler = new RecordingCompiler();
    compiler.refuse = { line: 2, message: "nope" };
    const programs = new FilterPrograms(compiler);
    const r = await programs.check({ bpf: ["icmp\n\n tcp port 80 "] });
    expect(compiler.asked).to.deep.equal([["icmp", "tcp port 80"]]);
    expect(r).to.deep.equal(E.left({ _tag: "InvalidFilterSettings", problem: { problem: "bpf_invalid", kind: "bpf", line: 2, message: "nope" } }));
    if (E.isLeft(r)) expect(filterProblemMessage(r.left.problem)).to.equal("Invalid BPF expression on line 2: nope");
  });

  it("names the field of a refused match filter when it is not `filters`, and remembers the refusal", async () => {
    const compiler = new RecordingCompiler();
    const programs = new FilterPrograms(compiler);
    const r = await programs.check({ match: ["tcp port"] }, "filters_out");
    expect(E.isLeft(r) && r.left).to.deep.include({ field: "filters_out" });
    expect(E.isLeft(r) && r.left.problem).to.deep.include({ problem: "bpf_invalid", kind: "match", line: 1 });
    await programs.check({ match: ["tcp port"] }, "filters_out");
    expect(compiler.asked, "a wrong expression sent again is not compiled again").to.have.length(1);
  });
});
