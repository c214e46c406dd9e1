import { expect } from "chai";
import { Worker } from "node:worker_threads";
import { SystemClock } from "../../../src/adapters/system/system-clock.js";

const clockModule = new URL("../../../src/adapters/system/system-clock.js", import.meta.url).href;

/** How far a clock's time is from the wall clock's, read in a worker thread (whose performance.now() starts at its own origin). */
async function offsetInWorker(): Promise<number> {
  const worker = new Worker(
    `const { parentPort } = require("node:worker_threads");
     import(${JSON.stringify(clockModule)}).then(({ SystemClock }) => {
       const clock = new SystemClock();
       const before = Date.now(); const now = clock.nowMs(); const after = Date.now();
       parentPort.postMessage(now < before - 5 ? now - before : now > after + 5 ? now - after : 0);
     });`,
    { eval: true },
  );
  try {
    return await new Promise<number>((resolve, reject) => {
      worker.once("message", resolve);
      worker.once("error", reject);
    });
  } finally {
    await worker.terminate();
  }
}

describe("the system clock", () => {
  it("tells the wall clock's time in milliseconds, to within a few", () => {
    const clock = new SystemClock();
    const before = Date.now();
    const now = clock.nowMs();
    const after = Date.now();
    expect(now).to.be.within(before - 5, after + 5);
  });

  it("never goes back between two readings", () => {
    const clock = new SystemClock();
    let last = clock.nowMs();
    for (let i = 0; i < 10_000; i++) {
      const now = clock.nowMs();
      expect(now).to.be.at.least(last);
      last = now;
    }
  });

  it("tells the same time in a worker thread, whose own performance clock starts later", async () => {
    expect(await offsetInWorker()).to.equal(0);
  });
});
