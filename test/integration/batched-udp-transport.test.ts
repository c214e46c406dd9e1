import { spawnSync } from "node:child_process";
import { createSocket, type Socket } from "node:dgram";
import { fileURLToPath } from "node:url";
import { expect } from "chai";
import * as E from "fp-ts/lib/Either.js";
import type { UdpEndpoint, UdpEndpointOptions } from "../../src/application/ports/udp-transport.js";
import { BatchedUdpTransport, chooseUdpTransport, loadUdpBatchAddon, type ChosenUdpTransport, type UdpBatchAddon } from "../../src/adapters/transport/batched-udp-transport.js";
import { DgramUdpTransport } from "../../src/adapters/transport/dgram-udp-transport.js";
import { FAST_PATH_NEEDS, batchedAddonOrSkip } from "../support/udp-batch-addon.js";
import { inertUdpBatchAddon } from "../support/inert-udp-batch-addon.js";

const OPTIONS = { bindHost: "127.0.0.1", receiveBufferBytes: 1 << 20, sendBufferBytes: 1 << 20 };

async function peerSocket(): Promise<Socket> {
  const s = createSocket("udp4");
  await new Promise<void>((resolve) => s.bind(0, "127.0.0.1", resolve));
  return s;
}

function nextMessages(s: Socket, count: number): Promise<Buffer[]> {
  return new Promise((resolve) => {
    const got: Buffer[] = [];
    const on = (m: Buffer): void => {
      got.push(m);
      if (got.length === count) {
        s.off("message", on);
        resolve(got);
      }
    };
    s.on("message", on);
  });
}

/** A free port on 127.0.0.1, found by binding 0 and letting go. */
async function freePort(): Promise<number> {
  const s = await peerSocket();
  const port = s.address().port;
  await new Promise<void>((resolve) => s.close(() => resolve()));
  return port;
}

interface Opened {
  endpoint: UdpEndpoint;
  lport: number;
  frames: Uint8Array[];
  errors: string[];
  framesArrived(count: number): Promise<void>;
}

async function open(transport: { open(o: UdpEndpointOptions): Promise<E.Either<string, UdpEndpoint>> }, rport: number): Promise<Opened> {
  const frames: Uint8Array[] = [];
  const errors: string[] = [];
  const waiters: { count: number; resolve: () => void }[] = [];
  const lport = await freePort();
  const r = await transport.open({
    lport,
    rhost: "127.0.0.1",
    rport,
    onFrame: (f) => {
      frames.push(f);
      for (const w of waiters.filter((w) => frames.length >= w.count)) w.resolve();
    },
    onError: (reason) => errors.push(reason),
  });
  if (E.isLeft(r)) throw new Error(r.left);
  return {
    endpoint: r.right,
    lport,
    frames,
    errors,
    framesArrived: (count) =>
      frames.length >= count ? Promise.resolve() : new Promise((resolve) => waiters.push({ count, resolve })),
  };
}

function frameOf(size: number, seed: number): Buffer {
  const b = Buffer.alloc(size);
  for (let i = 0; i < size; i++) b[i] = (i * 7 + seed) & 0xff;
  return b;
}

describe("the batched UDP transport (recvmmsg/sendmmsg addon)", function () {
  this.timeout(5000);
  let addon: UdpBatchAddon;
  let peer: Socket;
  let opened: Opened | undefined;

  before(function () {
    addon = batchedAddonOrSkip(this);
  });
  beforeEach(async () => {
    peer = await peerSocket();
  });
  afterEach(async () => {
    await opened?.endpoint.close();
    opened = undefined;
    await new Promise<void>((resolve) => peer.close(() => resolve()));
  });

  it("round-trips a frame with its peer on 127.0.0.1, byte for byte", async () => {
    opened = await open(new BatchedUdpTransport(OPTIONS, addon), peer.address().port);
    const atPeer = nextMessages(peer, 1);
    const out = frameOf(64, 1);
    opened.endpoint.send(out);
    const [got] = await atPeer;
    expect(Buffer.compare(got!, out)).to.equal(0);

    const back = frameOf(1500, 2);
    peer.send(back, opened.lport, "127.0.0.1");
    await opened.framesArrived(1);
    expect(Buffer.compare(Buffer.from(opened.frames[0]!), back)).to.equal(0);
  });

  it("delivers datagrams that arrive together as separate frames, in order, whatever their sizes", async () => {
    opened = await open(new BatchedUdpTransport(OPTIONS, addon), peer.address().port);
    const sizes = [64, 1500, 60, 9000, 14, 65507, 64];
    const sent = sizes.map((size, i) => frameOf(size, i));
    for (const f of sent) peer.send(f, opened.lport, "127.0.0.1");
    await opened.framesArrived(sent.length);
    expect(opened.frames.map((f) => f.length)).to.deep.equal(sizes);
    sent.forEach((f, i) => expect(Buffer.compare(Buffer.from(opened!.frames[i]!), f)).to.equal(0));
  });

  it("delivers datagrams just under, at and over the receive slot's first piece (2,048 bytes) whole", async () => {
    opened = await open(new BatchedUdpTransport(OPTIONS, addon), peer.address().port);
    const sizes = [2047, 2048, 2049, 4096, 1, 65507, 2048];
    const sent = sizes.map((size, i) => frameOf(size, i + 20));
    for (const f of sent) peer.send(f, opened.lport, "127.0.0.1");
    await opened.framesArrived(sent.length);
    expect(opened.frames.map((f) => f.length)).to.deep.equal(sizes);
    sent.forEach((f, i) => expect(Buffer.compare(Buffer.from(opened!.frames[i]!), f)).to.equal(0));
  });

  it("sends the frames given in one turn as that many datagrams, in order", async () => {
    opened = await open(new BatchedUdpTransport(OPTIONS, addon), peer.address().port);
    const sent = Array.from({ length: 200 }, (_, i) => frameOf(64 + (i % 5), i));
    const atPeer = nextMessages(peer, sent.length);
    for (const f of sent) opened.endpoint.send(f);
    const got = await atPeer;
    got.forEach((g, i) => expect(Buffer.compare(g, sent[i]!)).to.equal(0));
  });

  it("sends runs of equal-length frames (one UDP GSO message each) as one datagram per frame, byte for byte, in order", async () => {
    peer.setRecvBufferSize(4 << 20); // ~200 KB leave in one turn: more than the default buffer holds
    opened = await open(new BatchedUdpTransport(OPTIONS, addon), peer.address().port);
    const runs: [number, number][] = [[100, 64], [10, 1500], [3, 9000], [1, 0], [5, 64], [7, 9000], [1, 65507], [2, 60]];
    const sent = runs.flatMap(([count, size], r) => Array.from({ length: count }, (_, i) => frameOf(size, r * 31 + i)));
    const atPeer = nextMessages(peer, sent.length);
    for (const f of sent) opened.endpoint.send(f);
    const got = await atPeer;
    expect(got.map((g) => g.length)).to.deep.equal(sent.map((f) => f.length));
    got.forEach((g, i) => expect(Buffer.compare(g, sent[i]!)).to.equal(0));
  });

  it("sends frames the kernel refuses to segment (longer than the path's MTU allows) one datagram each, and still segments shorter ones", function () {
    // A loopback with a 1,400-byte MTU, in a user and network namespace of its own (no root needed).
    const child = fileURLToPath(new URL("../support/gso-fallback-child.js", import.meta.url));
    const r = spawnSync("unshare", ["-rn", "sh", "-c", `ip link set lo up && ip link set lo mtu 1400 && exec "${process.execPath}" "${child}"`], { encoding: "utf8", timeout: 10_000 });
    if (r.status !== 0 && !r.stdout.startsWith("{")) {
      const message = `skipped: no network namespace with a small MTU here (unshare -rn, ip): ${(r.error?.message ?? r.stderr).trim().slice(0, 200)}`;
      if (process.env["CI"] === "true") throw new Error(`${message} (CI=true: a missing requirement fails the run)`);
      console.log(`      ${message}`);
      this.skip();
    }
    const out = JSON.parse(r.stdout) as { lengths: number[]; exact: boolean[] };
    expect(out.lengths).to.deep.equal([...Array(10).fill(1450), ...Array(20).fill(64), ...Array(5).fill(1450)]);
    expect(out.exact.every((e) => e)).to.equal(true);
  });

  it("delivers an empty datagram as an empty frame, as dgram does (the data plane counts it), and goes on", async () => {
    opened = await open(new BatchedUdpTransport(OPTIONS, addon), peer.address().port);
    peer.send(Buffer.alloc(0), opened.lport, "127.0.0.1");
    peer.send(frameOf(64, 3), opened.lport, "127.0.0.1");
    await opened.framesArrived(2);
    expect(opened.frames.map((f) => f.length)).to.deep.equal([0, 64]);
  });

  it("drops datagrams from anyone but the configured peer (the socket is connected)", async () => {
    opened = await open(new BatchedUdpTransport(OPTIONS, addon), peer.address().port);
    const stranger = await peerSocket();
    try {
      await new Promise((resolve) => stranger.send(frameOf(64, 9), opened!.lport, "127.0.0.1", resolve));
      peer.send(frameOf(80, 4), opened.lport, "127.0.0.1");
      await opened.framesArrived(1);
      expect(opened.frames.map((f) => f.length)).to.deep.equal([80]);
    } finally {
      await new Promise<void>((resolve) => stranger.close(() => resolve()));
    }
  });

  it("refuses a local port already in use with the same reason as the dgram path", async () => {
    const r = await new BatchedUdpTransport(OPTIONS, addon).open({
      lport: peer.address().port,
      rhost: "127.0.0.1",
      rport: 9,
      onFrame: () => undefined,
    });
    expect(r).to.deep.equal(E.left("local port is already in use (EADDRINUSE)"));
  });

  it("refuses a peer name that does not resolve", async () => {
    const r = await new BatchedUdpTransport(OPTIONS, addon).open({
      lport: 0,
      rhost: "no-such-host.invalid",
      rport: 9,
      onFrame: () => undefined,
    });
    expect(E.isLeft(r) && r.left.startsWith("Name or service not known")).to.equal(true);
  });

  it("reports a peer that is not listening (ECONNREFUSED) through onError and keeps working", async () => {
    const gone = await freePort();
    opened = await open(new BatchedUdpTransport(OPTIONS, addon), gone);
    opened.endpoint.send(frameOf(64, 5));
    // The kernel's ICMP answer arrives as an error on the next read; poll until it was reported.
    for (let i = 0; i < 100 && opened.errors.length === 0; i++) await new Promise((resolve) => setTimeout(resolve, 10));
    expect(opened.errors[0]).to.match(/ECONNREFUSED|refused/i);

    // The peer comes up: its frames get through, and frames reach it.
    const late = createSocket("udp4");
    await new Promise<void>((resolve) => late.bind(gone, "127.0.0.1", resolve));
    try {
      const atLate = nextMessages(late, 1);
      opened.endpoint.send(frameOf(70, 6));
      expect((await atLate)[0]!.length).to.equal(70);
      late.send(frameOf(90, 7), opened.lport, "127.0.0.1");
      await opened.framesArrived(1);
      expect(opened.frames.map((f) => f.length)).to.deep.equal([90]);
    } finally {
      await new Promise<void>((resolve) => late.close(() => resolve()));
    }
  });

  it("sends nothing and throws nothing once closed", async () => {
    opened = await open(new BatchedUdpTransport(OPTIONS, addon), peer.address().port);
    await opened.endpoint.close();
    expect(() => opened!.endpoint.send(frameOf(64, 6))).not.to.throw();
    await opened.endpoint.close();
  });
});

describe("choosing the datagram path", () => {
  it("falls back to node:dgram when the addon cannot be loaded, and says why", async () => {
    const chosen = chooseUdpTransport(OPTIONS, () => {
      throw new Error("native/build/udp_batch.node is not built");
    }, {});
    expect(chosen.path).to.deep.equal({ kind: "dgram", reason: "native/build/udp_batch.node is not built" });
    expect(chosen.transport).to.be.instanceOf(DgramUdpTransport);

    // The fallback really carries frames.
    const peer = await peerSocket();
    const o = await open(chosen.transport, peer.address().port);
    try {
      const atPeer = nextMessages(peer, 1);
      o.endpoint.send(frameOf(64, 7));
      expect((await atPeer)[0]!.length).to.equal(64);
      peer.send(frameOf(1500, 8), o.lport, "127.0.0.1");
      await o.framesArrived(1);
      expect(o.frames[0]!.length).to.equal(1500);
    } finally {
      await o.endpoint.close();
      await new Promise<void>((resolve) => peer.close(() => resolve()));
    }
  });

  it("falls back to node:dgram, naming the file, when the addon NETEMU_UDP_ADDON names cannot be loaded", () => {
    const chosen = chooseUdpTransport(OPTIONS, loadUdpBatchAddon, { NETEMU_UDP_ADDON: "/nonexistent/udp_batch.node" });
    expect(chosen.path.kind).to.equal("dgram");
    expect(chosen.path.kind === "dgram" && chosen.path.reason).to.match(/^NETEMU_UDP_ADDON=\/nonexistent\/udp_batch.node cannot be loaded: Cannot find module/);
    expect(chosen.transport).to.be.instanceOf(DgramUdpTransport);
  });

  it("uses node:dgram when NETEMU_UDP_PATH=dgram asks for it, without loading the addon", () => {
    let loaded = false;
    const chosen = chooseUdpTransport(OPTIONS, () => {
      loaded = true;
      throw new Error("should not be loaded");
    }, { NETEMU_UDP_PATH: "dgram" });
    expect(chosen.path).to.deep.equal({ kind: "dgram", reason: "NETEMU_UDP_PATH=dgram" });
    expect(loaded).to.equal(false);
  });

  it("picks the batched path on this machine, as netemu serve would (under CI=true it must: CI builds the addon)", function () {
    const chosen: ChosenUdpTransport = chooseUdpTransport(OPTIONS, loadUdpBatchAddon, {});
    if (chosen.path.kind === "dgram") {
      const message = `the batched path is not available here (${chosen.path.reason})`;
      if (process.env["CI"] === "true") throw new Error(`${message}; CI=true: .ci/run must build it (npm run build:native), which needs ${FAST_PATH_NEEDS}`);
      console.log(`      skipped: ${message}; it needs ${FAST_PATH_NEEDS}`);
      this.skip();
    }
    expect(chosen.path).to.deep.equal({ kind: "batched", coalescingMicroseconds: 0 });
    expect(chosen.transport).to.be.instanceOf(BatchedUdpTransport);
  });

  it("uses the batched path when the addon loads", () => {
    const fake = inertUdpBatchAddon();
    const chosen = chooseUdpTransport(OPTIONS, () => fake, {});
    expect(chosen.path).to.deep.equal({ kind: "batched", coalescingMicroseconds: 0 });
    expect(chosen.transport).to.be.instanceOf(BatchedUdpTransport);
  });

  it("sets the thread's receive coalescing from NETEMU_UDP_COALESCE_US (ADR 0110): off unless it names an interval", () => {
    const fake = inertUdpBatchAddon();
    const paths = [{}, { NETEMU_UDP_COALESCE_US: "200" }, { NETEMU_UDP_COALESCE_US: "off" }, { NETEMU_UDP_COALESCE_US: "1000" }].map((env) => chooseUdpTransport(OPTIONS, () => fake, env).path);
    expect(fake.coalescingSet).to.deep.equal([0, 200, 0, 1000]);
    expect(paths).to.deep.equal([0, 200, 0, 1000].map((us) => ({ kind: "batched", coalescingMicroseconds: us })));
  });
});
