import { expect } from "chai";
import { Worker } from "node:worker_threads";
import { SystemClock } from "../../../src/adapters/system/system-clock.js";

const clockModule = new URL("../../../src/adapters/system/system-clock.js", import.meta.url).href;
/**
 * How far from Date.now() a reading may be: the clock counts from the thread's start on the monotonic
 * clock, which NTP's slewing may move away from the wall clock over a long test run (the point here is
 * that it tells the time since the epoch, not how well two clocks agree).
 */
const DRIFT_MS = 1000;

/** Date.now() before, the clock's reading, and Date.now() after, taken in a worker thread (whose performance.now() starts at its own origin). */
async function readingInWorker(): Promise<{ before: number; now: number; after: number }> {
  const worker = new Worker(
    `const { parentPort } = require("node:worker_threads");
     import(${JSON.stringify(clockModule)}).then(({ SystemClock }) => {
       const clock = new SystemClock();
       const before = Date.now(); const now = clock.nowMs(); const after = Date.now();
       parentPort.postMessage({ before, now, after });
     });`,
    { eval: true },
  );
  try {
    return await new Promise((resolve, reject) => {
      worker.once("message", resolve);
      worker.once("error", reject);
    });
  } finally {
    await worker.terminate();
  }
}

describe("the system clock", () => {
  it("tells the time in milliseconds since the epoch, as the wall clock does", () => {
    const clock = new SystemClock();
    const before = Date.now();
    const now = clock.nowMs();
    const after = Date.now();
    expect(now).to.be.within(before - DRIFT_MS, after + DRIFT_MS);
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
    const { before, now, after } = await readingInWorker();
    expect(now).to.be.within(before - DRIFT_MS, after + DRIFT_MS);
  });
});
