import { randomBytes, randomUUID } from "node:crypto";
import { isIP } from "node:net";
import { networkInterfaces } from "node:os";
import { BroadcastChannel } from "node:worker_threads";
import * as E from "fp-ts/lib/Either.js";
import type { SocketHandover, UdpEndpoint, UdpEndpointOptions, UdpTransport } from "../../application/ports/udp-transport.js";
import { Fifo } from "../../domain/queueing/fifo.js";
import { ipv6BindAddress } from "./dgram-udp-transport.js";
import { CROSS_THREAD_RING_BYTES, LINK_CHANNEL, RingReader, decodeCarriedRings, decodeLinkMessage, type CarriedRings, type LinkMessage } from "./cross-thread-links.js";
import { FrameRing } from "./frame-ring.js";
import { threadRingWakeups, type RingWakeups } from "./ring-wakeups.js";

interface InProcessLinkOptions {
  /** The address the inner transport binds its sockets to (DgramOptions.bindHost). */
  readonly bindHost: string;
  /** What one end may have waiting for delivery, in frame bytes: its socket's receive buffer. */
  readonly receiveBufferBytes: number;
  /** Whether ends pair with ends of other threads too, through rings in shared memory (ADR 0111; NETEMU_IN_PROCESS_LINKS=threads). */
  readonly betweenThreads?: boolean;
}

function isWildcard(address: string): boolean {
  return address === "0.0.0.0" || address === "::";
}

function isLoopback(address: string): boolean {
  return isIP(address) === 4 ? address.startsWith("127.") : address === "::1";
}

/** The addresses of this host's interfaces: where a socket bound to a wildcard is reached. */
function interfaceAddresses(): ReadonlySet<string> {
  const addresses = new Set<string>();
  for (const list of Object.values(networkInterfaces())) for (const a of list ?? []) addresses.add(a.address);
  return addresses;
}

/**
 * Whether a datagram sent to `address` reaches a socket of this transport, and comes from `address`
 * when one of its sockets sends to it. Only an IP literal is judged (a name could resolve elsewhere
 * later); a socket bound to one address is reached there only; one bound to a wildcard, at a loopback
 * address or an address of this host's interfaces, where the kernel also gives the destination as the
 * sender's source. Anything else is left to the kernel.
 */
export function reachesThisHost(address: string, bindHost: string, local: () => ReadonlySet<string> = interfaceAddresses): boolean {
  const family = isIP(address);
  if (family === 0) return false;
  const bound = family === 6 ? ipv6BindAddress(bindHost) : bindHost;
  if (isIP(bound) !== family) return false;
  if (!isWildcard(bound)) return address === bound;
  return isLoopback(address) || local().has(address);
}

/**
 * What the ends need of the loop: a round after the current work within this turn (a microtask), the
 * next turn (setImmediate), and a timer that can be cancelled.
 */
interface LinkTurns {
  readonly soon: (callback: () => void) => void;
  readonly defer: (callback: () => void) => void;
  readonly later: (ms: number, callback: () => void) => () => void;
}

const NODE_TURNS: LinkTurns = {
  soon: (callback) => queueMicrotask(callback),
  defer: (callback) => void setImmediate(callback),
  later: (ms, callback) => {
    const timer = setTimeout(callback, ms);
    timer.unref();
    return () => clearTimeout(timer);
  },
};

/**
 * The barrier datagram two ends send each other through their sockets as they pair: 16 bytes saying
 * what it is, 16 random ones saying which pairing. Every end swallows a datagram of this shape, awaited
 * or not (one that arrives after its pairing ended, or at an end that moved to another worker).
 */
const BARRIER_TAG = Buffer.from("netemu:barrier:1", "latin1");
const BARRIER_BYTES = 32;
/** How long an end's first in-memory frames wait for the barrier, should the kernel lose it (a full buffer). */
export const BARRIER_TIMEOUT_MS = 100;

function newBarrier(): Buffer {
  return Buffer.concat([BARRIER_TAG, randomBytes(BARRIER_BYTES - BARRIER_TAG.length)]);
}

/** How many barriers an end remembers having swallowed unawaited: one may come before the message that says to await it (ADR 0111). */
const BARRIERS_REMEMBERED = 8;

function isBarrier(frame: Uint8Array): boolean {
  if (frame.length !== BARRIER_BYTES) return false;
  for (let i = 0; i < BARRIER_TAG.length; i++) if (frame[i] !== BARRIER_TAG[i]) return false;
  return true;
}

/**
 * Frames one end is given per loop turn at most: what one wake-up of the batched path reads (8 × 64),
 * so a burst reaches the port's intake (ADR 0075) in the chunks the socket path gives it; the rest
 * waits in the inbox for the next turns, as it would in the kernel's buffer.
 */
export const FRAMES_PER_TURN = 512;

/**
 * Rounds of delivery one after the other before the loop must turn: a frame crosses up to this many
 * in-process links (a chain, a trunk and a switch behind it) in the turn it came in, as the kernel would
 * not let it (each socket hop is a turn of the loop, ~5 µs of a worker's CPU on this VM, ADR 0105). A
 * ring flooding a broadcast goes round this many hops, then waits for the next turn: no recursion, and
 * the loop's sockets and timers get their turn.
 */
export const ROUNDS_PER_TURN = 8;

/**
 * Frames waiting for one end, in order, within its receive buffer (bytes of frames): what a
 * kernel socket's receive queue is on the socket path.
 */
class Inbox {
  private readonly frames = new Fifo<Uint8Array>();
  private bytes = 0;

  constructor(private readonly capacityBytes: number) {}

  get size(): number {
    return this.frames.length;
  }

  /** False when there is no room: the frame is the caller's to count as dropped. */
  put(frame: Uint8Array): boolean {
    if (this.bytes + frame.length > this.capacityBytes) return false;
    this.frames.push(frame);
    this.bytes += frame.length;
    return true;
  }

  /** The oldest `count` frames at most, in order. */
  take(count: number): Uint8Array[] {
    const taken: Uint8Array[] = [];
    while (taken.length < count) {
      const frame = this.frames.shift();
      if (frame === undefined) break;
      taken.push(frame);
      this.bytes -= frame.length;
    }
    return taken;
  }

  takeAll(): Uint8Array[] {
    const taken = this.frames.drain();
    this.bytes = 0;
    return taken;
  }
}

/** What ThreadLinks needs of a BroadcastChannel. */
export interface LinkChannel {
  onmessage: ((event: { readonly data: unknown }) => void) | null;
  postMessage(message: unknown): void;
  close(): void;
  unref?(): void;
}

const openLinkChannel = (): LinkChannel => new BroadcastChannel(LINK_CHANNEL) as unknown as LinkChannel;

/**
 * The ends this thread opened, and the delivery of what paired ends send each other, in rounds: a round
 * gives every end with frames waiting what it has, after the work that sent them (a microtask: never
 * synchronously, so a send never recurses into its receiver). What a round's deliveries send makes the
 * next round, up to ROUNDS_PER_TURN in a row; then, and for an end given FRAMES_PER_TURN already, the
 * rest waits for the loop's next turn (setImmediate), where the count starts again.
 */
class ThreadLinks {
  /** The open ends that can pair, by their own bind address, lport, rport and peer address (a port is bound once: one end a key). */
  private readonly ends = new Map<string, LinkEnd>();
  private readonly due = new Set<LinkEnd>();
  /** Ends given FRAMES_PER_TURN already since the loop last turned here: they go on at the next turn. */
  private readonly dueNextTurn = new Set<LinkEnd>();
  private roundQueued = false;
  private turnQueued = false;
  /** Rounds since the loop last turned here (the count is only reset by a turn that delivered). */
  private rounds = 0;
  /** Advanced by each turn that delivers: an end's frame budget is per turn. */
  turn = 0;
  /** The ends paired with an end of another thread, by pairing (ADR 0111). */
  private readonly pairings = new Map<string, LinkEnd>();
  /** Where the threads talk about their ends; open while this thread has an end that can pair. */
  private channel: LinkChannel | undefined;

  /** How this thread's ring readers wait and its writers wake them (ADR 0112): made at the first pairing. */
  private madeWakeups: RingWakeups | undefined;

  constructor(
    readonly turns: LinkTurns,
    private readonly openChannel: (() => LinkChannel) | undefined,
    private readonly makeWakeups: (later: LinkTurns["later"]) => RingWakeups,
  ) {}

  private get wakeups(): RingWakeups {
    this.madeWakeups ??= this.makeWakeups(this.turns.later);
    return this.madeWakeups;
  }

  /** A ring another thread made (its buffer), with this thread's bell for the waiting reader. */
  ring(buffer: SharedArrayBuffer): FrameRing {
    return FrameRing.of(buffer, this.wakeups.bell) as FrameRing;
  }

  /** A reader of rings for an end of this thread. */
  ringReader(framesPerTurn: number, deliver: (frame: Uint8Array) => void, overflowed: (frames: number, bytes: number) => void): RingReader {
    return new RingReader(this.turns.defer, this.wakeups.waiter(), framesPerTurn, deliver, overflowed);
  }

  add(end: LinkEnd): void {
    this.ends.set(end.key, end);
    if (this.channel === undefined && this.openChannel !== undefined) {
      const channel = this.openChannel();
      channel.onmessage = (event) => this.heard(event.data);
      // Talking about ends must not keep a thread alive.
      channel.unref?.();
      this.channel = channel;
    }
  }

  remove(end: LinkEnd): void {
    if (this.ends.get(end.key) === end) this.ends.delete(end.key);
    if (this.ends.size === 0 && this.channel !== undefined) {
      this.channel.close();
      this.channel = undefined;
    }
  }

  /** The open end this one's datagrams would reach, and whose datagrams this one accepts: its ports crossed, the same peer address. */
  partnerOf(end: LinkEnd): LinkEnd | undefined {
    const other = this.ends.get(end.partnerKey);
    return other !== undefined && other !== end && other.pairable ? other : undefined;
  }

  endKeyed(key: string): LinkEnd | undefined {
    return this.ends.get(key);
  }

  /** Says to the other threads that `end` opened with no partner here. */
  announce(end: LinkEnd): void {
    this.post({ kind: "open", key: end.key, partnerKey: end.partnerKey, incarnation: end.incarnation });
  }

  track(pairing: string, end: LinkEnd): void {
    this.pairings.set(pairing, end);
  }

  untrack(pairing: string): void {
    this.pairings.delete(pairing);
  }

  /** An end here ended a pairing: its partner's thread is told (and this one, should the partner have come here with its socket). */
  endPairing(pairing: string): void {
    this.post({ kind: "unpair", pairing });
    // A channel does not hear itself: the partner may be here, having come with its socket.
    this.pairings.get(pairing)?.endRemote(pairing, false);
  }

  private post(message: LinkMessage): void {
    this.channel?.postMessage(message);
  }

  private heard(data: unknown): void {
    const message = decodeLinkMessage(data);
    if (message === undefined) return;
    if (message.kind === "unpair") return this.pairings.get(message.pairing)?.endRemote(message.pairing, false);
    if (message.kind === "open") {
      const end = this.ends.get(message.partnerKey);
      if (end === undefined || end.partnerKey !== message.key || end.closed || end.peer !== undefined) return;
      if (end.remote !== undefined) {
        if (end.remote.partnerIncarnation === message.incarnation) return;
        // The partner opened again without its earlier self saying goodbye (its thread ended): that pairing is over.
        end.endRemote(end.remote.pairing, true);
      }
      // One side makes the pairing, whichever heard of the other first: the end with the smaller key.
      return end.key < message.key ? this.makePairing(end, { key: message.key, incarnation: message.incarnation }) : this.announce(end);
    }
    const end = this.ends.get(message.taker.key);
    if (end === undefined || end.incarnation !== message.taker.incarnation || !end.pairable) return this.endPairing(message.pairing);
    const toTaker = this.ring(message.toTaker);
    const toMaker = this.ring(message.toMaker);
    end.takeRemote({ pairing: message.pairing, out: toMaker, in: toTaker, partnerIncarnation: message.maker.incarnation }, message.barrierToTaker, message.barrierToMaker);
    this.track(message.pairing, end);
  }

  /** Pairs `end` with `partner`, an end of another thread: two rings, a barrier each way, and the partner's thread told. */
  private makePairing(end: LinkEnd, partner: { key: string; incarnation: string }): void {
    const pairing = randomUUID();
    const toPartner = FrameRing.create(CROSS_THREAD_RING_BYTES, this.wakeups.bell);
    const toEnd = FrameRing.create(CROSS_THREAD_RING_BYTES, this.wakeups.bell);
    const barrierToPartner = newBarrier();
    const barrierToEnd = newBarrier();
    // The partner's frames wait in the ring until its barrier comes through the sockets; this end's go
    // into the ring from now on, behind the barrier it sends now.
    end.takeRemote({ pairing, out: toPartner, in: toEnd, partnerIncarnation: partner.incarnation }, barrierToEnd, barrierToPartner);
    this.track(pairing, end);
    this.post({ kind: "pair", pairing, maker: { key: end.key, incarnation: end.incarnation }, taker: partner, toTaker: toPartner.buffer, toMaker: toEnd.buffer, barrierToTaker: barrierToPartner, barrierToMaker: barrierToEnd });
  }

  /** `end` has frames to be given. */
  wake(end: LinkEnd): void {
    this.due.add(end);
    if (this.roundQueued) return;
    if (this.rounds >= ROUNDS_PER_TURN) return this.queueTurn();
    this.roundQueued = true;
    this.rounds++;
    this.turns.soon(this.deliverRound);
  }

  /** `end` was given its frames for this turn: the rest at the next. */
  waitTurn(end: LinkEnd): void {
    this.dueNextTurn.add(end);
    this.queueTurn();
  }

  private queueTurn(): void {
    if (this.turnQueued) return;
    this.turnQueued = true;
    this.turns.defer(this.nextTurn);
  }

  private readonly nextTurn = (): void => {
    this.turnQueued = false;
    this.turn++;
    this.rounds = 0;
    for (const end of this.dueNextTurn) this.due.add(end);
    this.dueNextTurn.clear();
    this.deliverRound();
  };

  private readonly deliverRound = (): void => {
    this.roundQueued = false;
    const ends = [...this.due];
    this.due.clear();
    for (const end of ends) end.deliverWaiting();
  };
}

/** A pairing with an end of another thread (ADR 0111): the ring this end writes, the one it reads, and who the partner is. */
interface RemotePairing {
  readonly pairing: string;
  readonly out: FrameRing;
  readonly in: FrameRing;
  readonly partnerIncarnation: string;
}

/**
 * One UDP NIO's end: its socket from the inner transport stays open, bound and connected for as long
 * as the end is, and is read as always (a peer elsewhere, or a stranger spoofing the peer, still
 * reaches it). While the end is paired with another end of this thread (the peer's socket is this
 * thread's too), what it sends is given to that end instead of the socket; while it is paired with an
 * end of another thread of this process, it goes into their ring (ADR 0111).
 */
class LinkEnd implements UdpEndpoint {
  peer: LinkEnd | undefined;
  remote: RemotePairing | undefined;
  closed = false;
  /** This opening of the end: the partner's thread tells a reopened end from the one it paired with. */
  incarnation: string = randomUUID();
  private readonly inbox: Inbox;
  /** The rings this end reads, made when it first pairs with an end of another thread. */
  private reader: RingReader | undefined;
  /** Frames staged in the ring to its partner this turn, to be published after the work that sent them. */
  private publishing = false;
  /** The barrier this end waits to read on its socket before its in-memory frames are delivered (pairing). */
  private barrier: Uint8Array | undefined;
  private cancelBarrierTimer: (() => void) | undefined;
  /** Barriers swallowed unawaited, newest last: one may come before the pairing that awaits it is heard of. */
  private readonly swallowed: Buffer[] = [];
  /** The socket this end reads from, once the inner transport opened it (InProcessLinks.open). */
  inner!: UdpEndpoint;
  /** Frames given in the links' turn `givenInTurn` (FRAMES_PER_TURN at most). */
  private given = 0;
  private givenInTurn = -1;

  constructor(
    private readonly links: ThreadLinks,
    private readonly options: UdpEndpointOptions,
    private readonly bindHost: string,
    receiveBufferBytes: number,
  ) {
    this.inbox = new Inbox(receiveBufferBytes);
  }

  /** Free to pair: open, and paired with nobody. */
  get pairable(): boolean {
    return !this.closed && this.peer === undefined && this.remote === undefined;
  }

  /**
   * What the socket reads: a barrier is this transport's own, anything else is the peer's frame, given
   * after whatever the rings hold (sent before it, by a partner that then went back to its socket).
   */
  readonly fromSocket = (frame: Uint8Array): void => {
    if (isBarrier(frame)) return this.barrierRead(frame);
    if (this.barrier === undefined) this.reader?.drainAll();
    this.options.onFrame(frame);
  };

  /**
   * Paired with `sender`: what its socket sent this end before may still wait in this end's socket
   * (its earlier incarnation's datagrams: a node that moved here, a link made again). A barrier goes
   * through the sockets behind them; the in-memory frames wait until this end reads it, so none
   * overtakes them. Should the kernel lose the barrier, they wait BARRIER_TIMEOUT_MS at most.
   */
  awaitBarrierFrom(sender: LinkEnd): void {
    const barrier = newBarrier();
    this.awaitBarrier(barrier);
    sender.inner.send(barrier);
  }

  private awaitBarrier(barrier: Uint8Array): void {
    // Come already (the socket outran the message that says to await it): nothing to wait for.
    const early = this.swallowed.findIndex((b) => Buffer.compare(b, barrier) === 0);
    if (early >= 0) {
      this.swallowed.splice(early, 1);
      return;
    }
    this.dropBarrier();
    this.barrier = barrier;
    this.reader?.hold();
    this.cancelBarrierTimer = this.links.turns.later(BARRIER_TIMEOUT_MS, () => this.barrierPassed());
  }

  private barrierRead(frame: Uint8Array): void {
    if (this.barrier !== undefined && Buffer.compare(frame, this.barrier) === 0) return this.barrierPassed();
    // Stale (a pairing that ended), or early: remembered a while, then swallowed for good.
    this.swallowed.push(Buffer.from(frame));
    if (this.swallowed.length > BARRIERS_REMEMBERED) this.swallowed.shift();
  }

  private barrierPassed(): void {
    this.dropBarrier();
    // What rings it still reads (a pairing with another thread that ended) go before a new pairing's frames.
    this.reader?.drainAll();
    if (this.inbox.size > 0) this.links.wake(this);
  }

  private dropBarrier(): void {
    this.cancelBarrierTimer?.();
    this.cancelBarrierTimer = undefined;
    this.barrier = undefined;
    this.reader?.release();
  }

  get key(): string {
    return `${this.bindHost} ${this.options.lport} ${this.options.rport} ${this.options.rhost}`;
  }

  /** The key of the end whose socket exchanges datagrams with this one's: ports crossed, the same address as each one's peer. */
  get partnerKey(): string {
    return `${this.bindHost} ${this.options.rport} ${this.options.lport} ${this.options.rhost}`;
  }

  send(frame: Uint8Array): void {
    if (this.closed) return;
    const peer = this.peer;
    // One copy: a frame may be a view of a receive arena, or one buffer a flood sends to many ports.
    if (peer !== undefined) return peer.arrive(Buffer.from(frame));
    const remote = this.remote;
    if (remote === undefined) return this.inner.send(frame);
    // "full" is the partner's receive buffer dropping it, counted there; "gone": it closed.
    const staged = remote.out.stage(frame);
    if (staged === "gone") {
      this.endRemote(remote.pairing, true);
      this.inner.send(frame);
    } else if (staged === "written" && !this.publishing) {
      // What this turn's work sends is published, and the partner woken, once: after that work (a microtask).
      this.publishing = true;
      this.links.turns.soon(this.publish);
    }
  }

  private readonly publish = (): void => {
    this.publishing = false;
    this.remote?.out.publish();
  };

  private arrive(frame: Uint8Array): void {
    if (!this.inbox.put(frame)) {
      this.options.onOverflow?.(1, frame.length);
      return;
    }
    if (this.barrier === undefined) this.links.wake(this);
  }

  deliverWaiting(): void {
    if (this.closed || this.barrier !== undefined) return;
    if (this.givenInTurn !== this.links.turn) {
      this.givenInTurn = this.links.turn;
      this.given = 0;
    }
    const frames = this.inbox.take(FRAMES_PER_TURN - this.given);
    this.given += frames.length;
    for (const frame of frames) this.options.onFrame(frame);
    if (this.inbox.size > 0 && !this.closed) this.links.waitTurn(this);
  }

  private readRings(): RingReader {
    this.reader ??= this.links.ringReader(
      FRAMES_PER_TURN,
      (frame) => {
        if (!this.closed) this.options.onFrame(frame);
      },
      (frames, bytes) => this.options.onOverflow?.(frames, bytes),
    );
    return this.reader;
  }

  /**
   * Paired with an end of another thread: from now on this end writes `remote.out` and reads
   * `remote.in`, once `awaited` has come through its socket (the partner's earlier datagrams are ahead
   * of it); `sent` goes to the partner through this end's socket, behind what it sent before.
   */
  takeRemote(remote: RemotePairing, awaited: Uint8Array, sent: Uint8Array): void {
    this.remote = remote;
    const reader = this.readRings();
    this.awaitBarrier(awaited);
    reader.add(remote.in);
    this.inner.send(sent);
  }

  /**
   * The pairing with another thread's end is over (either end closed, or the partner reopened): this
   * end writes its socket again; what the partner wrote before is still read, ahead of its socket's.
   * `tell`: the partner's thread is told (it did not end it).
   */
  endRemote(pairing: string, tell: boolean): void {
    const remote = this.remote;
    if (remote === undefined || remote.pairing !== pairing) return;
    this.remote = undefined;
    this.links.untrack(pairing);
    remote.out.closeWriter();
    // The partner writes no more into it either: read to its end, then let go.
    remote.in.closeWriter();
    if (tell) this.links.endPairing(pairing);
  }

  /** Reads on the rings this end's socket brought from another thread (a node that moved, ADR 0069), in their pairing if it had one. */
  resume(carried: CarriedRings): void {
    const reader = this.readRings();
    if (carried.barrier !== undefined) this.awaitBarrier(carried.barrier);
    for (const buffer of carried.inbound) reader.add(this.links.ring(buffer));
    const p = carried.pairing;
    if (p === undefined) return;
    this.incarnation = p.incarnation;
    this.remote = { pairing: p.id, out: this.links.ring(p.out), in: this.links.ring(p.in), partnerIncarnation: p.partnerIncarnation };
    this.links.track(p.id, this);
  }

  /**
   * Back to the sockets: what each end sent the other and was not delivered yet goes through the
   * sender's socket (into the receiver's kernel buffer, in order, before anything either sends
   * after), except what was for an end that closes: that goes as a closing socket's buffer goes.
   */
  private unpair(closing: boolean): void {
    const peer = this.peer;
    if (peer === undefined) return;
    this.peer = undefined;
    peer.peer = undefined;
    // What waited behind a barrier goes through the sockets behind it too: nothing waits for it now.
    this.dropBarrier();
    peer.dropBarrier();
    const toPeer = peer.inbox.takeAll();
    const toThis = this.inbox.takeAll();
    for (const frame of toPeer) this.inner.send(frame);
    if (!closing) for (const frame of toThis) peer.inner.send(frame);
  }

  /** No longer this thread's: waits for no barrier, and is no end another one can pair with. */
  private retire(): void {
    this.dropBarrier();
    this.closed = true;
    this.links.remove(this);
  }

  close(): Promise<void> {
    if (this.closed) return Promise.resolve();
    this.unpair(true);
    // What the partner wrote and this end did not read goes as a closing socket's buffer goes.
    for (const ring of this.reader?.stop() ?? []) ring.closeReader();
    const remote = this.remote;
    if (remote !== undefined) this.endRemote(remote.pairing, true);
    this.retire();
    return this.inner.close();
  }

  /** Only where the inner socket can be handed over to another thread (the batched path, ADR 0069): set by `open`. */
  handOver?: () => SocketHandover;

  /**
   * What was on its way to this end goes into its socket, and what it sent out through it, before it is
   * handed over. A pairing with another thread's end goes with the socket instead (ADR 0111): the rings
   * are shared memory, read and written on where the socket goes.
   */
  handOverFrom(inner: Required<UdpEndpoint>): SocketHandover {
    if (this.closed) return inner.handOver();
    this.unpair(false);
    const remote = this.remote;
    // What it staged goes with the ring, published: the next thread's writer starts after it.
    remote?.out.publish();
    const barrier = this.barrier;
    const inbound = this.reader?.stop() ?? [];
    if (remote !== undefined) this.links.untrack(remote.pairing);
    this.remote = undefined;
    this.retire();
    const socket = inner.handOver();
    if (remote === undefined && inbound.length === 0) return socket;
    const carried: CarriedRings = {
      inbound: inbound.map((r) => r.buffer),
      ...(barrier === undefined ? {} : { barrier }),
      ...(remote === undefined ? {} : { pairing: { id: remote.pairing, incarnation: this.incarnation, partnerIncarnation: remote.partnerIncarnation, out: remote.out.buffer, in: remote.in.buffer } }),
    };
    return { ...socket, carried };
  }
}

/**
 * In-process links (ADR 0105, 0111): a UDP transport over another (batched or node:dgram) in which a
 * link whose two ends are UDP NIOs of this process passes its frames without the kernel: no sendmmsg,
 * no recvmmsg, no wake-up per datagram. Both ends in this thread: a queue per end; in two threads
 * (two data-plane workers, or a worker and the main thread), with `betweenThreads`
 * (NETEMU_IN_PROCESS_LINKS=threads, opt-in): a ring in shared memory each way.
 * Filters, counters, captures and order live above the transport and stay as they are. The sockets
 * stay open and connected all along, so the ends fall back to them the moment either one closes or
 * (in one thread) is handed over to another thread.
 */
export class InProcessLinks implements UdpTransport {
  private readonly links: ThreadLinks;

  constructor(
    private readonly inner: UdpTransport,
    private readonly options: InProcessLinkOptions,
    turns: LinkTurns = NODE_TURNS,
    private readonly local: () => ReadonlySet<string> = interfaceAddresses,
    channel: () => LinkChannel = openLinkChannel,
    wakeups: (later: LinkTurns["later"]) => RingWakeups = threadRingWakeups,
  ) {
    this.links = new ThreadLinks(turns, options.betweenThreads === true ? channel : undefined, wakeups);
  }

  async open(o: UdpEndpointOptions): Promise<E.Either<string, UdpEndpoint>> {
    const end = new LinkEnd(this.links, o, this.options.bindHost, this.options.receiveBufferBytes);
    // Every end reads through its own filter of barriers, paired or not: a barrier may come late.
    const opened = await this.inner.open({ ...o, onFrame: end.fromSocket });
    if (E.isLeft(opened)) return opened;
    const inner = opened.right;
    end.inner = inner;
    if (inner.handOver !== undefined) end.handOver = () => end.handOverFrom(inner as Required<UdpEndpoint>);
    // A peer given by name, or at an address that may not be this host's sockets', stays on the socket path.
    if (!reachesThisHost(o.rhost, this.options.bindHost, this.local)) return E.right(end);
    const carried = decodeCarriedRings(o.handover?.carried);
    // An end here paired with this one's earlier self in another thread, which ended without a word: over
    // (not the pairing this end brings along: its partner is this very end's).
    const stale = this.links.endKeyed(end.partnerKey);
    if (stale?.remote !== undefined && stale.remote.pairing !== carried?.pairing?.id) stale.endRemote(stale.remote.pairing, true);
    this.links.add(end);
    if (carried !== undefined) {
      end.resume(carried);
      if (carried.pairing !== undefined) return E.right(end);
    }
    const partner = this.links.partnerOf(end);
    if (partner !== undefined) {
      end.peer = partner;
      partner.peer = end;
      end.awaitBarrierFrom(partner);
      partner.awaitBarrierFrom(end);
    } else this.links.announce(end);
    return E.right(end);
  }
}
