import { expect } from "chai";
import { generateMatcher, generateSource } from "../../../src/domain/bpf/codegen.js";
import { buildDag, interpret, rejectsAll } from "../../../src/domain/bpf/dag.js";
import { parse } from "../../../src/domain/bpf/parser.js";
import { compilePredicate } from "../../../src/domain/bpf/semantics.js";
import { generateChainAndTunnelFrames, generateFrames } from "../../support/bpf-frames.js";

const dagOf = (s: string) => buildDag(compilePredicate(parse(s)));

describe("the BPF decision DAG and code generator", () => {
  const frames = [...generateFrames(1500, 7), ...generateChainAndTunnelFrames(500, 7)];
  const expressions = [
    "tcp port 80", "host 10.0.0.1 or 10.0.0.2", "vlan and ip", "mpls and mpls and ip6", "icmp[icmptype] = icmp-echo",
    "ether[len - 1] > 0x80", "ether[0] / ether[1] = 1", "ether[0] % ether[1] = 0", "len << ether[2] > 0",
    "not ether[100] = 1", "tcp[tcpflags] & (tcp-syn|tcp-ack) != 0", "portrange 20-1024", "ip6 net 2001:db8::/32",
    "decnet host 1.2", "llc u", "ipx or atalk or aarp", "-len + 5 > 4", "ether[0] ^ 0xff > 0x80",
    "protochain 6", "ip6 protochain 17 or ip protochain 51", "geneve and tcp port 80", "geneve 100 and ether multicast",
    "vlan and geneve and vlan and ip", "geneve and mpls and ip", "geneve and geneve and geneve and tcp port 80",
    "geneve 1 or geneve 2 or geneve 3 or ip6",
  ];

  it("generates JavaScript that agrees with the DAG interpreter on every frame", () => {
    for (const e of expressions) {
      const dag = dagOf(e);
      const m = generateMatcher(dag.root, dag.prelude);
      for (const f of frames) {
        expect(m(f.data, f.wireLength), `${e} on ${Buffer.from(f.data).toString("hex")}`).to.equal(interpret(dag.root, f.data, f.wireLength, dag.prelude));
      }
    }
  });

  it("rejects the frame when a load reads past the captured bytes, even under 'not'", () => {
    const short = new Uint8Array(20);
    for (const e of ["ether[100] = 1", "not ether[100] = 1", "ether[100] = 1 or 1 = 1 and ether[0] = 0"]) {
      const dag = dagOf(e);
      expect(generateMatcher(dag.root, dag.prelude)(short, 200), e).to.equal(false);
    }
    expect(generateMatcher(dagOf("not ether[10] = 1").root)(short, 20)).to.equal(true);
  });

  it("rejects the frame on a division or modulo by zero at run time", () => {
    const zeros = new Uint8Array(60);
    expect(generateMatcher(dagOf("ether[0] / ether[1] = 0").root)(zeros, 60)).to.equal(false);
    expect(generateMatcher(dagOf("not ether[0] % ether[1] = 1").root)(zeros, 60)).to.equal(false);
  });

  it("keeps the loads of the first test when that test is optimised away, as libpcap's opt_root does", () => {
    const dag = dagOf("ether[100] = 1 or 1 = 1 and ether[0] = 0");
    expect(generateSource(dag.root, dag.prelude)).to.contain("100");
    expect(generateSource(dagOf("ether[100] = 1 or 1 = 1").root)).not.to.contain("100");
  });

  it("drops a test whose two outcomes lead to the same place, with its load", () => {
    const dag = dagOf("(ip and ether[100] = 1) or ip");
    expect(generateSource(dag.root)).not.to.contain("100");
  });

  it("skips a test whose outcome is known on the path (jump threading)", () => {
    const source = generateSource(dagOf("ip and ip[9] = 6 and ip").root);
    expect(source.match(/p\[12\]/g)?.length).to.equal(1);
  });

  it("reads a 2- or 4-byte field once per block and compares the value kept, however many hosts a list names (ADR 0075)", () => {
    const hosts = Array.from({ length: 50 }, (_, i) => `host 172.16.0.${i}`).join(" or ");
    const source = generateSource(dagOf(hosts).root);
    // the IPv4 source and destination addresses, each read once, then compared 50 times
    expect(source.match(/p\[26\]/g)?.length).to.equal(1);
    expect(source.match(/p\[30\] << 24/g)?.length).to.equal(1);
    expect(source.match(/=== 2886729729\)/g)?.length).to.be.at.least(2);
  });

  it("pulls a comparison of the same value up the chain, as libpcap's or_pullup does", () => {
    const source = generateSource(dagOf("arp and (host 10.0.0.1 or 10.0.0.2)").root);
    expect(source.indexOf("p[28]")).to.be.lessThan(source.indexOf("p[38]"));
    expect(source.indexOf("167772162")).to.be.lessThan(source.indexOf("p[38]"));
  });

  it("finds expressions that can never match", () => {
    for (const e of ["ip and arp", "tcp and udp", "(ip or ip6) and (arp or rarp)", "tcp and not tcp", "1 = 2"]) {
      expect(rejectsAll(dagOf(e)), e).to.equal(true);
    }
    for (const e of ["ip or arp", "ether proto 0x10000", "len < 10 and len > 20"]) {
      expect(rejectsAll(dagOf(e)), e).to.equal(false);
    }
  });

  it("refuses only what libpcap's optimizer proves, accepting the rest of the never-matching expressions as libpcap does", () => {
    // proved by jump threading over values written the same way, or by folding the first test
    for (const e of ["ip[1] = 2 and ip[1] = 3", "ip[1] & 4 = 0 and ip[1] & 4 = 4", "ip and 1 = 2", "0 * len = 1", "1 + 1 = 3"]) {
      expect(rejectsAll(dagOf(e)), e).to.equal(true);
    }
    // never match, but libpcap threads before it folds constants and tells indexed loads from absolute ones
    const accepted = [
      "tcp port 80 and ip[6:2] & 0x1fff != 0",
      "ether[12:2] = 0x806 and ip",
      "ip[1] = 2 and ip[0+1] = 3",
      "ip and 1 + 1 = 3",
      "ip and len * 0 = 1",
      "tcp src port 80 and tcp[0:2] = 81",
      "mpls and ip and mpls",
    ];
    for (const e of accepted) {
      const dag = dagOf(e);
      expect(rejectsAll(dag), e).to.equal(false);
      const matcher = generateMatcher(dag.root, dag.prelude);
      for (const size of [14, 34, 60, 1514]) expect(matcher(new Uint8Array(size).fill(0x45), size), e).to.equal(false);
    }
  });

  it("emits a long or-chain as a flat list of tests, not one block per term", () => {
    const hosts = Array.from({ length: 500 }, (_, i) => `host 10.0.${i >> 8}.${i & 255}`).join(" or ");
    const source = generateSource(dagOf(hosts).root);
    const deepest = Math.max(...source.split("\n").map((l) => (/^ */.exec(l)?.[0].length ?? 0) / 2));
    expect(deepest).to.be.at.most(3);
  });

  it("moves code nested deeper than 16 blocks into functions, and still agrees with the interpreter", () => {
    // each level tests one byte and goes on differently on either side, so both sides are code of their own
    let e = "ether[99] = 7";
    for (let k = 30; k >= 0; k--) e = `(ether[${k}] = 1 and ${e}) or (not ether[${k}] = 1 and ether[${40 + k}] = 2)`;
    const dag = dagOf(e);
    const source = generateSource(dag.root, dag.prelude);
    const deepest = Math.max(...source.split("\n").map((l) => (/^ */.exec(l)?.[0].length ?? 0) / 2));
    expect(deepest).to.be.at.most(17);
    const m = generateMatcher(dag.root, dag.prelude);
    for (let i = 0; i < 3000; i++) {
      const p = Uint8Array.from({ length: i % 120 }, (_, j) => ((i >> (j % 12)) & 1 ? 1 : 2));
      if (p.length > 99 && i % 3 === 0) p[99] = 7;
      expect(m(p, p.length), `frame ${i}`).to.equal(interpret(dag.root, p, p.length, dag.prelude));
    }
  });

  it("keeps the code of 16 nested Geneve tunnels small: a tunnel's offsets are computed once per block, not written out twice per tunnel", () => {
    for (const joiner of [" and ", " or "]) {
      const dag = dagOf(`${Array.from({ length: 16 }, (_, i) => `geneve ${i}`).join(joiner)}${joiner}tcp port 80`);
      expect(generateSource(dag.root, dag.prelude).length).to.be.lessThan(200_000);
    }
  });

  it("tests the accumulator, not the frame, for 'byte N & M' (libpcap 1.10's missing load)", () => {
    const ones = new Uint8Array(60).fill(0xff);
    expect(generateMatcher(dagOf("byte 1 & 2").root)(ones, 60)).to.equal(false);
    expect(generateMatcher(dagOf("byte 1 | 2").root)(new Uint8Array(60), 60)).to.equal(true);
  });
});
