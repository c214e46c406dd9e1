import { expect } from "chai";
import * as E from "fp-ts/lib/Either.js";
import { createSocket } from "node:dgram";
import type { UdpEndpoint } from "../../src/application/ports/udp-transport.js";
import { BatchedUdpTransport, chooseUdpTransport, type UdpBatchAddon } from "../../src/adapters/transport/batched-udp-transport.js";
import { batchedAddonOrSkip } from "../support/udp-batch-addon.js";
import { inertUdpBatchAddon } from "../support/inert-udp-batch-addon.js";

/**
 * UDP GSO and GRO between two netemu hops (ADR 0106): a batched endpoint sends runs of equal-size
 * frames as one GSO message; the batched endpoint at the other end takes UDP GRO, so the kernel queues
 * that message whole, and the addon cuts it into its datagrams. JavaScript must get exactly the frames
 * that were sent: each length and byte, in order. Every case runs with the offload on and off
 * (NETEMU_UDP_GSO=off), which must not change a frame.
 */

const BIG_BUFFERS = { bindHost: "127.0.0.1", receiveBufferBytes: 4 << 20, sendBufferBytes: 4 << 20 };

async function freePort(): Promise<number> {
  const s = createSocket("udp4");
  await new Promise<void>((resolve) => s.bind(0, "127.0.0.1", resolve));
  const port = s.address().port;
  await new Promise<void>((resolve) => s.close(() => resolve()));
  return port;
}

interface End {
  readonly port: number;
  endpoint: UdpEndpoint;
  readonly frames: Buffer[];
  framesArrived(count: number, withinMs?: number): Promise<void>;
}

async function openEnd(transport: BatchedUdpTransport, port: number, peerPort: number, handover?: { fd: number }): Promise<End> {
  const frames: Buffer[] = [];
  let wake = (): void => undefined;
  const opened = await transport.open({
    lport: port,
    rhost: "127.0.0.1",
    rport: peerPort,
    ...(handover === undefined ? {} : { handover }),
    // A copy: the frame is a view into its batch's buffer, which is what is being checked.
    onFrame: (f) => {
      frames.push(Buffer.from(f));
      wake();
    },
  });
  if (E.isLeft(opened)) throw new Error(opened.left);
  return {
    port,
    endpoint: opened.right,
    frames,
    framesArrived: (count, withinMs = 3000) =>
      new Promise<void>((resolve, reject) => {
        const timer = setTimeout(() => reject(new Error(`${frames.length} of ${count} frames arrived`)), withinMs);
        wake = (): void => {
          if (frames.length >= count) {
            clearTimeout(timer);
            resolve();
          }
        };
        wake();
      }),
  };
}

/** Bytes that differ from frame to frame and from byte to byte, so a frame cut in the wrong place shows. */
function frameOf(size: number, seed: number): Buffer {
  const b = Buffer.alloc(size);
  for (let i = 0; i < size; i++) b[i] = (i * 13 + seed * 7 + (i >> 8)) & 0xff;
  return b;
}

function framesOf(runs: readonly (readonly [count: number, size: number])[]): Buffer[] {
  let seed = 0;
  return runs.flatMap(([count, size]) => Array.from({ length: count }, () => frameOf(size, seed++)));
}

/** Sends the frames in one turn (one send of the addon: runs of one size leave as GSO messages). */
function sendInOneTurn(end: End, frames: readonly Buffer[]): void {
  for (const f of frames) end.endpoint.send(f);
}

function expectSame(got: readonly Buffer[], sent: readonly Buffer[]): void {
  expect(got.map((f) => f.length)).to.deep.equal(sent.map((f) => f.length));
  const wrong = got.flatMap((f, i) => (f.equals(sent[i]!) ? [] : [i]));
  expect(wrong, "frames whose bytes differ from those sent").to.deep.equal([]);
}

for (const offload of [true, false]) {
  describe(`frames between two batched endpoints with UDP GSO and GRO ${offload ? "on" : "off (NETEMU_UDP_GSO=off)"}`, function () {
    this.timeout(10_000);
    let addon: UdpBatchAddon;
    let sender: End;
    let receiver: End;

    before(function () {
      addon = batchedAddonOrSkip(this);
    });
    beforeEach(async () => {
      const [a, b] = [await freePort(), await freePort()];
      sender = await openEnd(new BatchedUdpTransport(BIG_BUFFERS, addon, offload), a, b);
      receiver = await openEnd(new BatchedUdpTransport(BIG_BUFFERS, addon, offload), b, a);
    });
    afterEach(async () => {
      await sender.endpoint.close();
      await receiver.endpoint.close();
    });

    for (const size of [60, 64, 1000, 1500]) {
      it(`delivers a run of 150 frames of ${size} B as 150 frames, each byte where it was sent, in order`, async () => {
        const sent = framesOf([[150, size]]);
        sendInOneTurn(sender, sent);
        await receiver.framesArrived(sent.length);
        expectSame(receiver.frames, sent);
      });
    }

    it("delivers jumbo frames (9,000 B, seven to a GSO message: most of each in the slot's overflow) whole", async () => {
      const sent = framesOf([[21, 9000], [1, 64], [7, 9000]]);
      sendInOneTurn(sender, sent);
      await receiver.framesArrived(sent.length);
      expectSame(receiver.frames, sent);
    });

    it("delivers mixed runs, each ended by a shorter frame (a GSO message's short last segment), with every length right", async () => {
      const sent = framesOf([[20, 1000], [1, 300], [5, 1500], [1, 60], [3, 64], [1, 14], [2, 1500], [1, 1499], [1, 9000], [1, 8999], [4, 60], [1, 0], [6, 64]]);
      sendInOneTurn(sender, sent);
      await receiver.framesArrived(sent.length);
      expectSame(receiver.frames, sent);
    });

    it("delivers runs crossing the first piece of a receive slot (2,048 B) at every offset: segments of 2,000, 2,047, 2,049 and 4,096 B", async () => {
      const sent = framesOf([[9, 2000], [1, 100], [9, 2047], [9, 2049], [1, 2048], [9, 4096], [1, 4095]]);
      sendInOneTurn(sender, sent);
      await receiver.framesArrived(sent.length);
      expectSame(receiver.frames, sent);
    });

    it("delivers runs from turn after turn in order, the way a switch forwards", async () => {
      const turns = Array.from({ length: 20 }, (_, t) => framesOf([[10 + t, t % 2 === 0 ? 64 : 1500], [1, 40 + t]]));
      for (const turn of turns) {
        sendInOneTurn(sender, turn);
        await new Promise((resolve) => setImmediate(resolve));
      }
      const sent = turns.flat();
      await receiver.framesArrived(sent.length);
      expectSame(receiver.frames, sent);
    });

    it("cuts the runs that reach a socket handed over to another endpoint (a node moved to another worker) the same way", async () => {
      const fd = receiver.endpoint.handOver?.().fd;
      expect(fd).to.be.a("number");
      receiver = await openEnd(new BatchedUdpTransport(BIG_BUFFERS, addon, offload), receiver.port, sender.port, { fd: fd! });
      const sent = framesOf([[30, 1500], [1, 700], [40, 64]]);
      sendInOneTurn(sender, sent);
      await receiver.framesArrived(sent.length);
      expectSame(receiver.frames, sent);
    });
  });
}

describe("what UDP GRO saves between two netemu hops (ADR 0106)", function () {
  this.timeout(10_000);
  let addon: UdpBatchAddon;

  before(function () {
    addon = batchedAddonOrSkip(this);
  });

  // The kernel queues a datagram on a socket whose receive buffer is full only when its queue is empty.
  // A receive buffer of a few KiB (1 asks for the kernel's least) then takes one GSO message whole when
  // the socket takes GRO, and only the first datagrams of it when the kernel has to cut it first.
  async function arrivedThroughATinyBuffer(offload: boolean): Promise<number> {
    const [a, b] = [await freePort(), await freePort()];
    const sender = await openEnd(new BatchedUdpTransport(BIG_BUFFERS, addon, offload), a, b);
    const receiver = await openEnd(new BatchedUdpTransport({ ...BIG_BUFFERS, receiveBufferBytes: 1 }, addon, offload), b, a);
    try {
      const sent = framesOf([[40, 1000]]);
      sendInOneTurn(sender, sent);
      await receiver.framesArrived(sent.length, 500).catch(() => undefined);
      const got = receiver.frames;
      got.forEach((f, i) => expect(f.equals(sent[i]!), `frame ${i}`).to.equal(true));
      return got.length;
    } finally {
      await sender.endpoint.close();
      await receiver.endpoint.close();
    }
  }

  it("a run of 40 frames from a GSO sender is queued as one message: all 40 arrive through a receive buffer too small for three datagrams", async () => {
    expect(await arrivedThroughATinyBuffer(true)).to.equal(40);
  });

  it("with NETEMU_UDP_GSO=off the kernel cuts the same run into datagrams first, and that buffer takes only the first few", async () => {
    expect(await arrivedThroughATinyBuffer(false)).to.be.below(10);
  });

  it("hands JavaScript a flood of GRO messages in calls of at most 8 × 64 frames, as it did single datagrams, so a port's backlog (1,024 frames) is never flooded by one call", async () => {
    const [a, b] = [await freePort(), await freePort()];
    const calls: number[] = [];
    const received: Buffer[] = [];
    const noError = (): void => undefined;
    const sender = addon.open(4, "127.0.0.1", a, "127.0.0.1", b, 0, 4 << 20, () => undefined, noError, true);
    const receiver = addon.open(4, "127.0.0.1", b, "127.0.0.1", a, 4 << 20, 0, (pool: ArrayBuffer, offset: number, lengths: Uint32Array, count: number) => {
      calls.push(count);
      let at = offset;
      for (let i = 0; i < count; i++) {
        const length = lengths[i] as number;
        received.push(Buffer.from(new Uint8Array(pool, at, length)));
        at += length;
      }
    }, noError, true);
    try {
      // 128 GSO messages of 64 frames queue up before the receiver's next wake-up (one send, this turn).
      const sent = framesOf([[8192, 64]]);
      expect(addon.send(sender, sent)).to.equal(sent.length);
      for (let i = 0; i < 200 && received.length < sent.length; i++) await new Promise((resolve) => setTimeout(resolve, 10));
      expectSame(received, sent);
      expect(Math.max(...calls), `frames per call: ${calls.join(", ")}`).to.be.at.most(8 * 64 + 64);
    } finally {
      addon.close(sender);
      addon.close(receiver);
    }
  });

  it("NETEMU_UDP_GSO=off picks the batched path still, without offload; unset or on, with it", function () {
    const opened: (boolean | undefined)[] = [];
    const fake = inertUdpBatchAddon({ open: (...args) => (opened.push(args[9]), {}) });
    const open = (env: NodeJS.ProcessEnv): Promise<unknown> => {
      const chosen = chooseUdpTransport(BIG_BUFFERS, () => fake, env);
      expect(chosen.path).to.deep.equal({ kind: "batched", coalescingMicroseconds: 0 });
      return chosen.transport.open({ lport: 0, rhost: "127.0.0.1", rport: 9, onFrame: () => undefined });
    };
    return Promise.all([open({ NETEMU_UDP_GSO: "off" }), open({}), open({ NETEMU_UDP_GSO: "on" })]).then(() => expect(opened).to.deep.equal([false, true, true]));
  });
});
