import { expect } from "chai";
import { Worker } from "node:worker_threads";
import type { UdpBatchAddon } from "../../src/adapters/transport/batched-udp-transport.js";
import { batchedAddonOrSkip } from "../support/udp-batch-addon.js";
import { sendPaced } from "../support/paced-udp-sender.js";
import { freeUdpPort } from "../support/udp-peer.js";

/**
 * Receive coalescing in the batched addon (ADR 0110): a UDP socket whose wake-ups come closer together
 * than the interval is parked and drained by the thread's coalescing timer; a tick that finds it empty
 * (or more waiting than a wake-up takes) lets it wake the loop itself again. Frames are numbered so
 * that a loss, a repeat or a reordering shows; each batch notes whether its socket was parked.
 */

const BUFFER = 4 << 20;

function numbered(count: number): Buffer[] {
  return Array.from({ length: count }, (_, i) => {
    const f = Buffer.alloc(64, 0xab);
    f.writeUInt32BE(i, 0);
    return f;
  });
}

interface Receiver {
  handle: unknown;
  readonly seqs: number[];
  /** Frames delivered while the socket was parked (by the coalescing timer). */
  parkedFrames: number;
  batches: number;
  lastAtNs: bigint;
}

/** An onBatch that reads each frame's number into `r`, noting whether the thread had a socket parked. */
function batchInto(addon: UdpBatchAddon, r: Receiver) {
  return (pool: ArrayBuffer, offset: number, lengths: Uint32Array, count: number): void => {
    const view = new DataView(pool);
    let at = offset;
    for (let i = 0; i < count; i++) {
      r.seqs.push(view.getUint32(at));
      at += lengths[i]!;
    }
    r.batches++;
    if (addon.coalescing().parked > 0) r.parkedFrames += count;
    r.lastAtNs = process.hrtime.bigint();
  };
}

function receive(addon: UdpBatchAddon, lport: number, peerPort: number): Receiver {
  const r: Receiver = { handle: undefined, seqs: [], parkedFrames: 0, batches: 0, lastAtNs: 0n };
  r.handle = addon.open(4, "127.0.0.1", lport, "127.0.0.1", peerPort, BUFFER, BUFFER, batchInto(addon, r), () => undefined);
  return r;
}

const inOrder = (n: number): number[] => Array.from({ length: n }, (_, i) => i);
const settle = (ms: number): Promise<void> => new Promise((r) => setTimeout(r, ms));

/** Waits until `done()` holds, checking every ms; fails naming `what` after `withinMs` (a loaded machine's loop may stall). */
async function until(done: () => boolean, what: string | (() => string), withinMs = 3000): Promise<void> {
  const deadline = Date.now() + withinMs;
  while (!done()) {
    if (Date.now() > deadline) throw new Error(`not within ${withinMs} ms: ${typeof what === "string" ? what : what()}`);
    await settle(1);
  }
}
const allOf = (r: Receiver, n: number): Promise<void> => until(() => r.seqs.length >= n, () => `${n} frames (${r.seqs.length} came)`);

describe("receive coalescing on the batched path (ADR 0110)", function () {
  this.timeout(20_000);
  let addon: UdpBatchAddon;
  let ports: { recv: number; send: number };
  const open: unknown[] = [];

  before(function () {
    addon = batchedAddonOrSkip(this);
  });
  beforeEach(async () => {
    ports = { recv: await freeUdpPort(), send: await freeUdpPort() };
  });
  afterEach(() => {
    for (const h of open.splice(0)) addon.close(h);
    addon.setCoalescing(0);
  });

  const receiving = (): Receiver => {
    const r = receive(addon, ports.recv, ports.send);
    open.push(r.handle);
    return r;
  };

  /** A socket coalescing at 500 µs, parked on a stream of 4,000 frames 50 µs apart that is still coming. */
  const parkedMidStream = async (): Promise<{ r: Receiver; sending: Promise<unknown> }> => {
    addon.setCoalescing(500);
    const r = receiving();
    const sending = sendPaced({ fromPort: ports.send, toPort: ports.recv, frames: numbered(4000), gapMicros: 50 });
    await until(() => addon.coalescing().parked > 0, "the socket parked");
    return { r, sending };
  };

  it("drains a stream closer together than the interval on the timer: 3,000 frames 50 µs apart at 500 µs arrive once each, in order, most of them while parked", async () => {
    addon.setCoalescing(500);
    const r = receiving();
    const ticksBefore = addon.coalescing().ticks;
    await sendPaced({ fromPort: ports.send, toPort: ports.recv, frames: numbered(3000), gapMicros: 50 });
    await allOf(r, 3000);
    await settle(5);
    expect(r.seqs).to.deep.equal(inOrder(3000));
    const ticks = addon.coalescing().ticks - ticksBefore;
    console.log(`      ${r.batches} batches (${(3000 / r.batches).toFixed(1)} frames each), ${r.parkedFrames} frames while parked, ${ticks} ticks`);
    // A sender descheduled for longer than the interval (two cores shared with other work) makes a tick
    // find nothing, and the socket wakes the loop itself until it parks again: most, not all, come parked.
    expect(r.parkedFrames, "frames the coalescing timer delivered").to.be.at.least(1500);
    expect(r.batches, "about a batch a tick, not one a frame").to.be.below(1000);
    expect(ticks).to.be.at.least(100);
  });

  it("leaves nothing behind when the stream stops: the last frames arrive within the interval and the socket wakes the loop itself again, its timer stopped", async () => {
    addon.setCoalescing(1000);
    const r = receiving();
    const { lastSentNs } = await sendPaced({ fromPort: ports.send, toPort: ports.recv, frames: numbered(2000), gapMicros: 40 });
    await allOf(r, 2000);
    await settle(5);
    expect(r.seqs).to.deep.equal(inOrder(2000));
    const lastLatencyMs = Number(r.lastAtNs - lastSentNs) / 1e6;
    console.log(`      the last frame arrived ${lastLatencyMs.toFixed(3)} ms after it was sent`);
    // Delivered by the tick after it (1 ms), not left for whatever wakes the loop next; a loaded machine's loop may be late.
    expect(lastLatencyMs, "the last frame is not held past the tick after it").to.be.below(50);
    await until(() => addon.coalescing().parked === 0, "the socket unparked once the stream ended");
    const ticks = addon.coalescing().ticks;
    await settle(20);
    expect(addon.coalescing().ticks, "no tick once nothing is parked").to.equal(ticks);
  });

  it("never parks frames further apart than the interval: 20 frames 5 ms apart at 1,000 µs, the timer never rings", async () => {
    addon.setCoalescing(1000);
    const r = receiving();
    const ticks = addon.coalescing().ticks;
    await sendPaced({ fromPort: ports.send, toPort: ports.recv, frames: numbered(20), gapMicros: 5000 });
    await allOf(r, 20);
    await settle(5);
    expect(r.seqs).to.deep.equal(inOrder(20));
    expect(r.parkedFrames).to.equal(0);
    expect(addon.coalescing().ticks).to.equal(ticks);
  });

  it("does nothing with coalescing off (the default): no socket parks, no tick", async () => {
    expect(addon.coalescing().microseconds).to.equal(0);
    const r = receiving();
    await sendPaced({ fromPort: ports.send, toPort: ports.recv, frames: numbered(1000), gapMicros: 20 });
    await allOf(r, 1000);
    await settle(5);
    expect(r.seqs).to.deep.equal(inOrder(1000));
    expect(r.parkedFrames).to.equal(0);
    expect(addon.coalescing()).to.deep.include({ parked: 0 });
  });

  it("lets a parked socket wake the loop itself again when a tick finds more than a wake-up takes (8 × 64 frames): a burst of 3,000 after a stream that parked it is drained whole, in order", async () => {
    addon.setCoalescing(1000);
    const r = receiving();
    // 300 frames 50 µs apart park the socket; the next 3,000 leave back to back, many more than a tick takes.
    const gaps = Array.from({ length: 3299 }, (_, i) => (i < 299 ? 50 : 0));
    await sendPaced({ fromPort: ports.send, toPort: ports.recv, frames: numbered(3300), gapMicros: gaps });
    await allOf(r, 3300);
    await settle(5);
    expect(r.seqs).to.deep.equal(inOrder(3300));
    expect(r.parkedFrames, "the stream was coalesced before the burst").to.be.above(0);
    await until(() => addon.coalescing().parked === 0, "the socket unparked after the burst");
  });

  it("hands a parked socket over (detach, then adopt in its place) mid-stream: not parked while detached, and not a frame lost", async () => {
    const { r, sending } = await parkedMidStream();
    const fd = addon.detach(r.handle);
    open.splice(open.indexOf(r.handle), 1);
    expect(addon.coalescing().parked, "a detached socket is no longer parked").to.equal(0);
    await settle(5);
    r.handle = addon.adopt(fd, 4, ports.recv, "127.0.0.1", ports.send, batchInto(addon, r), () => undefined);
    open.push(r.handle);
    await sending;
    await allOf(r, 4000);
    await settle(5);
    expect(r.seqs).to.deep.equal(inOrder(4000));
  });

  it("closes a parked socket mid-stream: it leaves the timer, which stops once nothing is parked", async () => {
    const { r, sending } = await parkedMidStream();
    addon.close(r.handle);
    open.splice(open.indexOf(r.handle), 1);
    expect(addon.coalescing().parked).to.equal(0);
    const ticks = addon.coalescing().ticks;
    await sending;
    await settle(10);
    expect(addon.coalescing().ticks, "no tick after the last parked socket closed").to.be.at.most(ticks + 1);
  });

  it("lets every parked socket wake the loop again when coalescing is turned off mid-stream, and loses nothing", async () => {
    const { r, sending } = await parkedMidStream();
    addon.setCoalescing(0);
    expect(addon.coalescing()).to.deep.include({ microseconds: 0, parked: 0 });
    await sending;
    await allOf(r, 4000);
    await settle(5);
    expect(r.seqs).to.deep.equal(inOrder(4000));
  });

  it("refuses an interval that is not a whole number of microseconds from 0 to 1000, keeping the one it had", () => {
    addon.setCoalescing(300);
    for (const wrong of [-1, 1001, 1.5, Number.NaN, "200", undefined]) {
      expect(() => (addon.setCoalescing as (x: unknown) => void)(wrong), String(wrong)).to.throw(RangeError, "setCoalescing: the interval must be a whole number of microseconds from 0 to 1000");
    }
    expect(addon.coalescing().microseconds).to.equal(300);
  });

  it("is each thread's own: a worker's setting leaves this thread's alone, and a worker ending with a socket parked ends cleanly", async () => {
    addon.setCoalescing(300);
    const workerPorts = { recv: await freeUdpPort(), send: await freeUdpPort() };
    const worker = new Worker(new URL("../support/coalescing-worker.js", import.meta.url), { workerData: workerPorts });
    const said = await new Promise<{ microseconds: number; parked: number; frames: number }>((resolve, reject) => {
      worker.once("message", resolve);
      worker.once("error", reject);
    });
    expect(said.microseconds, "the worker's own setting").to.equal(700);
    expect(said.parked, "the worker's socket parked on its stream").to.equal(1);
    expect(said.frames).to.be.above(0);
    expect(addon.coalescing().microseconds, "this thread's, unchanged").to.equal(300);
    // Terminated with its socket parked and the stream still coming: its teardown closes both the socket and the timer.
    expect(await worker.terminate()).to.equal(1);
  });
});
