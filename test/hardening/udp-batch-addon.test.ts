import { spawn } from "node:child_process";
import { expect } from "chai";
import { batchedAddonOrSkip } from "../support/udp-batch-addon.js";

const TEARDOWN_CHILD = new URL("../support/udp-addon-worker-teardown.js", import.meta.url);

/** Runs the teardown child to its end (bounded): its exit code, signal and output. */
function runTeardownChild(how: string): Promise<{ code: number | null; signal: NodeJS.Signals | null; out: string }> {
  return new Promise((resolve) => {
    const child = spawn(process.execPath, [TEARDOWN_CHILD.pathname, how], { stdio: ["ignore", "pipe", "pipe"] });
    let out = "";
    child.stdout.on("data", (d: Buffer) => (out += d.toString()));
    child.stderr.on("data", (d: Buffer) => (out += d.toString()));
    const timer = setTimeout(() => child.kill("SIGKILL"), 8000);
    child.once("exit", (code, signal) => {
      clearTimeout(timer);
      resolve({ code, signal, out });
    });
  });
}

describe("the batched UDP addon at the worker boundary and under bad input (no input may crash the process)", function () {
  this.timeout(10_000);

  before(function () {
    batchedAddonOrSkip(this);
  });

  for (const how of ["terminate", "exit", "throw"] as const) {
    it(`closes the sockets of a worker that goes away with them open (${how}) and the process lives on`, async () => {
      const r = await runTeardownChild(how);
      // Before the fix, libuv called the socket's close callback after Node had unloaded the
      // worker's copy of the addon: SIGSEGV.
      expect({ code: r.code, signal: r.signal }, r.out).to.deep.equal({ code: 0, signal: null });
      expect(r.out).to.include("survived");
    });
  }
});
