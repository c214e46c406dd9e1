import { expect } from "chai";
import type { Arth, Expr } from "../../../src/domain/bpf/ast.js";
import { BpfError } from "../../../src/domain/bpf/errors.js";
import { parse } from "../../../src/domain/bpf/parser.js";

/** Compact rendering of an AST: qualifiers as proto/dir/addr. */
function show(e: Expr | undefined): string {
  if (e === undefined) return "<empty>";
  switch (e.k) {
    case "and":
    case "or":
      return `(${show(e.l)} ${e.k} ${show(e.r)})`;
    case "not":
      return `!${show(e.e)}`;
    case "pname":
      return e.proto;
    case "id": {
      const v = e.id.t === "num" ? String(e.id.v) : e.id.s;
      return `${e.q.proto}/${e.q.dir}/${e.q.addr}:${v}`;
    }
    case "rel":
      return `${arth(e.l)} ${e.reversed ? "!" : ""}${e.op} ${arth(e.r)}`;
    case "other":
      return `<${e.o.t}>`;
  }
}

function arth(a: Arth): string {
  switch (a.k) {
    case "num": return String(a.v);
    case "len": return "len";
    case "neg": return `-${arth(a.e)}`;
    case "load": return `${a.proto}[${arth(a.index)}:${a.size}]`;
    case "bin": return `(${arth(a.l)} ${a.op} ${arth(a.r)})`;
  }
}

const p = (s: string): string => show(parse(s).body);

describe("the BPF parser", () => {
  it("gives 'and' and 'or' the same precedence, left to right, as libpcap does", () => {
    expect(p("ip or arp and rarp")).to.equal("((ip or arp) and rarp)");
    expect(p("ip and arp or rarp")).to.equal("((ip and arp) or rarp)");
  });

  it("binds 'not' tighter than 'and' and 'or'", () => {
    expect(p("not ip and arp")).to.equal("(!ip and arp)");
    expect(p("not (ip and arp)")).to.equal("!(ip and arp)");
  });

  it("passes qualifiers on to a bare value after and/or", () => {
    expect(p("host 10.0.0.1 or 10.0.0.2")).to.equal("(default/default/host:10.0.0.1 or default/default/host:10.0.0.2)");
    expect(p("tcp port 80 or 443")).to.equal("(tcp/default/port:80 or tcp/default/port:443)");
    expect(p("port 80 and not 22")).to.equal("(default/default/port:80 and !default/default/port:22)");
    expect(p("src host 1.2.3.4 or (5.6.7.8 or 9.9.9.9)")).to.equal(
      "(default/src/host:1.2.3.4 or (default/src/host:5.6.7.8 or default/src/host:9.9.9.9))",
    );
  });

  it("does not pass qualifiers on from a protocol name or a comparison", () => {
    expect(p("tcp or 80")).to.equal("(tcp or undef/undef/undef:80)");
  });

  it("reads the compound direction qualifiers", () => {
    expect(p("src or dst host 1.2.3.4")).to.equal("default/or/host:1.2.3.4");
    expect(p("dst and src port 1")).to.equal("default/and/port:1");
  });

  it("uses the arithmetic precedence of libpcap's grammar", () => {
    expect(p("1 + 2 * 3 = 7")).to.equal("(1 + (2 * 3)) eq 7");
    expect(p("1 | 2 & 3 = 3")).to.equal("(1 | (2 & 3)) eq 3");
    expect(p("1 << 2 + 1 = 8")).to.equal("(1 << (2 + 1)) eq 8");
    expect(p("10 - 2 - 3 = 5")).to.equal("((10 - 2) - 3) eq 5");
    expect(p("-1 + 2 = 1")).to.equal("(-1 + 2) eq 1");
  });

  it("lets % and ^ take everything to their right, as yacc shifts on operators without precedence", () => {
    expect(p("ether[0] % 3 + 1 = 2")).to.equal("(link[0:1] % (3 + 1)) eq 2");
    expect(p("ether[0] ^ 3 * 2 = 2")).to.equal("(link[0:1] ^ (3 * 2)) eq 2");
    expect(p("2 * 6 % 4 = 0")).to.equal("(2 * (6 % 4)) eq 0");
  });

  it("reads !=, < and <= as negated =, >= and >", () => {
    expect(p("len != 1")).to.equal("len !eq 1");
    expect(p("len < 1")).to.equal("len !ge 1");
    expect(p("len <= 1")).to.equal("len !gt 1");
  });

  it("reads packet accessors with sizes and nested indexes", () => {
    expect(p("tcp[tcp[12] >> 4:2] = 1")).to.equal("tcp[(tcp[12:1] >> 4):2] eq 1");
  });

  it("accepts the empty expression", () => {
    expect(p("")).to.equal("<empty>");
    expect(p("   ")).to.equal("<empty>");
  });

  it("reports a syntax error with the position where parsing stopped", () => {
    for (const [expr, pos] of [["ip and", 6], ["(ip", 3], ["ip ip", 3], ["tcp port", 8]] as const) {
      try {
        parse(expr);
        expect.fail(`${expr} should not parse`);
      } catch (e) {
        expect(e).to.be.instanceOf(BpfError);
        expect((e as BpfError).message).to.equal("can't parse filter expression: syntax error");
        expect((e as BpfError).position, expr).to.equal(pos);
      }
    }
  });
});
