import { expect } from "chai";
import { FrameRing } from "../../../src/adapters/transport/frame-ring.js";
import { ThreadDoorbell, doorbellWakeups, ringWakeupsOf, type RingWakeups } from "../../../src/adapters/transport/ring-wakeups.js";
import { FakeDoorbells } from "../../support/fake-doorbells.js";

/** A reader's thread and a writer's thread of one process, joined by fake doorbells. */
function threads() {
  const doorbells = new FakeDoorbells();
  const reader = doorbells.forThread();
  const readerSide = doorbellWakeups(reader, new ThreadDoorbell(reader));
  const writer = doorbells.forThread();
  const writerSide = doorbellWakeups(writer, new ThreadDoorbell(writer));
  const ring = () => {
    const written = FrameRing.create(4096, writerSide.bell);
    return { written, read: FrameRing.of(written.buffer, readerSide.bell) as FrameRing };
  };
  return { doorbells, readerSide, ring };
}

describe("ring wake-ups: a reader of a frame ring waits on its thread's doorbell (ADR 0112)", () => {
  it("wakes a waiting reader once its ring is written, by its thread's doorbell, and not before", () => {
    const t = threads();
    const { written, read } = t.ring();
    let woke = 0;
    expect(t.readerSide.waiter().wait(read, () => woke++)).to.equal(true);
    t.doorbells.deliver();
    expect(woke).to.equal(0);
    written.write(Uint8Array.of(1));
    expect(woke, "not in the writer's call").to.equal(0);
    t.doorbells.deliver();
    expect(woke).to.equal(1);
    t.doorbells.deliver();
    expect(woke, "once per wait").to.equal(1);
  });

  it("does not wait when a frame is there already, or the writer went", () => {
    const t = threads();
    const a = t.ring();
    a.written.write(Uint8Array.of(1));
    expect(t.readerSide.waiter().wait(a.read, () => undefined)).to.equal(false);
    const b = t.ring();
    b.written.closeWriter();
    expect(t.readerSide.waiter().wait(b.read, () => undefined)).to.equal(false);
  });

  it("wakes only the readers whose ring was written; the others go on waiting and are woken by their own ring later", () => {
    const t = threads();
    const rings = [t.ring(), t.ring(), t.ring()];
    const woke = [0, 0, 0];
    rings.forEach((r, i) => t.readerSide.waiter().wait(r.read, () => woke[i]!++));
    rings[1]!.written.write(Uint8Array.of(1));
    t.doorbells.deliver();
    expect(woke).to.deep.equal([0, 1, 0]);
    rings[2]!.written.write(Uint8Array.of(2));
    t.doorbells.deliver();
    expect(woke).to.deep.equal([0, 1, 1]);
  });

  it("goes on waiting when what rang was read before the ring was heard (a drain), and hears the next write", () => {
    const t = threads();
    const { written, read } = t.ring();
    let woke = 0;
    t.readerSide.waiter().wait(read, () => woke++);
    written.write(Uint8Array.of(1));
    read.read(10, () => undefined);
    t.doorbells.deliver();
    expect(woke, "nothing there when heard").to.equal(0);
    written.write(Uint8Array.of(2));
    t.doorbells.deliver();
    expect(woke, "the wait was asked again: the next write rang").to.equal(1);
  });

  it("forgets a cancelled wait, and a later wait of the same reader replaces its earlier one", () => {
    const t = threads();
    const a = t.ring();
    const b = t.ring();
    const woke: string[] = [];
    const waiter = t.readerSide.waiter();
    waiter.wait(a.read, () => woke.push("a"));
    waiter.cancel();
    a.written.write(Uint8Array.of(1));
    t.doorbells.deliver();
    expect(woke).to.deep.equal([]);
    waiter.wait(b.read, () => woke.push("b first"));
    waiter.wait(b.read, () => woke.push("b again"));
    b.written.write(Uint8Array.of(1));
    t.doorbells.deliver();
    expect(woke).to.deep.equal(["b again"]);
  });

  const timers = (ms: number, callback: () => void) => {
    const timer = setTimeout(callback, ms);
    return () => clearTimeout(timer);
  };
  const wakesOnWrite = async (wakeups: RingWakeups, ring: FrameRing): Promise<void> => {
    const woke = new Promise<void>((resolve) => expect(wakeups.waiter().wait(ring, resolve)).to.equal(true));
    ring.write(Uint8Array.of(1));
    await woke;
  };

  it("uses Atomics.waitAsync where the addon cannot be loaded: no bell, and a waiter that still wakes", async () => {
    const wakeups = ringWakeupsOf(timers, () => {
      throw new Error("not built");
    });
    expect(wakeups.bell).to.equal(undefined);
    await wakesOnWrite(wakeups, FrameRing.create(4096));
  });

  it("keeps the bell for writing where the thread cannot have a doorbell of its own, its readers waiting with Atomics", async () => {
    const doorbells = new FakeDoorbells();
    const thread = doorbells.forThread();
    thread.doorbell(() => undefined);
    const wakeups = ringWakeupsOf(timers, () => thread);
    expect(wakeups.bell, "rings the doorbells of other threads' readers").to.be.a("function");
    const ring = FrameRing.create(4096, wakeups.bell);
    await wakesOnWrite(wakeups, ring);
    expect(doorbells.rings, "the reader waited with Atomics: notified, not rung").to.deep.equal([]);
  });
});
