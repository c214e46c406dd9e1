import { createSocket, type Socket } from "node:dgram";
import { expect } from "chai";
import * as E from "fp-ts/lib/Either.js";
import type { SocketHandover, UdpEndpoint } from "../../src/application/ports/udp-transport.js";
import { BatchedUdpTransport, loadUdpBatchAddon, type UdpBatchAddon } from "../../src/adapters/transport/batched-udp-transport.js";
import { DgramUdpTransport } from "../../src/adapters/transport/dgram-udp-transport.js";

const OPTIONS = { bindHost: "127.0.0.1", receiveBufferBytes: 1 << 20, sendBufferBytes: 1 << 20 };

function loadOrSkip(ctx: Mocha.Context): UdpBatchAddon {
  try {
    return loadUdpBatchAddon();
  } catch (err) {
    const message = `batched UDP addon not available: ${(err as Error).message}`;
    // Under CI the addon must build: a missing compiler is a broken runner, not a reason to skip.
    if (process.env["CI"] === "true") throw new Error(`${message} (CI=true: the batched path must be built)`);
    console.log(`      skipped: ${message}`);
    ctx.skip();
  }
}

async function peerSocket(): Promise<Socket> {
  const s = createSocket("udp4");
  await new Promise<void>((resolve) => s.bind(0, "127.0.0.1", resolve));
  return s;
}

async function freePort(): Promise<number> {
  const s = await peerSocket();
  const port = s.address().port;
  await new Promise<void>((resolve) => s.close(() => resolve()));
  return port;
}

const send = (s: Socket, bytes: number[], port: number) => new Promise<void>((resolve, reject) => s.send(Uint8Array.from(bytes), port, "127.0.0.1", (err) => (err ? reject(err) : resolve())));

/** Waits (bounded) until `frames` holds `count`. */
async function until(frames: unknown[], count: number, ms = 2000): Promise<void> {
  const deadline = Date.now() + ms;
  while (frames.length < count && Date.now() < deadline) await new Promise((r) => setTimeout(r, 5));
}

describe("a NIO's socket handed over to another transport instead of closed (ADR 0069; real sockets on 127.0.0.1)", function () {
  this.timeout(10_000);
  const sockets: Socket[] = [];
  const endpoints: UdpEndpoint[] = [];
  afterEach(async () => {
    await Promise.all(endpoints.splice(0).map((e) => e.close()));
    await Promise.all(sockets.splice(0).map((s) => new Promise<void>((resolve) => s.close(() => resolve()))));
  });

  async function open(transport: BatchedUdpTransport | DgramUdpTransport, lport: number, rport: number, handover?: SocketHandover): Promise<{ endpoint: UdpEndpoint; frames: number[] }> {
    const frames: number[] = [];
    const opened = await transport.open({ lport, rhost: "127.0.0.1", rport, onFrame: (f) => frames.push(f[0] as number), ...(handover === undefined ? {} : { handover }) });
    if (E.isLeft(opened)) throw new Error(opened.left);
    endpoints.push(opened.right);
    return { endpoint: opened.right, frames };
  }

  it("keeps what comes while no one reads it, and gives it, in order, to the endpoint that takes it over, on the same port", async function () {
    const addon = loadOrSkip(this);
    const peer = await peerSocket();
    sockets.push(peer);
    const lport = await freePort();
    const first = await open(new BatchedUdpTransport(OPTIONS, addon), lport, peer.address().port);
    await send(peer, [1], lport);
    await until(first.frames, 1);
    const handover = first.endpoint.handOver?.();
    expect(handover?.fd).to.be.a("number");
    for (let i = 2; i <= 50; i++) await send(peer, [i], lport);
    await new Promise((r) => setTimeout(r, 50));
    expect(first.frames, "the first reads nothing after the hand-over").to.deep.equal([1]);
    const second = await open(new BatchedUdpTransport(OPTIONS, addon), lport, peer.address().port, handover);
    await until(second.frames, 49);
    expect(second.frames).to.deep.equal(Array.from({ length: 49 }, (_, i) => i + 2));
    // And it sends from the same port.
    const got = new Promise<{ port: number }>((resolve) => peer.once("message", (_m, rinfo) => resolve(rinfo)));
    second.endpoint.send(Uint8Array.of(9));
    expect((await got).port).to.equal(lport);
    // Closing the first afterwards does not close the socket it handed over.
    await first.endpoint.close();
    await send(peer, [51], lport);
    await until(second.frames, 50);
    expect(second.frames.at(-1)).to.equal(51);
  });

  it("binds afresh when the socket handed over is not this NIO's (another port, a number that is no socket), and the right NIO still takes it", async function () {
    const addon = loadOrSkip(this);
    const peer = await peerSocket();
    sockets.push(peer);
    const [lport, other] = [await freePort(), await freePort()];
    const transport = new BatchedUdpTransport(OPTIONS, addon);
    const first = await open(transport, lport, peer.address().port);
    const handover = first.endpoint.handOver?.() as SocketHandover;
    const elsewhere = await open(transport, other, peer.address().port, handover);
    const stray = await open(transport, await freePort(), peer.address().port, { fd: 2_000_000 });
    await send(peer, [7], other);
    await until(elsewhere.frames, 1);
    expect(elsewhere.frames).to.deep.equal([7]);
    void stray;
    const right = await open(transport, lport, peer.address().port, handover);
    await send(peer, [8], lport);
    await until(right.frames, 1);
    expect(right.frames).to.deep.equal([8]);
  });

  it("cannot hand over on the node:dgram path, which closes the socket as before", async () => {
    const peer = await peerSocket();
    sockets.push(peer);
    const { endpoint } = await open(new DgramUdpTransport(OPTIONS), await freePort(), peer.address().port);
    expect(endpoint.handOver).to.equal(undefined);
  });
});
