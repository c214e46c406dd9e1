import * as E from "fp-ts/lib/Either.js";
import type { SocketHandover, UdpEndpoint, UdpEndpointOptions, UdpTransport } from "../../src/application/ports/udp-transport.js";
import { InProcessLinks } from "../../src/adapters/transport/in-process-links.js";
import { ThreadDoorbell, atomicsWakeups, doorbellWakeups, type LoopTimer } from "../../src/adapters/transport/ring-wakeups.js";
import type { FakeDoorbells } from "./fake-doorbells.js";
import { LinkChannelHub } from "./link-channel-hub.js";

/*
 * In-process links (ADR 0105, 0111) over fake sockets and a loop run by hand: the unit tests' world.
 */

/** What happened to the fake sockets, in order: `send lport bytes` (`send lport barrier` for a pairing's barrier), `close lport`, `handOver lport`. */
export type Event = string;

export const isBarrierShaped = (frame: Uint8Array): boolean => frame.length === 32 && Buffer.from(frame.subarray(0, 16)).toString("latin1") === "netemu:barrier:1";

/** A datagram on its way, as the kernel holds it in the receiving socket's buffer until that socket is read. */
export interface Datagram {
  readonly from: number;
  readonly to: number;
  readonly frame: Uint8Array;
}

/** A socket of the fake inner transport: records what is done to it and puts what it sends on the fake wire. */
export class FakeSocket implements UdpEndpoint {
  open = true;
  constructor(
    readonly options: UdpEndpointOptions,
    protected readonly events: Event[],
    private readonly wire: Datagram[],
  ) {}
  send(frame: Uint8Array): void {
    this.events.push(`send ${this.options.lport} ${isBarrierShaped(frame) ? "barrier" : [...frame].join(",")}`);
    this.wire.push({ from: this.options.lport, to: this.options.rport, frame: Buffer.from(frame) });
  }
  close(): Promise<void> {
    this.open = false;
    this.events.push(`close ${this.options.lport}`);
    return Promise.resolve();
  }
  receive(frame: Uint8Array): void {
    this.options.onFrame(frame);
  }
}

export class HandingFakeSocket extends FakeSocket {
  handOver(): SocketHandover {
    this.open = false;
    this.events.push(`handOver ${this.options.lport}`);
    return { fd: 1000 + this.options.lport };
  }
}

/** The kernel between the fake sockets: datagrams sent and not read yet, and the sockets that read them (shared by the transports of two "threads"). */
export class FakeKernel {
  readonly events: Event[] = [];
  readonly sockets: FakeSocket[] = [];
  readonly wire: Datagram[] = [];
}

/** The inner transport: opens fake sockets (that can be handed over, as the batched path's, or not, as node:dgram's). */
export class FakeTransport implements UdpTransport {
  constructor(
    private readonly canHandOver = true,
    readonly kernel = new FakeKernel(),
  ) {}
  get events(): Event[] {
    return this.kernel.events;
  }
  get sockets(): FakeSocket[] {
    return this.kernel.sockets;
  }
  get wire(): Datagram[] {
    return this.kernel.wire;
  }
  async open(o: UdpEndpointOptions): Promise<E.Either<string, UdpEndpoint>> {
    if (o.lport === 9) return E.left("local port is already in use (EADDRINUSE)");
    const socket = this.canHandOver ? new HandingFakeSocket(o, this.events, this.wire) : new FakeSocket(o, this.events, this.wire);
    this.sockets.push(socket);
    return E.right(socket);
  }
  /** The sends that are not barriers. */
  get sends(): Event[] {
    return this.events.filter((e) => !e.endsWith(" barrier"));
  }
  /** Each open socket reads what waits for it (from its peer: the sockets are connected), in order; the rest is dropped. */
  read(): void {
    for (const d of this.wire.splice(0)) {
      const socket = this.sockets.find((s) => s.open && s.options.lport === d.to && s.options.rport === d.from);
      socket?.receive(d.frame);
    }
  }
}

/**
 * The loop run by hand: what InProcessLinks queues after the current work (microtasks in production),
 * for the next turn (setImmediate) and as timers (setTimeout).
 */
export class Turns {
  private pending: (() => void)[] = [];
  private micro: (() => void)[] = [];
  private timers: { ms: number; callback: () => void; cancelled: boolean }[] = [];
  /** Microtasks run since the last look. */
  microtasksRun = 0;
  readonly soon = (callback: () => void): void => void this.micro.push(callback);
  readonly defer = (callback: () => void): void => void this.pending.push(callback);
  readonly later = (ms: number, callback: () => void): (() => void) => {
    const timer = { ms, callback, cancelled: false };
    this.timers.push(timer);
    return () => {
      timer.cancelled = true;
    };
  };
  get waiting(): number {
    return this.pending.length;
  }
  /** The end of the current work: its microtasks, and theirs, until none is left. */
  settle(): void {
    for (let run = 0, callback = this.micro.shift(); callback !== undefined; run++, callback = this.micro.shift()) {
      // Microtasks that never end would hang the test (and the loop in production): a failure instead.
      if (run === 10_000) throw new Error("the microtasks never end: the loop would never turn");
      this.microtasksRun++;
      callback();
    }
  }
  /** The current work ends, then the loop turns: each immediate, each followed by its microtasks. */
  next(): void {
    this.settle();
    const now = this.pending;
    this.pending = [];
    for (const callback of now) {
      callback();
      this.settle();
    }
  }
  /** Timers of `ms` set and neither fired nor cancelled. */
  timersDue(ms: number): number {
    return this.timers.filter((t) => !t.cancelled && t.ms === ms).length;
  }
  /** Fires the timers due within `ms`. */
  elapse(ms: number): void {
    const due = this.timers.filter((t) => !t.cancelled && t.ms <= ms);
    this.timers = this.timers.filter((t) => !due.includes(t));
    for (const t of due) t.callback();
  }
}

export interface World {
  readonly inner: FakeTransport;
  readonly turns: Turns;
  readonly links: InProcessLinks;
  /** Opens an end; what it receives is pushed to `got` (bytes as text), what it drops to `dropped`. */
  open(lport: number, rport: number, rhost?: string, handover?: SocketHandover): Promise<{ end: UdpEndpoint; got: string[]; dropped: string[] }>;
  /** Opens two ends whose ports cross and lets their pairing's barriers through. */
  pair(a: number, b: number): Promise<[{ end: UdpEndpoint; got: string[]; dropped: string[] }, { end: UdpEndpoint; got: string[]; dropped: string[] }]>;
}

/** One thread's in-process links over fake sockets; two worlds given one kernel and one hub are two threads of one process. */
export function world(
  options: { bindHost?: string; receiveBufferBytes?: number; canHandOver?: boolean; local?: readonly string[]; kernel?: FakeKernel; hub?: LinkChannelHub; betweenThreads?: boolean; doorbells?: FakeDoorbells } = {},
): World {
  const inner = new FakeTransport(options.canHandOver ?? true, options.kernel);
  const turns = new Turns();
  const local = new Set(options.local ?? []);
  const hub = options.hub ?? new LinkChannelHub();
  // Rings wake their readers by the given doorbells, or else by Atomics.waitAsync on the real loop.
  const doorbells = options.doorbells?.forThread();
  const wakeups = (later: LoopTimer) => (doorbells === undefined ? atomicsWakeups(later) : doorbellWakeups(doorbells, new ThreadDoorbell(doorbells)));
  const links = new InProcessLinks(inner, { bindHost: options.bindHost ?? "127.0.0.1", receiveBufferBytes: options.receiveBufferBytes ?? 1 << 20, betweenThreads: options.betweenThreads ?? false }, turns, () => local, hub.open, wakeups);
  return {
    inner,
    turns,
    links,
    async open(lport, rport, rhost = "127.0.0.1", handover) {
      const got: string[] = [];
      const dropped: string[] = [];
      const opened = await links.open({ lport, rport, rhost, ...(handover === undefined ? {} : { handover }), onFrame: (f) => got.push([...f].join(",")), onOverflow: (frames, bytes) => dropped.push(`${frames} of ${bytes} B`) });
      if (E.isLeft(opened)) throw new Error(opened.left);
      return { end: opened.right, got, dropped };
    },
    async pair(a, b) {
      const ends = [await this.open(a, b), await this.open(b, a)] as const;
      inner.read();
      return [ends[0], ends[1]];
    },
  };
}

export const bytes = (...values: number[]): Uint8Array => Uint8Array.from(values);
