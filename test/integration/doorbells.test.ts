import { expect } from "chai";
import { Worker } from "node:worker_threads";
import type { UdpBatchAddon } from "../../src/adapters/transport/batched-udp-transport.js";
import { FrameRing } from "../../src/adapters/transport/frame-ring.js";
import { threadRingWakeups } from "../../src/adapters/transport/ring-wakeups.js";
import { batchedAddonOrSkip } from "../support/udp-batch-addon.js";

type Said = { id?: number; heard?: number; rung?: boolean[]; busy?: string };

/** A worker with a doorbell, and what it said so far. */
async function doorbellThread(): Promise<{ worker: Worker; id: number; said: Said[]; next: (what: keyof Said) => Promise<Said> }> {
  const worker = new Worker(new URL("../support/doorbell-worker.js", import.meta.url));
  const said: Said[] = [];
  const waiting: { what: keyof Said; resolve: (s: Said) => void }[] = [];
  worker.on("message", (m: Said) => {
    said.push(m);
    const i = waiting.findIndex((w) => m[w.what] !== undefined);
    if (i >= 0) waiting.splice(i, 1)[0]!.resolve(m);
  });
  const next = (what: keyof Said): Promise<Said> =>
    new Promise((resolve, reject) => {
      const timer = setTimeout(() => reject(new Error(`the worker did not say ${what} within 2 s`)), 2000);
      waiting.push({ what, resolve: (s) => (clearTimeout(timer), resolve(s)) });
    });
  const { id } = await next("id");
  return { worker, id: id as number, said, next };
}

describe("doorbells: one thread wakes another's loop through the addon (ADR 0112)", function () {
  this.timeout(10_000);
  let addon: UdpBatchAddon;
  const workers: Worker[] = [];

  before(function () {
    addon = batchedAddonOrSkip(this);
  });
  afterEach(async () => {
    await Promise.all(workers.splice(0).map((w) => w.terminate()));
  });

  it("wakes a worker whose doorbell another thread rings, once for the rings made while its loop was busy", async () => {
    const a = await doorbellThread();
    workers.push(a.worker);
    expect(a.id).to.be.a("number").and.above(0);
    a.worker.postMessage({ busyMs: 100 });
    await new Promise((r) => setTimeout(r, 20));
    expect([addon.ring(a.id), addon.ring(a.id), addon.ring(a.id)]).to.deep.equal([true, true, true]);
    await a.next("heard");
    await new Promise((r) => setTimeout(r, 50));
    expect(a.said.filter((s) => s.heard !== undefined)).to.deep.equal([{ heard: 1 }]);
  });

  it("lets a worker ring another worker's doorbell", async () => {
    const a = await doorbellThread();
    const b = await doorbellThread();
    workers.push(a.worker, b.worker);
    expect(b.id).to.not.equal(a.id);
    const heard = a.next("heard");
    b.worker.postMessage({ ring: a.id });
    expect((await b.next("rung")).rung).to.deep.equal([true]);
    await heard;
  });

  it("answers false to a ring of a doorbell whose thread ended, and its id is never given again", async () => {
    const a = await doorbellThread();
    await a.worker.terminate();
    expect(addon.ring(a.id)).to.equal(false);
    const b = await doorbellThread();
    workers.push(b.worker);
    expect(b.id).to.be.above(a.id);
    expect(addon.ring(a.id)).to.equal(false);
  });

  it("gives a thread one doorbell (a second is refused, EEXIST) and refuses arguments of the wrong type", () => {
    threadRingWakeups(() => () => undefined);
    expect(() => addon.doorbell(() => undefined)).to.throw().with.property("code", "EEXIST");
    expect(() => (addon.doorbell as unknown as (x: unknown) => number)("not a function")).to.throw(TypeError, "onRing must be a function");
    expect(() => (addon.ring as unknown as (x: unknown) => boolean)("1")).to.throw(TypeError, "doorbell id must be a number");
    expect(addon.ring(0), "no doorbell is 0").to.equal(false);
  });

  it("carries 200,000 frames of 60 to 1,514 bytes from a worker to a reader woken by its doorbell, in order and whole", async () => {
    const wakeups = threadRingWakeups(() => () => undefined);
    expect(wakeups.bell, "doorbells, not Atomics").to.be.a("function");
    const ring = FrameRing.create(64 * 1024, wakeups.bell);
    const count = 200_000;
    const worker = new Worker(new URL("../support/frame-ring-writer.js", import.meta.url), { workerData: { buffer: ring.buffer, count, doorbells: true } });
    workers.push(worker);
    const waiter = wakeups.waiter();
    let next = 0;
    let wrong = "";
    let waits = 0;
    while (next < count && wrong === "") {
      ring.read(512, (f) => {
        const n = new DataView(f.buffer, f.byteOffset, f.length).getUint32(0);
        if (n !== next || f.length !== 60 + ((n * 97) % 1455) || f[f.length - 1] !== (n & 0xff)) wrong ||= `frame ${n} of ${f.length} bytes ending ${f[f.length - 1]} where ${next} was due`;
        next++;
      });
      if (!ring.waiting && ring.writerGone) break;
      const woke = new Promise<string>((resolve) => {
        if (waiter.wait(ring, () => resolve("woke"))) waits++;
        else setImmediate(() => resolve("read on"));
      });
      // No timer behind a doorbell: a lost wake-up would stall here.
      const how = await Promise.race([woke, new Promise<string>((r) => setTimeout(() => r("stalled"), 2000))]);
      if (how === "stalled") wrong = `stalled at frame ${next}: a wake-up was lost`;
    }
    expect(wrong).to.equal("");
    expect(next).to.equal(count);
    expect(waits, "the reader waited at times").to.be.above(0);
  });
});
