import { expect } from "chai";
import * as E from "fp-ts/lib/Either.js";
import { INLINE_COMPILE_CHARACTERS, ThreadedBpfCompiler } from "../../../src/adapters/threads/bpf-compiler/threaded-bpf-compiler.js";
import { compileProgram } from "../../../src/domain/bpf/index.js";
import { RecordingLogger } from "../../support/in-memory-data-plane.js";

const DYING_THREAD = new URL("../../support/dying-bpf-compiler-thread.js", import.meta.url);

/** Host lists as people write them: a filter long enough to be compiled off the caller's thread. */
function bigFilter(lines: number): string[] {
  return Array.from({ length: lines }, (_, l) => Array.from({ length: 40 }, (_, i) => `host 10.${l}.${i >> 8}.${i & 255}`).join(" or "));
}

describe("the pcap-filter compiler off the API's event loop (ADR 0054)", function () {
  this.timeout(60_000);

  it("compiles a small filter at once on the caller's thread and a big one on its own thread, to the same program", async () => {
    const compiler = new ThreadedBpfCompiler(new RecordingLogger());
    try {
      const small = ["icmp", "tcp port 80"];
      expect(small.join("").length).to.be.at.most(INLINE_COMPILE_CHARACTERS);
      expect(await compiler.compile(small)).to.deep.equal(compileProgram(small));
      const big = bigFilter(8);
      expect(big.join("").length).to.be.above(INLINE_COMPILE_CHARACTERS);
      expect(await compiler.compile(big)).to.deep.equal(compileProgram(big));
      expect(await compiler.compile(["tcp port"])).to.satisfy(E.isLeft);
    } finally {
      await compiler.close();
    }
  });

  it("keeps the caller's event loop turning while a big filter compiles", async () => {
    const compiler = new ThreadedBpfCompiler(new RecordingLogger());
    try {
      const big = bigFilter(64);
      let turns = 0;
      let compiled = false;
      const spin = (): void => {
        turns++;
        if (!compiled) setImmediate(spin);
      };
      setImmediate(spin);
      const result = await compiler.compile(big);
      compiled = true;
      expect(E.isRight(result)).to.equal(true);
      // Compiled inline, the loop would not turn once before the compile's answer.
      expect(turns).to.be.above(1);
    } finally {
      await compiler.close();
    }
  });

  it("compiles inline what a thread that died owed, says so once, and starts a thread again for the next big one", async () => {
    const logger = new RecordingLogger();
    const compiler = new ThreadedBpfCompiler(logger, 0, DYING_THREAD);
    try {
      const lines = ["udp port 53", "icmp"];
      expect(await compiler.compile(lines)).to.deep.equal(compileProgram(lines));
      expect(logger.lines.filter((l) => l.msg === "bpf compiler thread stopped; its compiles run inline")).to.have.length(1);
      expect(await compiler.compile(["arp"])).to.deep.equal(compileProgram(["arp"]));
      expect(logger.lines.filter((l) => l.msg === "bpf compiler thread stopped; its compiles run inline")).to.have.length(2);
    } finally {
      await compiler.close();
    }
  });

  it("compiles inline once closed: no thread outlives shutdown", async () => {
    const compiler = new ThreadedBpfCompiler(new RecordingLogger());
    await compiler.close();
    const big = bigFilter(2);
    expect(await compiler.compile(big)).to.deep.equal(compileProgram(big));
  });
});
