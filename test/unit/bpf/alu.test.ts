import { expect } from "chai";
import { alu } from "../../../src/domain/bpf/ir.js";
import { buildDag, interpret } from "../../../src/domain/bpf/dag.js";
import { parse } from "../../../src/domain/bpf/parser.js";
import { compilePredicate } from "../../../src/domain/bpf/semantics.js";

const dagOf = (s: string) => buildDag(compilePredicate(parse(s)));

/** A 60-byte frame whose first two bytes are `first` and `second`. */
function frame(first: number, second: number): Uint8Array {
  const f = new Uint8Array(60);
  f[0] = first;
  f[1] = second;
  return f;
}

describe("BPF's 32-bit arithmetic (one ALU for the constant folding and the DAG's interpreter)", () => {
  it("computes unsigned and wraps at 32 bits, as the kernel's BPF does", () => {
    expect(alu("add", 0xffffffff, 2)).to.equal(1);
    expect(alu("sub", 1, 2)).to.equal(0xffffffff);
    expect(alu("mul", 0x10000, 0x10000)).to.equal(0);
    expect(alu("div", 7, 2)).to.equal(3);
    expect(alu("mod", 7, 4)).to.equal(3);
    expect(alu("and", 0xf0, 0x3c)).to.equal(0x30);
    expect(alu("or", 0x80000000, 1)).to.equal(0x80000001);
    expect(alu("xor", 0xff, 0x0f)).to.equal(0xf0);
    expect(alu("lsh", 1, 31)).to.equal(0x80000000);
    expect(alu("rsh", 0x80000000, 31)).to.equal(1);
  });

  it("gives 0 for a shift by 32 bits or more", () => {
    expect(alu("lsh", 1, 32)).to.equal(0);
    expect(alu("rsh", 0xffffffff, 40)).to.equal(0);
  });

  it("has no result for a division or a modulus by zero", () => {
    expect(alu("div", 7, 0)).to.equal(undefined);
    expect(alu("mod", 7, 0)).to.equal(undefined);
  });

  it("refuses a constant division by zero when compiling, with libpcap's message", () => {
    expect(() => dagOf("len / (ether[1] & 0) = 0")).to.throw("division by zero");
  });

  it("rejects a frame whose divisor is zero at run time, and divides the others", () => {
    for (const e of ["ether[0] / ether[1] = 1", "ether[0] % ether[1] = 1", "not ether[0] / ether[1] = 9"]) {
      const dag = dagOf(e);
      expect(interpret(dag.root, frame(3, 0), 60, dag.prelude), `${e}, divisor 0`).to.equal(false);
      expect(interpret(dag.root, frame(3, 2), 60, dag.prelude), `${e}, divisor 2`).to.equal(true);
    }
  });
});
