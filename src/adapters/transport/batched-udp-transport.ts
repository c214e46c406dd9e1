import { existsSync } from "node:fs";
import { createRequire } from "node:module";
import { dirname, join } from "node:path";
import { fileURLToPath } from "node:url";
import * as E from "fp-ts/lib/Either.js";
import type { SocketHandover, UdpEndpoint, UdpEndpointOptions, UdpTransport } from "../../application/ports/udp-transport.js";
import { DgramUdpTransport, ipv6BindAddress, reasonOf, resolvePeer, type DgramOptions } from "./dgram-udp-transport.js";
import { udpCoalesceMicroseconds } from "../shared/udp-coalesce-setting.js";

/**
 * A batch as the addon gives it (ADR 0107): `count` frames back to back from `offset` in `pool`, their
 * lengths in `lengths[0..count)`. The lengths array is the thread's, overwritten by the next batch; the
 * pool is never written over, so a frame may be kept as a view of it.
 */
export type OnBatch = (pool: ArrayBuffer, offset: number, lengths: Uint32Array, count: number) => void;

/** The frames of each batch, one by one, in order, as views of the receive pool. */
export function framesOfBatches(onFrame: (frame: Uint8Array) => void): OnBatch {
  return (pool, offset, lengths, count) => {
    let at = offset;
    for (let i = 0; i < count; i++) {
      const length = lengths[i] as number;
      // Empty datagrams too, as dgram delivers them: the data plane drops and counts them (runt).
      // A Uint8Array over the pool, not Buffer.subarray: its species lookup costs more (frame-chunks.ts).
      onFrame(new Uint8Array(pool, at, length));
      at += length;
    }
  };
}

/** The native addon's surface (native/udp-batch.c). */
export interface UdpBatchAddon {
  open(
    family: 4 | 6,
    bindAddress: string,
    lport: number,
    peerAddress: string,
    rport: number,
    receiveBufferBytes: number,
    sendBufferBytes: number,
    onBatch: OnBatch,
    onError: (code: string, message: string) => void,
    /** UDP GSO on send and UDP GRO on receive (ADR 0106); default true. */
    segmentOffload?: boolean,
  ): unknown;
  send(handle: unknown, frames: readonly Uint8Array[]): number;
  close(handle: unknown): void;
  /** Stops polling and gives the socket's fd, left open (ADR 0069). */
  detach(handle: unknown): number;
  /** Polls a detached socket in this thread, once checked to be bound to lport and connected to peer:rport. */
  adopt(
    fd: number,
    family: 4 | 6,
    lport: number,
    peerAddress: string,
    rport: number,
    onBatch: OnBatch,
    onError: (code: string, message: string) => void,
    segmentOffload?: boolean,
  ): unknown;
  /** A TAP device, attached to or created (ADR 0083); throws with the errno name as `code`. */
  openTap(name: string, onBatch: OnBatch, onError: (code: string, message: string) => void): unknown;
  /** A host interface through a promiscuous packet socket (ADR 0083); throws with the errno name as `code`. */
  openEthernet(name: string, onBatch: OnBatch, onError: (code: string, message: string) => void): unknown;
  /** Reads a device fd another thread detached, once checked to be that device's. */
  adoptDevice(fd: number, kind: "tap" | "ethernet", name: string, onBatch: OnBatch, onError: (code: string, message: string) => void): unknown;
  /** Receive coalescing for this thread's UDP sockets (ADR 0110): 0 off, else 1..1000 µs; throws a RangeError otherwise. */
  setCoalescing(microseconds: number): void;
  /** This thread's setting, the sockets coalescing now, and the coalescing timer's ticks so far. */
  coalescing(): { readonly microseconds: number; readonly parked: number; readonly ticks: number };
  /** This thread's doorbell for frame rings (ADR 0112): an eventfd on this loop; throws when the thread has one. */
  doorbell(onRing: () => void): number;
  /** Rings a doorbell of this process by id; false when none has it (its thread went away). */
  ring(id: number): boolean;
}

const ADDON_FILE = join("native", "build", "udp_batch.node");

/**
 * Finds the addon built at install: this file runs from dist/ or from build/src/, so walk up to the
 * package. NETEMU_UDP_ADDON names another file instead (a test's seam for an addon that cannot load).
 */
export function loadUdpBatchAddon(env: NodeJS.ProcessEnv = process.env): UdpBatchAddon {
  if (process.platform !== "linux") throw new Error(`recvmmsg/sendmmsg are Linux calls, this is ${process.platform}`);
  const named = env["NETEMU_UDP_ADDON"];
  if (named !== undefined && named !== "") {
    try {
      return createRequire(import.meta.url)(named) as UdpBatchAddon;
    } catch (err) {
      throw new Error(`NETEMU_UDP_ADDON=${named} cannot be loaded: ${(err as Error).message.split("\n")[0]}`);
    }
  }
  let dir = dirname(fileURLToPath(import.meta.url));
  for (let i = 0; i < 6; i++) {
    const candidate = join(dir, ADDON_FILE);
    if (existsSync(candidate)) return createRequire(import.meta.url)(candidate) as UdpBatchAddon;
    dir = dirname(dir);
  }
  throw new Error(`${ADDON_FILE} is not built (no C compiler or Node headers at install; npm run build:native says why)`);
}

/** An endpoint of the addon (a UDP socket or a device): sends gathered per turn, closed or handed over once. */
export class BatchedEndpoint implements UdpEndpoint {
  private closed = false;
  private queue: Uint8Array[] = [];
  private flushScheduled = false;
  private readonly flush = (): void => {
    this.flushScheduled = false;
    if (this.closed || this.queue.length === 0) return;
    const frames = this.queue;
    this.queue = [];
    this.addon.send(this.handle, frames);
  };

  constructor(
    private readonly addon: UdpBatchAddon,
    private readonly handle: unknown,
  ) {}

  send(frame: Uint8Array): void {
    if (this.closed) return;
    this.queue.push(frame);
    // The frames sent while one received batch is handled leave in one sendmmsg, right after that
    // JavaScript call returns (a microtask): a batch only gathers what is already there, it never
    // waits for frames still to come, so a lone frame is not delayed.
    if (!this.flushScheduled) {
      this.flushScheduled = true;
      queueMicrotask(this.flush);
    }
  }

  close(): Promise<void> {
    if (this.closed) return Promise.resolve();
    this.flush();
    this.closed = true;
    this.addon.close(this.handle);
    return Promise.resolve();
  }

  /** What was given to send leaves first; then the socket stops being read here, and stays open for its next thread. */
  handOver(): SocketHandover {
    if (this.closed) throw new Error("handOver: the endpoint is closed");
    this.flush();
    this.closed = true;
    return { fd: this.addon.detach(this.handle) };
  }
}

/**
 * UDP NIOs over the batched addon: the same bound and connected socket as DgramUdpTransport (so the
 * kernel still drops strangers' datagrams), read with recvmmsg and written with sendmmsg (ADR 0068).
 */
export class BatchedUdpTransport implements UdpTransport {
  constructor(
    private readonly options: DgramOptions,
    private readonly addon: UdpBatchAddon,
    /** UDP GSO and GRO between netemu hops (ADR 0106); NETEMU_UDP_GSO=off turns both off. */
    private readonly segmentOffload: boolean = true,
  ) {}

  async open(o: UdpEndpointOptions): Promise<E.Either<string, UdpEndpoint>> {
    const resolved = await resolvePeer(o.rhost);
    if (E.isLeft(resolved)) return resolved;
    const peer = resolved.right;
    const v6 = peer.family === 6;
    const bindAddress = v6 ? ipv6BindAddress(this.options.bindHost) : this.options.bindHost;
    const onBatch = framesOfBatches(o.onFrame);
    const onError = (code: string, message: string): void => o.onError?.(reasonOf(Object.assign(new Error(message), { code })));
    const handover = o.handover;
    if (handover !== undefined && Number.isInteger(handover.fd) && handover.fd >= 0) {
      try {
        return E.right(new BatchedEndpoint(this.addon, this.addon.adopt(handover.fd, v6 ? 6 : 4, o.lport, peer.address, o.rport, onBatch, onError, this.segmentOffload)));
      } catch {
        // Not this NIO's socket (any more): bound afresh below, as without a handover.
      }
    }
    try {
      const handle = this.addon.open(
        v6 ? 6 : 4,
        bindAddress,
        o.lport,
        peer.address,
        o.rport,
        this.options.receiveBufferBytes,
        this.options.sendBufferBytes,
        onBatch,
        onError,
        this.segmentOffload,
      );
      return E.right(new BatchedEndpoint(this.addon, handle));
    } catch (err) {
      return E.left(reasonOf(err));
    }
  }
}

/** Which datagram path runs; the batched one with its receive coalescing interval (µs, 0: off; ADR 0110). */
export type UdpPath = { readonly kind: "batched"; readonly coalescingMicroseconds: number } | { readonly kind: "dgram"; readonly reason: string };

export interface ChosenUdpTransport {
  readonly transport: UdpTransport;
  /** Which datagram path runs, and why not the batched one: said at start. */
  readonly path: UdpPath;
}

/** Whether the batched path uses UDP GSO and GRO: yes unless NETEMU_UDP_GSO=off (ADR 0106). */
function segmentOffloadWanted(env: NodeJS.ProcessEnv = process.env): boolean {
  return env["NETEMU_UDP_GSO"] !== "off";
}

/**
 * The batched path when its addon loads, node:dgram otherwise (or when NETEMU_UDP_PATH=dgram asks
 * for it): the same port, so nothing above the transport knows which one runs. NETEMU_UDP_GSO=off
 * keeps the batched path but sends and receives every datagram on its own (ADR 0106);
 * NETEMU_UDP_COALESCE_US sets the calling thread's receive coalescing (ADR 0110).
 */
export function chooseUdpTransport(
  options: DgramOptions,
  load: (env: NodeJS.ProcessEnv) => UdpBatchAddon = loadUdpBatchAddon,
  env: NodeJS.ProcessEnv = process.env,
): ChosenUdpTransport {
  const dgram = (reason: string): ChosenUdpTransport => ({ transport: new DgramUdpTransport(options), path: { kind: "dgram", reason } });
  if (env["NETEMU_UDP_PATH"] === "dgram") return dgram("NETEMU_UDP_PATH=dgram");
  try {
    const addon = load(env);
    const coalescingMicroseconds = udpCoalesceMicroseconds(env);
    addon.setCoalescing(coalescingMicroseconds);
    return { transport: new BatchedUdpTransport(options, addon, segmentOffloadWanted(env)), path: { kind: "batched", coalescingMicroseconds } };
  } catch (err) {
    return dgram(err instanceof Error ? err.message : String(err));
  }
}
