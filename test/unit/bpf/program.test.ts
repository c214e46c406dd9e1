import { expect } from "chai";
import * as E from "fp-ts/lib/Either.js";
import { Worker } from "node:worker_threads";
import type { BpfProgram, FrameMatcher } from "../../../src/domain/bpf/index.js";
import { compileLines, compileProgram, instantiateProgram } from "../../../src/domain/bpf/index.js";
import { generateChainAndTunnelFrames, generateFrames } from "../../support/bpf-frames.js";

const frames = [...generateFrames(2000, 5), ...generateChainAndTunnelFrames(500, 5)].map((f) => f.data);

const FILTERS: readonly (readonly string[])[] = [
  ["icmp"],
  ["tcp port 80 and host 10.0.0.1", "", "udp port 53", "vlan 10 and arp"],
  ["ip6 protochain 17 or ip protochain 51", "geneve and tcp port 80", "mpls and mpls and ip6"],
  ["tcp[tcpflags] & (tcp-syn|tcp-ack) != 0", "ether[len - 1] > 0x80", "not ether[100] = 1", "ether[0] / ether[1] = 1"],
  [Array.from({ length: 100 }, (_, i) => `host 10.0.${i >> 8}.${i & 255}`).join(" or "), "portrange 20-1024"],
  [],
];

function program(lines: readonly string[]): BpfProgram {
  const p = compileProgram(lines);
  if (E.isLeft(p)) throw new Error(`${p.left.line}: ${p.left.message}`);
  return p.right;
}

function matcherOf(lines: readonly string[]): FrameMatcher {
  const m = compileLines(lines);
  if (E.isLeft(m)) throw new Error(m.left.message);
  return m.right;
}

describe("compiled bpf programs (plain data another thread runs)", () => {
  it("keeps the text and the generated source of each non-blank line, and survives structuredClone unchanged", () => {
    const p = program(["icmp", "", "tcp port 80", "   "]);
    expect(p.lines).to.deep.equal(["icmp", "tcp port 80"]);
    expect(p.sources).to.have.length(2);
    for (const s of p.sources) expect(s).to.contain("return function match(p, w)");
    expect(structuredClone(p)).to.deep.equal(p);
  });

  it("matches, once cloned and instantiated, exactly the frames compileLines matches", () => {
    for (const lines of FILTERS) {
      const cloned = instantiateProgram(structuredClone(program(lines)));
      const direct = matcherOf(lines);
      expect(frames.map(cloned), lines.join(" | ")).to.deep.equal(frames.map(direct));
    }
  });

  it("names the first line that does not compile, counting blank lines, as compileLines does", () => {
    const lines = ["icmp", "", "ip and port 99999", "ip and"];
    expect(compileProgram(lines)).to.deep.equal(E.left({ line: 3, message: "illegal port number 99999 > 65535" }));
    expect(compileLines(lines)).to.deep.equal(E.left({ line: 3, message: "illegal port number 99999 > 65535" }));
  });

  it("matches nothing with no lines, as compileLines", () => {
    const none = instantiateProgram(program(["", " "]));
    expect(frames.some(none)).to.equal(false);
  });

  it("runs in another thread what this one compiled", async () => {
    const lines = FILTERS[1] as readonly string[];
    const sample = frames.slice(0, 500);
    const theirs = await new Promise<boolean[]>((resolve, reject) => {
      const worker = new Worker(new URL("../../support/bpf-program-worker.js", import.meta.url), {
        workerData: { program: program(lines), frames: sample },
      });
      worker.once("message", resolve);
      worker.once("error", reject);
    });
    expect(theirs).to.deep.equal(sample.map(matcherOf(lines)));
  });

  it("falls back to compiling the lines again for the DAG interpreter where new Function is not allowed", () => {
    // lines this thread has not compiled yet, so that what is cached for them is made without new Function
    const lines = ["tcp port 81 and host 10.9.9.9 ", "geneve 9 and udp ", "ether[0] % ether[1] = 0 "];
    const original = globalThis.Function;
    let blocked: boolean[];
    try {
      globalThis.Function = function blockedByPolicy(): never {
        throw new EvalError("code generation from strings disallowed");
      } as unknown as FunctionConstructor;
      const m = instantiateProgram(structuredClone(program(lines)));
      blocked = frames.map(m);
    } finally {
      globalThis.Function = original;
    }
    const generated = instantiateProgram(program(lines.map((l) => l.trimEnd())));
    expect(blocked).to.deep.equal(frames.map(generated));
    expect(blocked.filter(Boolean).length).to.be.greaterThan(0);
  });
});
