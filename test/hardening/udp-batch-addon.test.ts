import { spawn } from "node:child_process";
import { createSocket, type Socket } from "node:dgram";
import { readdirSync } from "node:fs";
import { expect } from "chai";
import type { OnBatch, UdpBatchAddon } from "../../src/adapters/transport/batched-udp-transport.js";
import { batchedAddonOrSkip } from "../support/udp-batch-addon.js";
import { requireHostBed, runCommand } from "../support/host-bed.js";
import { UdpPeer, freeUdpPort } from "../support/udp-peer.js";

const TEARDOWN_CHILD = new URL("../support/udp-addon-worker-teardown.js", import.meta.url);
const FULL_BUFFER_CHILD = new URL("../support/udp-addon-full-send-buffer.js", import.meta.url);

/** Runs the teardown child to its end (bounded): its exit code, signal and output. */
function runTeardownChild(how: string): Promise<{ code: number | null; signal: NodeJS.Signals | null; out: string }> {
  return new Promise((resolve) => {
    const child = spawn(process.execPath, [TEARDOWN_CHILD.pathname, how], { stdio: ["ignore", "pipe", "pipe"] });
    let out = "";
    child.stdout.on("data", (d: Buffer) => (out += d.toString()));
    child.stderr.on("data", (d: Buffer) => (out += d.toString()));
    const timer = setTimeout(() => child.kill("SIGKILL"), 8000);
    child.once("exit", (code, signal) => {
      clearTimeout(timer);
      resolve({ code, signal, out });
    });
  });
}

const openFds = (): number => readdirSync("/proc/self/fd").length;
const sleep = (ms: number): Promise<void> => new Promise((r) => setTimeout(r, ms));
const ignore = (): void => undefined;

/** Polls `check` every 10 ms until it holds or 3 s pass. */
async function eventually(check: () => boolean): Promise<boolean> {
  for (let i = 0; i < 300; i++) {
    if (check()) return true;
    await sleep(10);
  }
  return check();
}

/** A free UDP port on 127.0.0.1 (bound, then released). */
describe("the batched UDP addon at the worker boundary and under bad input (no input may crash the process)", function () {
  this.timeout(10_000);
  let addon: UdpBatchAddon;
  const handles: unknown[] = [];
  const peers: UdpPeer[] = [];

  before(function () {
    addon = batchedAddonOrSkip(this);
  });
  afterEach(async () => {
    for (const h of handles.splice(0)) addon.close(h);
    await Promise.all(peers.splice(0).map((p) => p.close()));
  });

  /** A socket of the addon connected to a fresh peer on 127.0.0.1, with what it received. */
  async function connected(onBatch: OnBatch = ignore, onError: (code: string, message: string) => void = ignore) {
    const peer = await UdpPeer.open();
    peers.push(peer);
    const lport = await freeUdpPort();
    const handle = addon.open(4, "127.0.0.1", lport, "127.0.0.1", peer.port, 0, 0, onBatch, onError);
    handles.push(handle);
    return { handle, peer, lport };
  }

  describe("arguments of the wrong type or range: a TypeError or RangeError, no socket left open", () => {
    const good = (): unknown[] => [4, "127.0.0.1", 0, "127.0.0.1", 9, 0, 0, ignore, ignore];
    const cases: [string, number, unknown, RegExp][] = [
      ["a family given as a string", 0, "4", /TypeError/],
      ["a family other than 4 or 6", 0, 5, /RangeError/],
      ["a bind address that is not a string", 1, 127, /TypeError/],
      ["a local port that is not a number", 2, "x", /TypeError/],
      ["a local port above 65535", 2, 70000, /RangeError/],
      ["a negative remote port", 4, -1, /RangeError/],
      ["a receive buffer size that is not a number", 5, {}, /TypeError/],
      ["an onBatch that is not a function", 7, 42, /TypeError/],
      ["an onError that is not a function", 8, "no", /TypeError/],
    ];
    for (const [what, index, value, error] of cases) {
      it(`open refuses ${what}`, () => {
        const args = good();
        args[index] = value;
        const before = openFds();
        let thrown: unknown;
        try {
          handles.push((addon.open as (...a: unknown[]) => unknown)(...args));
        } catch (err) {
          thrown = err;
        }
        expect(String(thrown)).to.match(error);
        expect(openFds()).to.equal(before);
      });
    }

    it("open refuses too few arguments, and an address that is not one with the errno's name", () => {
      expect(() => (addon.open as (...a: unknown[]) => unknown)(4, "127.0.0.1")).to.throw(TypeError);
      const args = good();
      args[1] = "x".repeat(200);
      expect(() => (addon.open as (...a: unknown[]) => unknown)(...args)).to.throw(Error).with.property("code", "EINVAL");
    });

    it("adopt refuses callbacks that are not functions and a family other than 4 or 6, and leaves the socket it was given open", async () => {
      const { handle, peer, lport } = await connected();
      const fd = addon.detach(handle);
      const before = openFds();
      const adopt = addon.adopt as (...a: unknown[]) => unknown;
      expect(() => adopt(fd, 4, lport, "127.0.0.1", peer.port, 42, ignore)).to.throw(TypeError);
      expect(() => adopt(fd, 4, lport, "127.0.0.1", peer.port, ignore, "no")).to.throw(TypeError);
      expect(() => adopt(fd, 5, lport, "127.0.0.1", peer.port, ignore, ignore)).to.throw(RangeError);
      expect(openFds()).to.equal(before);
      handles.push(adopt(fd, 4, lport, "127.0.0.1", peer.port, ignore, ignore)); // still whole: taken up, then closed after the test
    });

    it("send and close refuse what is not a handle of theirs; send refuses frames that are not an array of Uint8Arrays", async () => {
      const { handle } = await connected();
      for (const notAHandle of [undefined, null, 1, "h", {}, [], Buffer.alloc(8)]) {
        expect(() => addon.send(notAHandle, [Buffer.alloc(64)]), String(notAHandle)).to.throw(TypeError);
        expect(() => addon.close(notAHandle), String(notAHandle)).to.throw(TypeError);
      }
      expect(() => addon.send(handle, "frames" as never)).to.throw(TypeError);
      expect(() => addon.send(handle, [new Float64Array(8)] as never)).to.throw(TypeError);
      expect(() => addon.send(handle, ["abc"] as never)).to.throw(TypeError);
      expect(() => addon.send(handle, [new DataView(new ArrayBuffer(8))] as never)).to.throw(TypeError);
      expect(() => (addon.send as (...a: unknown[]) => unknown)(handle)).to.throw(TypeError);
    });
  });

  describe("closing", () => {
    it("closes twice without harm, and a send after close takes nothing and throws nothing", async () => {
      const { handle, peer } = await connected();
      addon.close(handle);
      addon.close(handle);
      expect(addon.send(handle, [Buffer.alloc(64)])).to.equal(0);
      expect(await peer.settle(50)).to.equal(0);
    });

    it("frees the local port when close returns: a socket binds it again at once", async () => {
      const lport = await freeUdpPort();
      for (let i = 0; i < 3; i++) {
        const h = addon.open(4, "127.0.0.1", lport, "127.0.0.1", 9, 0, 0, ignore, ignore);
        addon.close(h);
      }
    });

    it("closes from inside its own receive callback: that batch was the last, the process lives on", async () => {
      const calls: number[] = [];
      let self: unknown;
      const c = await connected((_pool, _offset, _lengths, count) => {
        calls.push(count);
        addon.close(self);
        addon.close(self);
      });
      self = c.handle;
      // From the connected peer, so the socket takes them; enough for several batches.
      for (let i = 0; i < 200; i++) c.peer.socket.send(Buffer.alloc(64, i), c.lport, "127.0.0.1");
      expect(await eventually(() => calls.length > 0)).to.equal(true);
      await sleep(100);
      expect(calls).to.have.length(1);
    });

    it("closes from inside its error callback (the peer's ICMP) and the process lives on", async () => {
      const errors: string[] = [];
      let self: unknown;
      const lport = await freeUdpPort();
      const gone = await freeUdpPort();
      self = addon.open(4, "127.0.0.1", lport, "127.0.0.1", gone, 0, 0, ignore, (code) => {
        errors.push(code);
        addon.close(self);
      });
      handles.push(self);
      addon.send(self, [Buffer.alloc(64)]);
      expect(await eventually(() => errors.length > 0)).to.equal(true);
      addon.send(self, [Buffer.alloc(64)]);
      await sleep(50);
      expect(errors).to.deep.equal(["ECONNREFUSED"]);
    });
  });

  describe("sending a batch", () => {
    it("skips a datagram too large for UDP (EMSGSIZE) and sends the others of its batch, in order, wherever it stands", async () => {
      const { handle, peer } = await connected();
      const small = (n: number) => Buffer.alloc(60 + n, n);
      const huge = Buffer.alloc(65_508);
      expect(addon.send(handle, [huge, small(1), small(2), huge, small(3), huge])).to.equal(3);
      await peer.waitFor(3);
      expect(peer.received.map((f) => f.length)).to.deep.equal([61, 62, 63]);
      expect(await peer.settle(50)).to.equal(3);
    });

    it("with the send buffer full (EAGAIN) drops the rest of the batch and answers exactly how many the kernel took (root: a namespace with a slow link)", async function () {
      // Loopback frees a datagram's send memory at once, so only a link that holds frames fills the
      // buffer: a veth in a namespace of the test's own behind a token bucket of 8 kbit/s.
      requireHostBed(this);
      const ns = `netemu-eagain-${process.pid}`;
      const ip = async (...args: string[]) => {
        const r = await runCommand("ip", args);
        if (r.status !== 0) throw new Error(`ip ${args.join(" ")}: ${r.stderr}`);
      };
      await ip("netns", "add", ns);
      try {
        // No IPv6 in the namespace: its own packets (DAD, router solicitations) would cross the queue
        // counted below, at times of their own.
        const sysctl = await runCommand("ip", ["netns", "exec", ns, "sysctl", "-qw", "net.ipv6.conf.all.disable_ipv6=1", "net.ipv6.conf.default.disable_ipv6=1"]);
        expect(sysctl.status, sysctl.stderr).to.equal(0);
        await ip("-n", ns, "link", "add", "v0", "type", "veth", "peer", "name", "v1");
        await ip("-n", ns, "addr", "add", "10.99.0.1/24", "dev", "v0");
        await ip("-n", ns, "link", "set", "v0", "up");
        await ip("-n", ns, "link", "set", "v1", "up");
        await ip("-n", ns, "neigh", "add", "10.99.0.2", "lladdr", "02:00:00:00:00:02", "dev", "v0", "nud", "permanent");
        const tc = await runCommand("tc", ["-n", ns, "qdisc", "add", "dev", "v0", "root", "tbf", "rate", "8kbit", "burst", "1600", "limit", "10000000"]);
        expect(tc.status, tc.stderr).to.equal(0);
        const r = await runCommand("ip", ["netns", "exec", ns, process.execPath, FULL_BUFFER_CHILD.pathname, "10.99.0.1", "10.99.0.2"]);
        expect(r.status, r.stderr).to.equal(0);
        const said = JSON.parse(r.stdout) as { first: number; second: number };
        // What the link holds or has sent is what the kernel took.
        const stats = (await runCommand("tc", ["-n", ns, "-s", "qdisc", "show", "dev", "v0"])).stdout;
        const sent = Number(/Sent \d+ bytes (\d+) pkt/.exec(stats)?.[1]);
        const queued = Number(/backlog \d+b (\d+)p/.exec(stats)?.[1]);
        expect(said.first).to.be.within(1, 199);
        expect(said.first + said.second, stats).to.equal(sent + queued);
      } finally {
        await runCommand("ip", ["netns", "del", ns]);
      }
    });

    it("loses only the datagram that meets the peer's earlier refusal (ECONNREFUSED), as node:dgram does, not the rest of its batch", async () => {
      const lport = await freeUdpPort();
      const rport = await freeUdpPort();
      const handle = addon.open(4, "127.0.0.1", lport, "127.0.0.1", rport, 0, 0, ignore, ignore);
      handles.push(handle);
      // Nobody on rport: the kernel's ICMP answer leaves a pending error on the socket...
      addon.send(handle, [Buffer.alloc(64)]);
      // ...then the peer comes up (bound at once, in this same turn) and a batch goes out.
      const received: number[] = [];
      const peerHandle = addon.open(4, "127.0.0.1", rport, "127.0.0.1", lport, 0, 0, (_pool, _offset, lengths, count) => received.push(...lengths.subarray(0, count)), ignore);
      handles.push(peerHandle);
      const taken = addon.send(handle, [Buffer.alloc(70), Buffer.alloc(71), Buffer.alloc(72)]);
      expect(await eventually(() => received.length >= 2)).to.equal(true);
      await sleep(50);
      expect(received.slice(-2)).to.deep.equal([71, 72]);
      expect(taken).to.equal(received.length);
    });
  });

  describe("receiving", () => {
    /** What each onBatch call gave: its pool, and copies of where its frames lie and their lengths. */
    interface SeenBatch {
      pool: ArrayBuffer;
      offset: number;
      lengths: number[];
    }
    const keepBatches = (seen: SeenBatch[], frames: Uint8Array[]): OnBatch => (pool, offset, lengths, count) => {
      seen.push({ pool, offset, lengths: [...lengths.subarray(0, count)] });
      let at = offset;
      for (const length of lengths.subarray(0, count)) {
        frames.push(new Uint8Array(pool, at, length));
        at += length;
      }
    };

    it("copies lone frames one after the other into one receive pool, not into a new buffer per batch (ADR 0107)", async () => {
      const seen: SeenBatch[] = [];
      const frames: Uint8Array[] = [];
      const c = await connected(keepBatches(seen, frames));
      // One at a time, each received before the next leaves: each is a batch of its own.
      for (let i = 0; i < 10; i++) {
        await c.peer.send(Buffer.alloc(100 + i, i), c.lport);
        expect(await eventually(() => frames.length === i + 1)).to.equal(true);
      }
      expect(seen.map((b) => b.lengths)).to.deep.equal(Array.from({ length: 10 }, (_, i) => [100 + i]));
      // The pool is the thread's, partly filled by the tests before: at most one fresh pool in ten small frames.
      expect(new Set(seen.map((b) => b.pool)).size).to.be.at.most(2);
      seen.forEach((b, i) => {
        const before = seen[i - 1];
        if (before !== undefined && before.pool === b.pool) expect(b.offset, `batch ${i}`).to.equal(before.offset + (before.lengths[0] as number));
      });
    });

    it("leaves every frame kept from earlier batches as it came, across fresh pools (a pool is never written over)", async () => {
      const seen: SeenBatch[] = [];
      const frames: Uint8Array[] = [];
      const c = await connected(keepBatches(seen, frames));
      // 200 × 1,400 bytes: about four pools' worth, in batches of one and of several.
      for (let i = 0; i < 200; i++) {
        void c.peer.send(Buffer.alloc(1400, i % 251), c.lport);
        if (i % 7 === 0) expect(await eventually(() => frames.length === i + 1)).to.equal(true);
      }
      expect(await eventually(() => frames.length === 200)).to.equal(true);
      expect(new Set(seen.map((b) => b.pool)).size).to.be.greaterThan(1);
      frames.forEach((frame, i) => expect(frame.every((byte) => byte === i % 251), `frame ${i}`).to.equal(true));
    });

    it("delivers a batch larger than a pool (jumbo datagrams) whole, in a pool of its own size", async () => {
      const seen: SeenBatch[] = [];
      const frames: Uint8Array[] = [];
      const c = await connected(keepBatches(seen, frames));
      await c.peer.send(Buffer.alloc(60_000, 1), c.lport);
      await c.peer.send(Buffer.alloc(60_000, 2), c.lport);
      expect(await eventually(() => frames.length === 2)).to.equal(true);
      expect(frames.map((f) => f.length)).to.deep.equal([60_000, 60_000]);
      expect(frames[0]?.every((b) => b === 1)).to.equal(true);
      expect(frames[1]?.every((b) => b === 2)).to.equal(true);
    });

    it("delivers the largest IPv6 datagram (65,527 bytes, more than any IPv4 one) whole: the receive slot is never too small", async function () {
      const v6: Socket = createSocket("udp6");
      try {
        await new Promise<void>((resolve, reject) => {
          v6.once("error", reject);
          v6.bind(0, "::1", () => resolve());
        });
      } catch {
        console.log("      skipped: no IPv6 loopback (::1) on this machine");
        this.skip();
      }
      try {
        const got: number[] = [];
        const lport = await freeUdpPort();
        const handle = addon.open(6, "::1", lport, "::1", v6.address().port, 1 << 20, 1 << 20, (_pool, _offset, lengths, count) => got.push(...lengths.subarray(0, count)), ignore);
        handles.push(handle);
        v6.send(Buffer.alloc(65_527, 7), lport, "::1");
        v6.send(Buffer.alloc(64, 8), lport, "::1");
        expect(await eventually(() => got.length >= 2)).to.equal(true);
        expect(got).to.deep.equal([65_527, 64]);
      } finally {
        await new Promise<void>((resolve) => v6.close(() => resolve()));
      }
    });
  });

  for (const how of ["terminate", "exit", "throw"] as const) {
    it(`closes the sockets of a worker that goes away with them open (${how}) and the process lives on`, async () => {
      const r = await runTeardownChild(how);
      // Before the fix, libuv called the socket's close callback after Node had unloaded the
      // worker's copy of the addon: SIGSEGV.
      expect({ code: r.code, signal: r.signal }, r.out).to.deep.equal({ code: 0, signal: null });
      expect(r.out).to.include("survived");
    });
  }
});
