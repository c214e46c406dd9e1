import { expect } from "chai";
import { Worker } from "node:worker_threads";
import { FrameRing } from "../../../src/adapters/transport/frame-ring.js";

const numbered = (n: number, length = 64): Buffer => {
  const frame = Buffer.alloc(length, 0xab);
  frame.writeUInt32BE(n, 0);
  return frame;
};
const readAll = (ring: FrameRing, max = Infinity): Buffer[] => {
  const got: Buffer[] = [];
  ring.read(max, (f) => got.push(Buffer.from(f.buffer, f.byteOffset, f.length)));
  return got;
};

describe("FrameRing: one direction of a link between two threads (ADR 0111)", () => {
  it("gives the frames written, in order, each a copy of its own with its length", () => {
    const ring = FrameRing.create(4096);
    const sent = [numbered(0, 60), numbered(1, 1514 - 1000), numbered(2, 61)];
    for (const f of sent) expect(ring.write(f)).to.equal("written");
    sent[0]!.fill(0);
    const got = readAll(ring);
    expect(got.map((f) => f.length)).to.deep.equal([60, 514, 61]);
    expect(got.map((f) => f.readUInt32BE(0))).to.deep.equal([0, 1, 2]);
    expect(got[0]![59], "not a view of the ring or of the sender's buffer").to.equal(0xab);
    expect(ring.waiting).to.equal(false);
    for (let i = 0; i < 100; i++) ring.write(Buffer.alloc(200, 0xcd));
    expect(got.map((f) => [f.readUInt32BE(0), f[f.length - 1]]), "the ring's room written over: the frames read stay as they were").to.deep.equal([[0, 0xab], [1, 0xab], [2, 0xab]]);
  });

  it("gives more frames than one copied run holds (64 KiB) in order, whole, across runs", () => {
    const ring = FrameRing.create(1 << 20);
    for (let i = 0; i < 200; i++) ring.write(numbered(i, 1514));
    const got = readAll(ring);
    expect(got.map((f) => f.readUInt32BE(0))).to.deep.equal(Array.from({ length: 200 }, (_, i) => i));
    expect(got.every((f) => f.length === 1514 && f[1513] === 0xab)).to.equal(true);
  });

  it("gives at most the frames asked for, the rest at the next read", () => {
    const ring = FrameRing.create(4096);
    for (let i = 0; i < 5; i++) ring.write(numbered(i));
    expect(readAll(ring, 2).map((f) => f.readUInt32BE(0))).to.deep.equal([0, 1]);
    expect(ring.waiting).to.equal(true);
    expect(readAll(ring).map((f) => f.readUInt32BE(0))).to.deep.equal([2, 3, 4]);
  });

  it("wraps round its region many times without splitting a frame", () => {
    const ring = FrameRing.create(4096);
    const got: number[] = [];
    for (let i = 0; i < 10_000; i++) {
      expect(ring.write(numbered(i, 60 + (i % 900)))).to.equal("written");
      if (i % 3 === 2) for (const f of readAll(ring)) got.push(f.readUInt32BE(0));
    }
    for (const f of readAll(ring)) got.push(f.readUInt32BE(0));
    expect(got).to.deep.equal(Array.from({ length: 10_000 }, (_, i) => i));
  });

  it("drops a frame it has no room for, counting it and its bytes for the reader, and takes frames again once read", () => {
    const ring = FrameRing.create(4096);
    let written = 0;
    while (ring.write(numbered(written, 1000)) === "written") written++;
    expect(written, "4 records of 1,004 bytes in 4,096").to.equal(4);
    expect(ring.write(numbered(99, 72)), "the 80 bytes left take a record of 76").to.equal("written");
    expect(ring.write(numbered(100, 1000))).to.equal("full");
    expect(ring.takeOverflow()).to.deep.equal({ frames: 2, bytes: 2000 });
    expect(ring.takeOverflow(), "taken once").to.deep.equal({ frames: 0, bytes: 0 });
    expect(readAll(ring).map((f) => f.readUInt32BE(0))).to.deep.equal([0, 1, 2, 3, 99]);
    expect(ring.write(numbered(5, 1000))).to.equal("written");
  });

  it("counts a frame larger than the whole ring as dropped", () => {
    const ring = FrameRing.create(4096);
    expect(ring.write(Buffer.alloc(5000))).to.equal("full");
    expect(ring.takeOverflow()).to.deep.equal({ frames: 1, bytes: 5000 });
  });

  it("says gone to the writer once the reader closed, writing nothing", () => {
    const ring = FrameRing.create(4096);
    ring.closeReader();
    expect(ring.write(numbered(0))).to.equal("gone");
    expect(ring.waiting).to.equal(false);
  });

  it("keeps what was written before the writer closed for the reader, and says the writer went", () => {
    const ring = FrameRing.create(4096);
    ring.write(numbered(7));
    ring.closeWriter();
    expect(ring.writerGone).to.equal(true);
    expect(readAll(ring).map((f) => f.readUInt32BE(0))).to.deep.equal([7]);
  });

  it("refuses a size that is not a power of two from 4 KiB to 1 GiB, and a buffer that is not a ring", () => {
    for (const wrong of [0, 1000, 4095, 6000, 2 ** 31, 4096.5, Number.NaN]) expect(() => FrameRing.create(wrong), String(wrong)).to.throw(RangeError, "a frame ring holds a power of two of bytes from 4096 to 2^30");
    expect(FrameRing.of(new ArrayBuffer(4128))).to.equal(undefined);
    expect(FrameRing.of(new SharedArrayBuffer(100))).to.equal(undefined);
    expect(FrameRing.of({ byteLength: 4128 })).to.equal(undefined);
    expect(FrameRing.of(FrameRing.create(4096).buffer)).to.be.instanceOf(FrameRing);
  });

  it("wakes a waiting reader when a frame is written, and not before", async () => {
    const ring = FrameRing.create(4096);
    const wait = ring.whenWritten();
    expect(wait).to.be.instanceOf(Promise);
    let woke = false;
    void wait!.then(() => (woke = true));
    await new Promise((r) => setTimeout(r, 20));
    expect(woke).to.equal(false);
    ring.write(numbered(1));
    await new Promise((r) => setTimeout(r, 20));
    expect(woke).to.equal(true);
    expect(ring.whenWritten(), "a frame waits: no wait").to.equal(undefined);
  });

  it("rings the doorbell a waiting reader left in the ring, once, when a frame is written (ADR 0112)", () => {
    const rung: number[] = [];
    const ring = FrameRing.create(4096, (id) => rung.push(id));
    ring.write(numbered(1));
    expect(rung, "nobody waits: no ring").to.deep.equal([]);
    expect(ring.awaitBell(7), "a frame waits: read it, do not wait").to.equal(false);
    readAll(ring);
    expect(ring.awaitBell(7)).to.equal(true);
    ring.write(numbered(2));
    ring.write(numbered(3));
    expect(rung, "one ring for the frames written while it had not looked again").to.deep.equal([7]);
    readAll(ring);
    expect(ring.awaitBell(9)).to.equal(true);
    ring.closeWriter();
    expect(rung, "the writer going rings too").to.deep.equal([7, 9]);
    expect(ring.awaitBell(9), "the writer went: nothing to wait for").to.equal(false);
  });

  it("keeps staged frames from the reader until they are published, then wakes it once for all of them", () => {
    const rung: number[] = [];
    const ring = FrameRing.create(4096, (id) => rung.push(id));
    expect(ring.awaitBell(3)).to.equal(true);
    for (let i = 0; i < 5; i++) expect(ring.stage(numbered(i))).to.equal("written");
    expect(ring.waiting, "staged: not the reader's yet").to.equal(false);
    expect(rung).to.deep.equal([]);
    ring.publish();
    expect(readAll(ring).map((f) => f.readUInt32BE(0))).to.deep.equal([0, 1, 2, 3, 4]);
    expect(rung, "one ring for the five").to.deep.equal([3]);
    ring.publish();
    expect(rung, "nothing staged: no ring").to.deep.equal([3]);
  });

  it("publishes what was staged when the writer closes", () => {
    const ring = FrameRing.create(4096);
    ring.stage(numbered(7));
    ring.closeWriter();
    expect(readAll(ring).map((f) => f.readUInt32BE(0))).to.deep.equal([7]);
    expect(ring.writerGone).to.equal(true);
  });

  it("counts staged frames against the room: a full ring drops what is staged beyond it", () => {
    const ring = FrameRing.create(4096);
    let written = 0;
    for (let i = 0; i < 100; i++) if (ring.stage(numbered(i, 100)) === "written") written++;
    expect(written).to.equal(Math.floor(4096 / 104));
    expect(ring.takeOverflow().frames).to.equal(100 - written);
    ring.publish();
    expect(readAll(ring)).to.have.length(written);
  });

  it("notifies a reader that waits with Atomics.waitAsync rather than ringing the doorbell it left before", async () => {
    const rung: number[] = [];
    const ring = FrameRing.create(4096, (id) => rung.push(id));
    expect(ring.awaitBell(7)).to.equal(true);
    const wait = ring.whenWritten();
    ring.write(numbered(1));
    expect(await Promise.race([wait, new Promise((r) => setTimeout(() => r("timed out"), 1000))])).to.equal("ok");
    expect(rung).to.deep.equal([]);
  });

  it("carries 200,000 frames of 60 to 1,514 bytes from a worker thread, in order and whole, the reader waiting when the ring is empty", async () => {
    const ring = FrameRing.create(64 * 1024);
    const count = 200_000;
    const worker = new Worker(new URL("../../support/frame-ring-writer.js", import.meta.url), { workerData: { buffer: ring.buffer, count } });
    let next = 0;
    let wrong = "";
    let waits = 0;
    try {
      while (next < count && wrong === "") {
        ring.read(512, (f) => {
          const n = new DataView(f.buffer, f.byteOffset, f.length).getUint32(0);
          if (n !== next || f.length !== 60 + ((n * 97) % 1455) || f[f.length - 1] !== (n & 0xff)) wrong ||= `frame ${n} of ${f.length} bytes ending ${f[f.length - 1]} where ${next} was due`;
          next++;
        });
        const wait = ring.whenWritten();
        if (wait !== undefined) {
          waits++;
          await Promise.race([wait, new Promise((r) => setTimeout(r, 2000))]);
        } else await new Promise((r) => setImmediate(r));
        if (!ring.waiting && ring.writerGone) break;
      }
      expect(wrong).to.equal("");
      expect(next).to.equal(count);
      expect(waits, "the reader waited at times").to.be.above(0);
    } finally {
      await worker.terminate();
    }
  });
});
