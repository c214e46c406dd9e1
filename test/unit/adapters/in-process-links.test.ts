import { expect } from "chai";
import * as E from "fp-ts/lib/Either.js";
import type { UdpEndpoint } from "../../../src/application/ports/udp-transport.js";
import { BARRIER_TIMEOUT_MS, FRAMES_PER_TURN, InProcessLinks, reachesThisHost, ROUNDS_PER_TURN } from "../../../src/adapters/transport/in-process-links.js";
import { inProcessLinksScope } from "../../../src/adapters/shared/in-process-links-setting.js";
import { datagramOptions, withInProcessLinks } from "../../../src/adapters/transport/datagram-path.js";
import { RecordingLogger } from "../../support/in-memory-data-plane.js";
import { FakeTransport, bytes, world } from "../../support/fake-link-transport.js";

describe("in-process links: a link between two UDP NIOs of one thread skips the kernel (ADR 0105)", () => {
  it("gives what one end sends to the other when the sender's work ends, in the same loop turn, never to the socket", async () => {
    const w = world();
    const [a, b] = await w.pair(10001, 10002);
    a.end.send(bytes(1, 2, 3));
    b.end.send(bytes(4));
    expect(a.got.concat(b.got), "not synchronously").to.deep.equal([]);
    w.turns.settle();
    expect(w.turns.waiting, "no turn of the loop needed").to.equal(0);
    expect(b.got).to.deep.equal(["1,2,3"]);
    expect(a.got).to.deep.equal(["4"]);
    expect(w.inner.sends).to.deep.equal([]);
  });

  it("keeps the order of each direction and gives each frame as its own copy", async () => {
    const w = world();
    const [a, b] = await w.pair(10001, 10002);
    // One buffer for every send, changed after each: as a receive arena reused, or one frame a flood sends on.
    const shared = bytes(0, 0);
    for (let i = 0; i < 100; i++) {
      shared[0] = i;
      a.end.send(shared);
    }
    shared[0] = 255;
    w.turns.next();
    expect(b.got).to.deep.equal(Array.from({ length: 100 }, (_, i) => `${i},0`));
  });

  it("takes a frame across a chain of in-process links in the turn it came in, one round a hop", async () => {
    const w = world();
    const got: string[] = [];
    const open = async (lport: number, rport: number, onFrame: (f: Uint8Array) => void): Promise<UdpEndpoint> => {
      const opened = await w.links.open({ lport, rport, rhost: "127.0.0.1", onFrame });
      if (E.isLeft(opened)) throw new Error(opened.left);
      return opened.right;
    };
    // Three links, each receiving end sending on from the next link's other end: a chain of switches.
    const [x1, x2, x3] = [await open(10001, 10002, () => {}), await open(10003, 10004, () => {}), await open(10005, 10006, () => {})];
    await open(10002, 10001, (f) => x2.send(f));
    await open(10004, 10003, (f) => x3.send(f));
    await open(10006, 10005, (f) => got.push([...f].join(",")));
    w.inner.read();
    w.turns.settle();
    w.turns.microtasksRun = 0;
    x1.send(bytes(9));
    w.turns.settle();
    expect(got).to.deep.equal(["9"]);
    expect(w.turns.microtasksRun, "one round a hop").to.equal(3);
    expect(w.turns.waiting, "no turn of the loop needed").to.equal(0);
    expect(w.inner.sends).to.deep.equal([]);
  });

  it("bounds a loop of ends to ROUNDS_PER_TURN hops in a row, then the loop turns: no recursion, no starved loop", async () => {
    const w = world();
    const [a, b] = await w.pair(10001, 10002);
    // A ping-pong forever: each frame back as soon as it arrives.
    let hops = 0;
    const opened = await w.links.open({ lport: 10003, rport: 10004, rhost: "127.0.0.1", onFrame: (f) => (hops++, c.send(f)) });
    const c = E.isRight(opened) ? opened.right : (undefined as never);
    const d = await w.links.open({ lport: 10004, rport: 10003, rhost: "127.0.0.1", onFrame: (f) => (hops++, dEnd.send(f)) });
    const dEnd = E.isRight(d) ? d.right : (undefined as never);
    w.inner.read();
    w.turns.settle();
    c.send(bytes(7));
    w.turns.settle();
    expect(hops, "the rounds of the turn it was sent in").to.equal(ROUNDS_PER_TURN);
    for (let turn = 0; turn < 5; turn++) {
      expect(w.turns.waiting, "the rest waits for the loop").to.equal(1);
      hops = 0;
      w.turns.next();
      expect(hops, "the turn's first round and the rounds it makes").to.equal(ROUNDS_PER_TURN + 1);
    }
    expect(w.turns.waiting, "still bouncing").to.equal(1);
    a.end.send(bytes(1));
    w.turns.next();
    expect(b.got).to.deep.equal(["1"]);
  });

  it("gives an end at most what one wake-up of the batched path reads per turn, in the turn they came in and the next ones, in order", async () => {
    const w = world();
    const [a, b] = await w.pair(10001, 10002);
    for (let i = 0; i < 2 * FRAMES_PER_TURN + 10; i++) a.end.send(bytes(i >> 8, i & 255));
    w.turns.settle();
    const perTurn: number[] = [b.got.length];
    while (w.turns.waiting > 0) {
      const before = b.got.length;
      w.turns.next();
      perTurn.push(b.got.length - before);
    }
    expect(perTurn).to.deep.equal([FRAMES_PER_TURN, FRAMES_PER_TURN, 10]);
    expect(b.got).to.deep.equal(Array.from({ length: 2 * FRAMES_PER_TURN + 10 }, (_, i) => `${i >> 8},${i & 255}`));
  });

  it("pairs only ends whose ports cross on the same local address of this host", async () => {
    const w = world({ bindHost: "0.0.0.0", local: ["192.0.2.7"] });
    const a = await w.open(20001, 20002, "127.0.0.1");
    const notCrossing = await w.open(20002, 20003, "127.0.0.1");
    const otherAddress = await w.open(20003, 20001, "127.0.0.2");
    const name = await w.open(20004, 20005, "localhost");
    const nameBack = await w.open(20005, 20004, "localhost");
    const elsewhere = await w.open(20006, 20007, "198.51.100.1");
    const elsewhereBack = await w.open(20007, 20006, "198.51.100.1");
    for (const end of [a, notCrossing, otherAddress, name, nameBack, elsewhere, elsewhereBack]) end.end.send(bytes(1));
    w.turns.next();
    expect(w.inner.sends).to.deep.equal(["send 20001 1", "send 20002 1", "send 20003 1", "send 20004 1", "send 20005 1", "send 20006 1", "send 20007 1"]);
    // An address of this host's interfaces reaches a socket bound to the wildcard: these pair.
    const here = await w.open(20008, 20009, "192.0.2.7");
    const hereBack = await w.open(20009, 20008, "192.0.2.7");
    w.inner.read();
    here.end.send(bytes(2));
    w.turns.next();
    expect(hereBack.got).to.deep.equal(["2"]);
    expect(w.inner.sends).to.have.length(7);
  });

  it("judges an address by the socket's bind: the bound address itself, or loopback and the interfaces' for a wildcard, of the peer's family", () => {
    const none = (): ReadonlySet<string> => new Set();
    expect(reachesThisHost("127.0.0.1", "127.0.0.1", none)).to.equal(true);
    expect(reachesThisHost("127.0.0.2", "127.0.0.1", none), "not the bound address").to.equal(false);
    expect(reachesThisHost("192.0.2.7", "192.0.2.7", none)).to.equal(true);
    expect(reachesThisHost("127.0.0.1", "192.0.2.7", none), "a socket bound to one address is not on loopback").to.equal(false);
    expect(reachesThisHost("127.0.0.5", "0.0.0.0", none)).to.equal(true);
    expect(reachesThisHost("192.0.2.7", "0.0.0.0", () => new Set(["192.0.2.7"]))).to.equal(true);
    expect(reachesThisHost("192.0.2.8", "0.0.0.0", () => new Set(["192.0.2.7"])), "another host").to.equal(false);
    // An IPv6 peer's socket binds ::1 beside 127.0.0.1, :: beside any other IPv4 address.
    expect(reachesThisHost("::1", "127.0.0.1", none)).to.equal(true);
    expect(reachesThisHost("::1", "192.0.2.7", none)).to.equal(true);
    expect(reachesThisHost("2001:db8::1", "::", () => new Set(["2001:db8::1"]))).to.equal(true);
    expect(reachesThisHost("127.0.0.1", "::", none), "an IPv4 peer with an IPv6 bind: the inner transport's to refuse").to.equal(false);
    expect(reachesThisHost("localhost", "127.0.0.1", none), "a name may resolve elsewhere later").to.equal(false);
  });

  it("drops what goes beyond the receiving end's buffer and says so, as the kernel would drop it unseen", async () => {
    const w = world({ receiveBufferBytes: 10 });
    const [a, b] = await w.pair(10001, 10002);
    for (let i = 1; i <= 4; i++) a.end.send(bytes(i, i, i, i));
    expect(b.dropped, "frames 3 and 4").to.deep.equal(["1 of 4 B", "1 of 4 B"]);
    w.turns.next();
    expect(b.got).to.deep.equal(["1,1,1,1", "2,2,2,2"]);
    // Delivered: the room is there again.
    a.end.send(bytes(5, 5, 5, 5, 5, 5, 5, 5, 5, 5));
    w.turns.next();
    expect(b.got).to.have.length(3);
    expect(w.inner.sends).to.deep.equal([]);
  });

  it("falls back to the sockets when an end closes: what it sent still reaches the other, through its socket, before it closes", async () => {
    const w = world();
    const [a, b] = await w.pair(10001, 10002);
    a.end.send(bytes(1));
    a.end.send(bytes(2));
    b.end.send(bytes(3));
    await a.end.close();
    expect(w.inner.sends, "3 was for the closing end: gone with it").to.deep.equal(["send 10001 1", "send 10001 2", "close 10001"]);
    w.turns.next();
    expect(b.got.concat(a.got), "nothing delivered twice").to.deep.equal([]);
    b.end.send(bytes(4));
    a.end.send(bytes(5));
    expect(w.inner.sends.slice(3)).to.deep.equal(["send 10002 4"]);
    // The socket is still read all along: the peer that took port 10001 over elsewhere reaches b.
    w.inner.sockets[1]?.receive(bytes(6));
    expect(b.got).to.deep.equal(["6"]);
  });

  it("falls back to the sockets when an end is handed over, and what was on its way to it waits in its socket for its next thread", async () => {
    const w = world();
    const [a, b] = await w.pair(10001, 10002);
    a.end.send(bytes(1));
    b.end.send(bytes(2));
    b.end.send(bytes(3));
    expect(a.end.handOver).to.be.a("function");
    const handed = a.end.handOver?.();
    expect(handed).to.deep.equal({ fd: 11001 });
    // b's frames go through b's socket into a's (still open, handed over); a's own leave before its hand-over.
    expect(w.inner.sends).to.deep.equal(["send 10001 1", "send 10002 2", "send 10002 3", "handOver 10001"]);
    w.turns.next();
    expect(b.got.concat(a.got)).to.deep.equal([]);
    b.end.send(bytes(4));
    expect(w.inner.sends.at(-1)).to.equal("send 10002 4");
    // Taken over again on this thread (a node moving back, its socket adopted with 2, 3, 4 waiting in
    // it): the ends pair again, and 5, given in memory, waits for the barrier behind them.
    const back = await w.open(10001, 10002);
    b.end.send(bytes(5));
    w.turns.next();
    expect(back.got).to.deep.equal([]);
    w.inner.read();
    w.turns.next();
    expect(back.got).to.deep.equal(["2", "3", "4", "5"]);
    expect(b.got, "what a sent went through its socket, before its hand-over").to.deep.equal(["1"]);
    expect(w.inner.sends).to.have.length(5);
  });

  it("holds the first in-memory frames of a pairing until the socket's earlier datagrams are read, at most BARRIER_TIMEOUT_MS", async () => {
    const w = world();
    const [a, b] = await w.pair(10001, 10002);
    await a.end.close();
    // The kernel lost what a's earlier incarnation sent and the barrier: b still gets its frames, late.
    w.inner.wire.length = 0;
    const again = await w.open(10001, 10002);
    w.inner.wire.length = 0;
    again.end.send(bytes(1));
    b.end.send(bytes(2));
    w.turns.next();
    expect(b.got.concat(again.got)).to.deep.equal([]);
    w.turns.elapse(BARRIER_TIMEOUT_MS - 1);
    w.turns.next();
    expect(b.got.concat(again.got)).to.deep.equal([]);
    w.turns.elapse(BARRIER_TIMEOUT_MS);
    w.turns.next();
    expect([b.got, again.got]).to.deep.equal([["1"], ["2"]]);
    expect(w.inner.sends).to.deep.equal(["close 10001"]);
  });

  it("swallows a barrier wherever it arrives, awaited or not (a pairing that ended, an end on another thread)", async () => {
    const w = world();
    const lone = await w.open(10001, 10002);
    const barrier = Buffer.concat([Buffer.from("netemu:barrier:1", "latin1"), Buffer.alloc(16, 7)]);
    w.inner.sockets[0]?.receive(barrier);
    w.inner.sockets[0]?.receive(bytes(1));
    expect(lone.got).to.deep.equal(["1"]);
  });

  it("has no hand-over where the inner transport has none (node:dgram: the data plane closes the socket)", async () => {
    const w = world({ canHandOver: false });
    const a = await w.open(10001, 10002);
    expect(a.end.handOver).to.equal(undefined);
  });

  it("lets a closed end's ports be paired again by the next end that opens them", async () => {
    const w = world();
    const a = await w.open(10001, 10002);
    await w.open(10002, 10001);
    await a.end.close();
    const c = await w.open(10003, 10001);
    const again = await w.open(10001, 10003);
    w.inner.read();
    c.end.send(bytes(8));
    w.turns.next();
    expect(again.got).to.deep.equal(["8"]);
    expect(w.inner.sends).to.deep.equal(["close 10001"]);
  });

  it("refuses what the inner transport refuses, with its reason", async () => {
    const w = world();
    const opened = await w.links.open({ lport: 9, rport: 10, rhost: "127.0.0.1", onFrame: () => undefined });
    expect(opened).to.deep.equal(E.left("local port is already in use (EADDRINUSE)"));
  });

  it("is on between threads where the addon's doorbells are and within a thread otherwise, as NETEMU_IN_PROCESS_LINKS says, said once at start, and never over a host's own transport", () => {
    const scope = (value: string | undefined, doorbells: boolean) => inProcessLinksScope(value === undefined ? {} : { NETEMU_IN_PROCESS_LINKS: value }, () => doorbells);
    expect([scope(undefined, true), scope("on", true), scope(undefined, false), scope("on", false)]).to.deep.equal(["threads", "threads", "thread", "thread"]);
    expect([scope("thread", true), scope("threads", false), scope("Threads", true)]).to.deep.equal(["thread", "threads", "threads"]);
    for (const off of ["off", "OFF", "false", "0", "no"]) expect(scope(off, true), off).to.equal("off");
    expect(inProcessLinksScope({ NETEMU_IN_PROCESS_LINKS: "off" }, () => expect.fail("asked about doorbells for nothing"))).to.equal("off");
    const inner = new FakeTransport();
    const options = datagramOptions("127.0.0.1", 1 << 20);
    const logger = new RecordingLogger();
    const batched = { transport: inner, path: { kind: "batched", coalescingMicroseconds: 0 } } as const;
    expect(withInProcessLinks(batched, options, logger, {}, () => false)).to.be.instanceOf(InProcessLinks);
    expect(withInProcessLinks({ transport: inner, path: { kind: "dgram", reason: "x" } }, options, logger, { NETEMU_IN_PROCESS_LINKS: "off" }, () => true)).to.equal(inner);
    expect(withInProcessLinks({ transport: inner, path: { kind: "host" } }, options, logger, {}, () => true)).to.equal(inner);
    expect(withInProcessLinks(batched, options, logger, {}, () => true)).to.be.instanceOf(InProcessLinks);
    expect(withInProcessLinks(batched, options, logger, { NETEMU_IN_PROCESS_LINKS: "thread" }, () => true)).to.be.instanceOf(InProcessLinks);
    expect(logger.lines.map((l) => [l.msg, l.fields])).to.deep.equal([
      ["in-process links: on within each thread (a link between two NIOs of one data-plane thread skips the kernel)", { betweenThreads: "off: the addon's doorbells are not there (ADR 0112)" }],
      ["in-process links: off", { reason: "NETEMU_IN_PROCESS_LINKS" }],
      ["in-process links: on, between threads too (a link between two NIOs of this process skips the kernel)", undefined],
      ["in-process links: on within each thread (a link between two NIOs of one data-plane thread skips the kernel)", undefined],
    ]);
  });
});
