import { expect } from "chai";
import fc from "fast-check";
import * as E from "fp-ts/lib/Either.js";
import { compileCaptureMatcher, compileProgram, explainExpression } from "../../../src/domain/bpf/index.js";
import { MAX_GENEVE, MAX_NESTING } from "../../../src/domain/bpf/limits.js";

/** Override with FC_SEED=n (and FC_RUNS=n) to explore beyond the default runs. */
const SEED = Number.parseInt(process.env["FC_SEED"] ?? "20240611", 10);
const RUNS = Number.parseInt(process.env["FC_RUNS"] ?? "300", 10);

const PRIMITIVES = [
  "ip", "ip6", "arp", "tcp", "udp", "icmp", "icmp6", "sctp", "igmp", "stp", "llc", "vlan", "vlan 10", "mpls", "mpls 16",
  "pppoes", "pppoed", "geneve", "geneve 7", "ip protochain 6", "protochain 17", "host 10.0.0.1", "src host 10.0.0.2",
  "net 10.0.0.0/8", "ip6 host 2001:db8::1", "ether host 02:00:00:00:00:01", "ether broadcast", "ip multicast",
  "port 80", "tcp dst port 443", "udp port domain", "portrange 20-1024", "len > 100", "less 60", "greater 1000",
  "tcp[tcpflags] & tcp-syn != 0", "ip[6:2] & 0x1fff = 0", "icmp[icmptype] = icmp-echo", "ether[0] & 1 = 1",
  "ip[ip[0] & 0xf] = 4", "ether[len - 1] > 0x80", "ether[0] / ether[1] = 1", "1 = 2", "ether proto 0x88cc",
  "decnet host 1.2", "byte 1 & 2", "inbound", "host localhost", "(80 or 443)",
];
/** primitives that refuse nothing and change no offsets: long chains of them compile (or run out of budget) */
const CHAINABLE = PRIMITIVES.filter((p) => !/^(vlan|mpls|pppoe|geneve|inbound|host localhost|byte|1 = 2|\(80)/.test(p));
const TOKENS = [
  ...PRIMITIVES, "and", "or", "not", "!", "&&", "||", "(", ")", "[", "]", ":", "-", "+", "*", "/", "%", "&", "|", "^",
  "<<", ">>", "=", "!=", "<", ">", "<=", ">=", "0", "1", "65535", "4294967296", "0x10", "010", "10.0.0.1", "::1",
  "02:00:00:00:00:01", "host", "net", "port", "src", "dst", "proto", "mask", "len", "ip[", "tcp[", "\\tcp", "$", "#",
];

const primitive = fc.constantFrom(...PRIMITIVES);
const operator = fc.constantFrom(" and ", " or ", " && ", " || ");
const arithOp = fc.constantFrom("+", "-", "*", "/", "%", "&", "|", "^", "<<", ">>");

/** Random and/or/not trees of primitives. */
const { tree } = fc.letrec<{ tree: string }>((tie) => ({
  tree: fc.oneof(
    { depthSize: "small", withCrossShrink: true },
    primitive,
    fc.tuple(tie("tree"), operator, tie("tree")).map(([a, op, b]) => `${a}${op}${b}`),
    tie("tree").map((t) => `not ${t}`),
    tie("tree").map((t) => `(${t})`),
  ),
}));

/** Arithmetic, possibly longer or deeper than the nesting limit. */
const arithmetic = fc
  .record({
    terms: fc.array(fc.constantFrom("1", "0", "len", "ip[0]", "ether[1:2]", "tcp[13]", "0xff"), { minLength: 1, maxLength: MAX_NESTING + 8 }),
    ops: fc.array(arithOp, { maxLength: MAX_NESTING + 8 }),
    minus: fc.nat(MAX_NESTING + 4),
    parens: fc.nat(MAX_NESTING + 4),
  })
  .map(({ terms, ops, minus, parens }) => {
    const body = terms.map((t, i) => (i === 0 ? t : ` ${ops[i % Math.max(1, ops.length)] ?? "+"} ${t}`)).join("");
    return `ip[${"(".repeat(parens)}${"-".repeat(minus)}${body}${")".repeat(parens)}] > 5`;
  });

const expression = fc.oneof(
  { arbitrary: tree, weight: 4 },
  // nesting around the limit
  fc.record({ depth: fc.integer({ min: MAX_NESTING - 4, max: MAX_NESTING + 4 }), inner: tree, kind: fc.constantFrom("(", "not ", "not (", "! ") }).map(
    ({ depth, inner, kind }) => `${kind.repeat(depth)}${inner}${kind.includes("(") ? ")".repeat(depth) : ""}`,
  ),
  // long chains, up to past the length limit and the work budget
  fc.record({ n: fc.integer({ min: 20, max: 1500 }), pick: fc.integer(), op: operator }).map(({ n, pick, op }) =>
    Array.from({ length: n }, (_, i) => CHAINABLE[Math.abs(pick * (i + 7) + i * i) % CHAINABLE.length] as string).join(op),
  ),
  // alternating and/or over ports: past the work budget from a few hundred terms
  fc.integer({ min: 100, max: 900 }).map((n) =>
    Array.from({ length: n }, (_, i) => `port ${i + 1}`).reduce((a, x, i) => (i === 0 ? x : `${a}${i % 2 ? " and " : " or "}${x}`), ""),
  ),
  // many geneves
  fc.integer({ min: MAX_GENEVE - 2, max: MAX_GENEVE + 2 }).map((n) => Array.from({ length: n }, (_, i) => `geneve ${i}`).join(" or ")),
  { arbitrary: arithmetic, weight: 2 },
  // token soup
  { arbitrary: fc.array(fc.constantFrom(...TOKENS), { maxLength: 60 }).map((t) => t.join(" ")), weight: 2 },
  fc.string({ maxLength: 80 }),
);

const frame = fc.record({ bytes: fc.uint8Array({ maxLength: 160 }), extra: fc.nat(2000) });

describe("the pcap-filter compiler on any input (property)", function () {
  this.timeout(120_000);

  it("answers every expression with a matcher or a BpfCompileError, never an exception, and its matchers never throw on any frame", () => {
    fc.assert(
      fc.property(expression, fc.array(frame, { minLength: 1, maxLength: 12 }), (text, frames) => {
        const r = compileCaptureMatcher(text);
        if (E.isLeft(r)) {
          expect(r.left._tag).to.equal("BpfCompileError");
          expect(r.left.message).to.be.a("string").and.not.equal("");
          return;
        }
        for (const f of frames) expect(r.right(f.bytes, f.bytes.length + f.extra)).to.be.a("boolean");
        expect(E.isRight(explainExpression(text))).to.equal(true);
      }),
      { seed: SEED, numRuns: RUNS, endOnFailure: true },
    );
  });

  it("compiles any lines to a program or the first line that does not compile, never an exception", () => {
    fc.assert(
      fc.property(fc.array(fc.oneof(tree, fc.constantFrom("", "  ")), { maxLength: 6 }), (lines) => {
        const r = compileProgram(lines);
        if (E.isLeft(r)) {
          expect(r.left.line).to.be.within(1, lines.length);
          expect(lines[r.left.line - 1]?.trim()).to.not.equal("");
        } else {
          expect(r.right.lines).to.deep.equal(lines.filter((l) => l.trim() !== ""));
          expect(r.right.sources).to.have.length(r.right.lines.length);
        }
      }),
      { seed: SEED, numRuns: Math.ceil(RUNS / 3), endOnFailure: true },
    );
  });
});
