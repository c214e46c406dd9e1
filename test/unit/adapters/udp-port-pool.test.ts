import { expect } from "chai";
import { spawnSync } from "node:child_process";
import { fileURLToPath } from "node:url";
import * as E from "fp-ts/lib/Either.js";
import { DgramUdpPortPool, type BindProbe, type BindProbeResult } from "../../../src/adapters/transport/udp-port-pool.js";

/** A probe answering from a script, port by port, and noting each port it was asked about. */
function scriptedProbe(answers: (port: number) => BindProbeResult): BindProbe & { asked: number[] } {
  const asked: number[] = [];
  const probe = async (port: number) => {
    asked.push(port);
    return answers(port);
  };
  return Object.assign(probe, { asked });
}

describe("the UDP port pool (DgramUdpPortPool)", () => {
  it("skips ports another program holds and hands out the next one that binds", async () => {
    const probe = scriptedProbe((port) => (port < 20002 ? { outcome: "in-use" } : { outcome: "free" }));
    const pool = new DgramUdpPortPool(20000, 30000, "127.0.0.1", probe);
    expect(await pool.reserve("p")).to.deep.equal(E.right(20002));
    expect(probe.asked).to.deep.equal([20000, 20001, 20002]);
    expect(pool.reserved()).to.deep.equal([20002]);
  });

  it("answers NoFreeUdpPort when every port of the range is in use", async () => {
    const pool = new DgramUdpPortPool(20000, 20003, "127.0.0.1", scriptedProbe(() => ({ outcome: "in-use" })));
    expect(await pool.reserve("p")).to.deep.equal(E.left({ _tag: "NoFreeUdpPort", start: 20000, end: 20003 }));
  });

  for (const code of ["EMFILE", "ENFILE", "EADDRNOTAVAIL"]) {
    it(`stops at the first bind failing with ${code}, says so, holds nothing, and tries that port again next time`, async () => {
      let failing = true;
      const probe = scriptedProbe(() => (failing ? { outcome: "failed", code, detail: `bind ${code} 127.0.0.1:20000` } : { outcome: "free" }));
      const pool = new DgramUdpPortPool(20000, 30000, "127.0.0.1", probe);
      expect(await pool.reserve("p")).to.deep.equal(
        E.left({ _tag: "UdpPortCheckFailed", port: 20000, address: "127.0.0.1", code, detail: `bind ${code} 127.0.0.1:20000` }),
      );
      expect(probe.asked, "one port tried, not the 10,001 of the range").to.deep.equal([20000]);
      expect(pool.reserved()).to.deep.equal([]);
      failing = false;
      expect(await pool.reserve("p")).to.deep.equal(E.right(20000));
    });
  }

  it("really out of file descriptors (ulimit -n), answers EMFILE at once instead of scanning the range", function () {
    this.timeout(15_000);
    const script = fileURLToPath(new URL("../../support/reserve-out-of-descriptors.js", import.meta.url));
    const run = spawnSync("sh", ["-c", `ulimit -n 64 && exec "${process.execPath}" "${script}" 20000 30000`], { encoding: "utf8", timeout: 10_000 });
    expect(run.status, run.stderr).to.equal(0);
    const { answer, ms } = JSON.parse(run.stdout) as { answer: E.Either<{ _tag: string; code: string; port: number }, number>; ms: number };
    expect(E.isLeft(answer), run.stdout).to.equal(true);
    if (E.isLeft(answer)) expect(answer.left).to.deep.include({ _tag: "UdpPortCheckFailed", code: "EMFILE", port: 20000 });
    expect(ms, "no scan of the 10,001 ports (~100 ms)").to.be.below(50);
  });
});
