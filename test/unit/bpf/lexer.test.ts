import { expect } from "chai";
import { tokenize } from "../../../src/domain/bpf/lexer.js";
import { BpfError } from "../../../src/domain/bpf/errors.js";

const kinds = (s: string): string[] =>
  tokenize(s)
    .filter((t) => t.kind !== "eof")
    .map((t) => (t.kind === "kw" ? `kw:${t.kw}` : t.kind === "punct" ? t.p : t.kind === "num" ? `num:${t.value}` : `${t.kind}:${t.value}`));

describe("the BPF lexer", () => {
  it("reads keywords but prefers a longer identifier (tcp vs tcpx)", () => {
    expect(kinds("tcp tcpx ip6 ipx")).to.deep.equal(["kw:tcp", "id:tcpx", "kw:ip6", "kw:ipx"]);
  });

  it("treats synonyms as the same token (ether/link, and/&&, or/||, not/!, len/length)", () => {
    expect(kinds("ether && a || ! length")).to.deep.equal(["kw:link", "kw:and", "id:a", "kw:or", "kw:not", "kw:len"]);
  });

  it("reads decimal, hexadecimal and octal numbers", () => {
    expect(kinds("10 0x1f 010 0")).to.deep.equal(["num:10", "num:31", "num:8", "num:0"]);
  });

  it("refuses numbers over 32 bits and octal numbers with 8 or 9, as libpcap does", () => {
    expect(() => tokenize("4294967296")).to.throw(BpfError, "number 4294967296 overflows 32 bits");
    expect(() => tokenize("08")).to.throw(BpfError, "contains non-octal digit");
  });

  it("turns libpcap's named constants into numbers", () => {
    expect(kinds("tcpflags tcp-syn icmp-echo icmp6-neighborsolicit")).to.deep.equal(["num:13", "num:2", "num:8", "num:135"]);
  });

  it("reads IPv4 (also short), IPv6 and Ethernet addresses", () => {
    expect(kinds("10.1 10.0.0.1 fe80::1 ::ffff:1.2.3.4 00:11:22:33:44:55 0011.2233.4455 001122334455")).to.deep.equal([
      "hid:10.1", "hid:10.0.0.1", "hid6:fe80::1", "hid6:::ffff:1.2.3.4", "eid:00:11:22:33:44:55", "eid:0011.2233.4455",
      "eid:001122334455",
    ]);
  });

  it("takes the longest IPv6 address whichever form of the rule matches first", () => {
    expect(kinds("1::2:3 1:2:3:4:5:6:7:8 2001:db8::1.2.3.4 ::1")).to.deep.equal([
      "hid6:1::2:3", "hid6:1:2:3:4:5:6:7:8", "hid6:2001:db8::1.2.3.4", "hid6:::1",
    ]);
  });

  it("scans a long run of colons token by token (each '::' an empty IPv6 address)", () => {
    const tokens = tokenize(":".repeat(8000));
    expect(tokens).to.have.length(4001);
    expect(tokens[0]).to.include({ kind: "hid6", value: "::" });
  });

  it("reads 20-21 as one identifier, so that 1-1 is not arithmetic (as in libpcap)", () => {
    expect(kinds("20-21 ether[0]-1")).to.deep.equal(["id:20-21", "kw:link", "[", "num:0", "]", "-", "num:1"]);
  });

  it("drops the backslash of an escaped keyword", () => {
    expect(kinds("ether proto \\ip")).to.deep.equal(["kw:link", "kw:proto", "id:ip"]);
  });

  it("reads two-character operators before one-character ones", () => {
    expect(kinds("a >= b <= c != d == e << f >> g")).to.deep.equal([
      "id:a", ">=", "id:b", "<=", "id:c", "!=", "id:d", "=", "id:e", "<<", "id:f", ">>", "id:g",
    ]);
  });

  it("reports the position of a character it cannot read", () => {
    try {
      tokenize("ip @");
      expect.fail("should throw");
    } catch (e) {
      expect(e).to.be.instanceOf(BpfError);
      expect((e as BpfError).position).to.equal(3);
    }
  });

  it("refuses a malformed Ethernet address", () => {
    expect(() => tokenize("1:2:3:4:5")).to.throw(BpfError, "bogus ethernet address");
  });
});
