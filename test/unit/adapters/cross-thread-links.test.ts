import { expect } from "chai";
import { CROSS_THREAD_RING_BYTES, RingReader } from "../../../src/adapters/transport/cross-thread-links.js";
import { FrameRing } from "../../../src/adapters/transport/frame-ring.js";
import { BARRIER_TIMEOUT_MS } from "../../../src/adapters/transport/in-process-links.js";
import { FakeKernel, bytes, world, type World } from "../../support/fake-link-transport.js";
import { LinkChannelHub } from "../../support/link-channel-hub.js";
import { FakeDoorbells } from "../../support/fake-doorbells.js";
import { atomicsWakeups } from "../../../src/adapters/transport/ring-wakeups.js";

/** Two (or more) threads of one process as worlds sharing a kernel and a channel hub (ADR 0111). */
type Wake = "doorbell" | "atomics";
type Process = { kernel: FakeKernel; hub: LinkChannelHub; doorbells: FakeDoorbells | undefined; threads: World[] };

/** `wake`: the rings' readers are woken by doorbells (the addon's, faked) or by Atomics.waitAsync (no addon). */
function process_(wake: Wake, count = 2, betweenThreads = true): Process {
  const kernel = new FakeKernel();
  const hub = new LinkChannelHub();
  const doorbells = wake === "doorbell" ? new FakeDoorbells() : undefined;
  return { kernel, hub, doorbells, threads: Array.from({ length: count }, () => world({ kernel, hub, betweenThreads, ...(doorbells === undefined ? {} : { doorbells }) })) };
}

/**
 * Runs everything until nothing moves: the channel's messages, the kernel's datagrams, each thread's
 * loop by hand, the doorbells, and real time for the rings' Atomics wake-ups (they settle on the real loop).
 */
async function run(p: Process, rounds = 6): Promise<void> {
  for (let i = 0; i < rounds; i++) {
    p.hub.deliver();
    p.doorbells?.deliver();
    p.threads[0]!.inner.read();
    for (const t of p.threads) t.turns.next();
    await new Promise((r) => setTimeout(r, 2));
  }
}

const frameSends = (events: string[]): string[] => events.filter((e) => e.startsWith("send ") && !e.endsWith(" barrier"));
const kinds = (hub: LinkChannelHub): string[] => hub.posted.map((m) => (m as { kind: string }).kind);

for (const wake of ["doorbell", "atomics"] as const) {
  describe(`in-process links between two threads of one process: a ring each way in shared memory (ADR 0111), woken by ${wake === "doorbell" ? "doorbells (ADR 0112)" : "Atomics.waitAsync"}`, () => {
    it("pairs two ends of two threads whose ports cross: what each sends reaches the other through the rings, never the sockets, in order", async () => {
      const p = process_(wake);
      const a = await p.threads[0]!.open(20001, 20002);
      const b = await p.threads[1]!.open(20002, 20001);
      await run(p);
      expect(kinds(p.hub), "each says it opened; the smaller key makes the pairing").to.include.members(["open", "pair"]);
      for (let i = 0; i < 300; i++) {
        a.end.send(bytes(1, i & 0xff));
        b.end.send(bytes(2, i & 0xff));
      }
      await run(p);
      expect(b.got).to.deep.equal(Array.from({ length: 300 }, (_, i) => `1,${i & 0xff}`));
      expect(a.got).to.deep.equal(Array.from({ length: 300 }, (_, i) => `2,${i & 0xff}`));
      expect(frameSends(p.kernel.events), "no frame through a socket").to.deep.equal([]);
    });

    it("pairs the same whichever end opened first, and when both speak at once", async () => {
      for (const order of ["a first", "b first", "together"] as const) {
        const p = process_(wake);
        const open = async (t: number, l: number, r: number) => p.threads[t]!.open(l, r);
        let a, b;
        if (order === "together") {
          a = await open(0, 20011, 20012);
          b = await open(1, 20012, 20011);
        } else if (order === "a first") {
          a = await open(0, 20011, 20012);
          await run(p, 2);
          b = await open(1, 20012, 20011);
        } else {
          b = await open(1, 20012, 20011);
          await run(p, 2);
          a = await open(0, 20011, 20012);
        }
        await run(p);
        expect(kinds(p.hub).filter((k) => k === "pair"), order).to.have.length(1);
        a.end.send(bytes(7));
        b.end.send(bytes(8));
        await run(p);
        expect([a.got, b.got], order).to.deep.equal([["8"], ["7"]]);
        expect(frameSends(p.kernel.events), order).to.deep.equal([]);
      }
    });

    it("publishes what one turn sends into the ring at once, waking the partner's thread once for all of it", async () => {
      const p = process_(wake);
      const a = await p.threads[0]!.open(20011, 20012);
      const b = await p.threads[1]!.open(20012, 20011);
      await run(p);
      const ringsBefore = p.doorbells?.rings.length ?? 0;
      for (let i = 0; i < 100; i++) a.end.send(bytes(1, i));
      expect(b.got, "nothing before the sender's work ends").to.deep.equal([]);
      if (p.doorbells !== undefined) expect(p.doorbells.rings.length - ringsBefore, "no ring while the turn's work goes on").to.equal(0);
      await run(p);
      expect(b.got).to.deep.equal(Array.from({ length: 100 }, (_, i) => `1,${i}`));
      if (p.doorbells !== undefined) expect(p.doorbells.rings.length - ringsBefore, "one ring for the turn's 100 frames").to.equal(1);
    });

    it("gives the partner's earlier datagrams, still in the socket, before the first frames of the rings (the barrier)", async () => {
      const p = process_(wake);
      const a = await p.threads[0]!.open(20021, 20022);
      const b = await p.threads[1]!.open(20022, 20021);
      // Sent before the pairing is known anywhere: through the socket, not read yet.
      a.end.send(bytes(1));
      a.end.send(bytes(2));
      p.hub.deliver();
      a.end.send(bytes(3));
      // The rings' frames are there before the socket is read: they wait for the barrier behind 1 and 2.
      await new Promise((r) => setTimeout(r, 5));
      for (const t of p.threads) t.turns.next();
      expect(b.got).to.deep.equal([]);
      await run(p);
      expect(b.got).to.deep.equal(["1", "2", "3"]);
    });

    it("does not wait for a barrier that came through the socket before the message that says to await it", async () => {
      const p = process_(wake);
      const a = await p.threads[0]!.open(20031, 20032);
      const b = await p.threads[1]!.open(20032, 20031);
      // Each hears the other's "open": thread 0 makes the pairing, its barrier goes on the wire ...
      p.hub.deliverOnce();
      expect(kinds(p.hub)).to.include("pair");
      // ... and is read by the partner's socket before the partner hears of the pairing.
      p.threads[0]!.inner.read();
      await run(p);
      a.end.send(bytes(5));
      await run(p, 3);
      expect(b.got, "no 100 ms hold").to.deep.equal(["5"]);
      expect(p.threads.every((t) => t.turns.timersDue(BARRIER_TIMEOUT_MS) === 0), "no barrier timer left").to.equal(true);
    });

    it("falls back to the socket when the partner closes, and what it wrote before closing still arrives first", async () => {
      const p = process_(wake);
      const a = await p.threads[0]!.open(20041, 20042);
      const b = await p.threads[1]!.open(20042, 20041);
      await run(p);
      b.end.send(bytes(1));
      await b.end.close();
      expect(kinds(p.hub)).to.include("unpair");
      a.end.send(bytes(2));
      await run(p);
      expect(a.got, "written before the close").to.deep.equal(["1"]);
      expect(frameSends(p.kernel.events), "the closed partner's socket, as the socket path would").to.deep.equal(["send 20041 2"]);
    });

    it("gives what the rings hold before a datagram the partner sent through its socket after them (it closed and opened again elsewhere, node:dgram's move)", async () => {
      const p = process_(wake, 3);
      const a = await p.threads[0]!.open(20101, 20102);
      const b = await p.threads[1]!.open(20102, 20101);
      await run(p);
      b.end.send(bytes(1));
      b.end.send(bytes(2));
      await b.end.close();
      const again = await p.threads[2]!.open(20102, 20101);
      again.end.send(bytes(3));
      // Thread 0 reads its socket before its loop has read the ring.
      p.threads[0]!.inner.read();
      expect(a.got).to.deep.equal(["1", "2", "3"]);
    });

    it("goes on through the rings where a node's socket goes: a hand-over carries the pairing to the next thread, and nothing in flight is lost or reordered", async () => {
      const p = process_(wake, 3);
      const a = await p.threads[0]!.open(20051, 20052);
      const b = await p.threads[1]!.open(20052, 20051);
      await run(p);
      for (let i = 0; i < 10; i++) a.end.send(bytes(i));
      const handover = b.end.handOver!();
      for (let i = 10; i < 20; i++) a.end.send(bytes(i));
      expect(handover.carried, "the pairing goes with the socket").to.not.equal(undefined);
      const posted = p.hub.posted.length;
      const moved = await p.threads[2]!.open(20052, 20051, "127.0.0.1", structuredClone(handover));
      moved.end.send(bytes(99));
      await run(p);
      expect(b.got.concat(moved.got)).to.deep.equal(Array.from({ length: 20 }, (_, i) => String(i)));
      expect(a.got).to.deep.equal(["99"]);
      expect(kinds(p.hub).slice(posted), "the partner was not told: nothing changed for it").to.deep.equal([]);
      expect(frameSends(p.kernel.events)).to.deep.equal([]);
    });

    it("ends a pairing whose partner opened again without a word (its thread ended), and pairs with the new one", async () => {
      const p = process_(wake, 3);
      const a = await p.threads[0]!.open(20061, 20062);
      await p.threads[1]!.open(20062, 20061);
      await run(p);
      // Thread 1 ends without closing anything; its port is opened again in thread 2.
      p.kernel.sockets.filter((s) => s.options.lport === 20062).forEach((s) => (s.open = false));
      const again = await p.threads[2]!.open(20062, 20061);
      await run(p);
      expect(kinds(p.hub).filter((k) => k === "pair")).to.have.length(2);
      a.end.send(bytes(3));
      await run(p);
      expect(again.got).to.deep.equal(["3"]);
    });

    it("drops what goes beyond a ring's room and counts it on the receiving end, as a full socket buffer would", async () => {
      const p = process_(wake);
      const a = await p.threads[0]!.open(20071, 20072);
      const b = await p.threads[1]!.open(20072, 20071);
      await run(p);
      const frame = new Uint8Array(1020);
      const fit = CROSS_THREAD_RING_BYTES / 1024;
      for (let i = 0; i < fit + 10; i++) a.end.send(frame);
      await run(p, 10);
      expect(b.got).to.have.length(fit);
      expect(b.dropped).to.deep.equal(["10 of 10200 B"]);
    });

    it("ignores what is not one of its messages on the channel, and answers a pairing for an end it does not have with its end", async () => {
      const p = process_(wake);
      await p.threads[0]!.open(20081, 20082);
      for (const junk of [null, 7, "open", { kind: "open" }, { kind: "pair", pairing: "x" }, { kind: "unpair" }, { kind: "other" }]) p.hub.inject(junk);
      p.hub.inject({ kind: "pair", pairing: "p1", maker: { key: "k", incarnation: "i" }, taker: { key: "nobody", incarnation: "i" }, toTaker: new SharedArrayBuffer(4128), toMaker: new SharedArrayBuffer(4128), barrierToTaker: new Uint8Array(32), barrierToMaker: new Uint8Array(32) });
      expect(p.hub.posted.at(-1)).to.deep.equal({ kind: "unpair", pairing: "p1" });
    });

    it("pairs nothing between threads when kept within one (NETEMU_IN_PROCESS_LINKS=thread, or no doorbells): no channel, the sockets carry the frames", async () => {
      const p = process_(wake, 2, false);
      const a = await p.threads[0]!.open(20111, 20112);
      const b = await p.threads[1]!.open(20112, 20111);
      await run(p);
      a.end.send(bytes(1));
      await run(p);
      expect(b.got).to.deep.equal(["1"]);
      expect(frameSends(p.kernel.events)).to.deep.equal(["send 20111 1"]);
      expect(p.hub.openChannels).to.equal(0);
      expect(p.hub.posted).to.deep.equal([]);
    });

    it("leaves the channel once the thread has no end that can pair, and stays off it when it never had one", async () => {
      const p = process_(wake);
      const a = await p.threads[0]!.open(20091, 20092);
      expect(p.hub.openChannels).to.equal(1);
      await a.end.close();
      expect(p.hub.openChannels).to.equal(0);
      await p.threads[0]!.open(20093, 20094, "192.0.2.1");
      expect(p.hub.openChannels, "a peer on another host").to.equal(0);
    });
  });
}

describe("RingReader: what an end of a link between threads reads (ADR 0111)", () => {
  /** The loop's own turns and timers, counting the timers the reader sets and has not cancelled or seen fire. */
  const realTurns = () => {
    let live = 0;
    return {
      get liveTimers() {
        return live;
      },
      defer: (callback: () => void) => void setImmediate(callback),
      later: (ms: number, callback: () => void) => {
        live++;
        let done = false;
        const timer = setTimeout(() => {
          done = true;
          live--;
          callback();
        }, ms);
        return () => {
          if (done) return;
          done = true;
          live--;
          clearTimeout(timer);
        };
      },
    };
  };

  it("reads a frame whose wake-up was lost, on its own timer (Node 20 loses an Atomics.waitAsync wake-up now and then)", async () => {
    const ring = FrameRing.create(4096);
    const got: number[] = [];
    const reader = new RingReader(setImmediate, atomicsWakeups(realTurns().later).waiter(), 512, (f) => got.push(f[0] as number), () => undefined);
    reader.add(ring);
    await new Promise((r) => setTimeout(r, 20));
    // The reader waits; its flag cleared, the writer will not notify it: as if the wake-up were lost.
    new Int32Array(ring.buffer, 0, 8)[3] = 0;
    ring.write(Uint8Array.of(42));
    const deadline = Date.now() + 1000;
    while (got.length === 0 && Date.now() < deadline) await new Promise((r) => setTimeout(r, 5));
    expect(got).to.deep.equal([42]);
    reader.stop();
  });

  it("keeps one timer however often it is woken, and none once stopped", async () => {
    const ring = FrameRing.create(4096);
    const turns = realTurns();
    const reader = new RingReader(setImmediate, atomicsWakeups(turns.later).waiter(), 512, () => undefined, () => undefined);
    reader.add(ring);
    for (let i = 0; i < 20; i++) {
      reader.hold();
      reader.release();
      ring.write(Uint8Array.of(i));
      await new Promise((r) => setImmediate(r));
    }
    await new Promise((r) => setTimeout(r, 10));
    expect(turns.liveTimers).to.be.at.most(1);
    reader.stop();
    expect(turns.liveTimers).to.equal(0);
  });
});
