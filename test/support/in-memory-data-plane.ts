import * as E from "fp-ts/lib/Either.js";
import { DEFAULT_DATA_PLANE_OPTIONS, SwitchDataPlane, type DataPlaneOptions } from "../../src/application/dataplane/switch-data-plane.js";
import { NotificationHub } from "../../src/application/notification-hub.js";
import type { BpfPrograms } from "../../src/application/ports/bpf-compiler.js";
import { FilterPrograms } from "../../src/application/filter-programs.js";
import { InlineBpfCompiler } from "../../src/adapters/threads/bpf-compiler/inline-bpf-compiler.js";
import type { CaptureSink, CaptureWriter } from "../../src/application/ports/capture-sink.js";
import type { ComputeNotification } from "../../src/application/ports/notifications.js";
import type { Clock, Logger } from "../../src/application/ports/system.js";
import type { RandomSourceFactory, Timers } from "../../src/application/ports/timers.js";
import type { UdpEndpoint, UdpEndpointOptions, UdpTransport } from "../../src/application/ports/udp-transport.js";
import type { HostDeviceOptions, HostDeviceProblem, HostDevices } from "../../src/application/ports/host-devices.js";
import { type RandomSource, SeededRandom } from "../../src/domain/filters/random.js";
import type { PortCounters, PortCountersSnapshot } from "../../src/domain/switching/port-counters.js";
import type { TraceBook } from "../../src/application/ports/trace-store.js";

/**
 * The real SwitchDataPlane without sockets, files or wall-clock time: an in-memory UDP transport,
 * an in-memory capture sink, a manual clock with its timers, scripted or seeded randomness and a
 * recording logger. Everything runs synchronously: a frame the test injects has gone through the
 * whole path (filters, switch, filters, socket) when `fromPeer` returns, unless a delay holds it.
 */

/** One NIO's socket, in memory: the test injects what the peer sends and reads what was sent to it. */
export class InMemoryEndpoint implements UdpEndpoint {
  /** What the data plane sent to the peer (copies), in order. */
  readonly sent: Uint8Array[] = [];
  /** The clock's time of each send (same index as `sent`); NaN without a clock. */
  readonly sentAtMs: number[] = [];
  closed = false;
  /** When set, every send throws it (a socket that broke under the data plane). */
  sendThrows: Error | undefined;
  constructor(
    readonly options: UdpEndpointOptions,
    private readonly clock: Clock | undefined,
  ) {}
  get lport(): number {
    return this.options.lport;
  }
  send(frame: Uint8Array): void {
    if (this.closed) return;
    if (this.sendThrows !== undefined) throw this.sendThrows;
    this.sent.push(Uint8Array.from(frame));
    this.sentAtMs.push(this.clock?.nowMs() ?? Number.NaN);
  }
  async close(): Promise<void> {
    this.closed = true;
  }
  /** A datagram from the peer (a closed socket receives nothing). */
  fromPeer(frame: Uint8Array): void {
    if (!this.closed) this.options.onFrame(frame);
  }
  /** The socket reports a failure (ICMP port unreachable, say). */
  fail(reason: string): void {
    this.options.onError?.(reason);
  }
}

/**
 * UDP sockets in memory, keyed by local port. A local port can be refused (as a port another
 * program holds would be), and one that is still open cannot be opened again (EADDRINUSE).
 */
export class InMemoryUdpTransport implements UdpTransport {
  /** The latest endpoint opened on each local port (closed ones stay, marked closed). */
  readonly endpoints = new Map<number, InMemoryEndpoint>();
  /** Every local port `open` was asked for, in order, refused or not. */
  readonly attempts: number[] = [];
  private readonly refused = new Map<number, string>();

  constructor(private readonly clock?: Clock) {}

  /** From now on, opening `lport` fails with `reason`. */
  refuse(lport: number, reason = `bind EADDRINUSE 0.0.0.0:${lport}`): void {
    this.refused.set(lport, reason);
  }

  async open(options: UdpEndpointOptions): Promise<E.Either<string, UdpEndpoint>> {
    this.attempts.push(options.lport);
    const refusal = this.refused.get(options.lport);
    if (refusal !== undefined) return E.left(refusal);
    if (this.endpoints.get(options.lport)?.closed === false) return E.left(`bind EADDRINUSE 0.0.0.0:${options.lport}`);
    const endpoint = new InMemoryEndpoint(options, this.clock);
    this.endpoints.set(options.lport, endpoint);
    return E.right(endpoint);
  }

  /** The endpoint on `lport` (the latest one, open or closed); throws if none was ever opened. */
  at(lport: number): InMemoryEndpoint {
    const e = this.endpoints.get(lport);
    if (e === undefined) throw new Error(`no endpoint on lport ${lport}`);
    return e;
  }

  /** The local ports with an open endpoint, ascending. */
  openLports(): number[] {
    return [...this.endpoints.values()]
      .filter((e) => !e.closed)
      .map((e) => e.lport)
      .sort((a, b) => a - b);
  }
}

/** One TAP device or host interface, in memory: the test injects what comes in on it and reads what was written to it. */
export class InMemoryDevice implements UdpEndpoint {
  readonly sent: Uint8Array[] = [];
  closed = false;
  constructor(readonly options: HostDeviceOptions) {}
  send(frame: Uint8Array): void {
    if (!this.closed) this.sent.push(Uint8Array.from(frame));
  }
  async close(): Promise<void> {
    this.closed = true;
  }
  /** A frame that came in on the device. */
  fromWire(frame: Uint8Array): void {
    if (!this.closed) this.options.onFrame(frame);
  }
  fail(reason: string): void {
    this.options.onError?.(reason);
  }
}

/** Host devices in memory, by name: one can be refused (as a kernel would refuse it), one open cannot be opened twice. */
export class InMemoryHostDevices implements HostDevices {
  readonly devices = new Map<string, InMemoryDevice>();
  private readonly refused = new Map<string, HostDeviceProblem>();

  refuse(device: string, problem: HostDeviceProblem): void {
    this.refused.set(device, problem);
  }

  async open(options: HostDeviceOptions): Promise<E.Either<HostDeviceProblem, UdpEndpoint>> {
    const refusal = this.refused.get(options.device);
    if (refusal !== undefined) return E.left(refusal);
    if (this.devices.get(options.device)?.closed === false) return E.left({ problem: "busy" });
    const device = new InMemoryDevice(options);
    this.devices.set(options.device, device);
    return E.right(device);
  }

  at(device: string): InMemoryDevice {
    const d = this.devices.get(device);
    if (d === undefined) throw new Error(`no device ${device} was opened`);
    return d;
  }
}

/** One captured frame: a copy of its bytes and the timestamp the data plane gave it. */
export interface CapturedFrame {
  readonly frame: Uint8Array;
  readonly timestampMs: number;
}

export class InMemoryCaptureWriter implements CaptureWriter {
  readonly frames: CapturedFrame[] = [];
  closed = false;
  constructor(
    readonly path: string,
    private readonly onFailure: ((reason: string) => void) | undefined,
  ) {}
  write(frame: Uint8Array, timestampMs: number): void {
    if (!this.closed) this.frames.push({ frame: Uint8Array.from(frame), timestampMs });
  }
  async close(): Promise<void> {
    this.closed = true;
  }
  /** The disk gave up (ENOSPC, file system gone). */
  fail(reason: string): void {
    this.onFailure?.(reason);
  }
}

/** Capture files in memory: every writer opened, in order; a path can be refused. */
export class InMemoryCaptureSink implements CaptureSink {
  readonly writers: InMemoryCaptureWriter[] = [];
  private readonly refused = new Map<string, string>();
  private held: { opened: Promise<void>; release: () => void } | undefined;

  refuse(filePath: string, reason = `EACCES: permission denied, open '${filePath}'`): void {
    this.refused.set(filePath, reason);
  }

  /** From now on, every open waits (its file being opened, as a slow disk keeps it) until `release`. */
  hold(): void {
    let release = (): void => undefined;
    const opened = new Promise<void>((r) => (release = r));
    this.held = { opened, release };
  }

  /** The opens waiting since `hold` go on (and later ones no longer wait). */
  release(): void {
    this.held?.release();
    this.held = undefined;
  }

  async open(filePath: string, onFailure?: (reason: string) => void): Promise<E.Either<string, CaptureWriter>> {
    if (this.held !== undefined) await this.held.opened;
    const refusal = this.refused.get(filePath);
    if (refusal !== undefined) return E.left(refusal);
    const writer = new InMemoryCaptureWriter(filePath, onFailure);
    this.writers.push(writer);
    return E.right(writer);
  }

  /** The writer of the latest capture to `filePath`; throws if there is none. */
  writerOf(filePath: string): InMemoryCaptureWriter {
    const w = this.writers.filter((x) => x.path === filePath).at(-1);
    if (w === undefined) throw new Error(`no capture to ${filePath}`);
    return w;
  }
}

/**
 * Time that moves only when the test says so, with the timers that go with it: `advance` fires the
 * timers that fall due, in order of their time (ties in the order they were set), each with the
 * clock at its time. A timer of less than 1 ms runs after 1 ms, as Node's do. `earlyByMs` (< 1)
 * makes every timer fire that much before its time, as Node's can when armed late in an event-loop
 * turn.
 */
export class ManualTime implements Clock, Timers {
  now: number;
  private pending: { at: number; callback: () => void; handle: number }[] = [];
  private deferred: (() => void)[] = [];
  private nextHandle = 1;

  constructor(
    startMs = 1_000_000,
    private readonly earlyByMs = 0,
  ) {
    this.now = startMs;
  }

  nowMs(): number {
    return this.now;
  }
  setTimeout(callback: () => void, ms: number): unknown {
    const handle = this.nextHandle++;
    this.pending.push({ at: this.now + Math.max(1, ms) - this.earlyByMs, callback, handle });
    return handle;
  }
  clearTimeout(handle: unknown): void {
    this.pending = this.pending.filter((t) => t.handle !== handle);
  }
  /** Deferred callbacks (Timers.defer) run, in order, at `runDeferred` and before any timer `advance` fires. */
  defer(callback: () => void): void {
    this.deferred.push(callback);
  }
  get deferredWaiting(): number {
    return this.deferred.length;
  }
  /** Runs the oldest deferred callback (one turn of the event loop's check phase); false if none waited. */
  runOneDeferred(): boolean {
    const next = this.deferred.shift();
    next?.();
    return next !== undefined;
  }
  /** Runs the deferred callbacks, and those they defer in turn, until none is left. */
  runDeferred(): void {
    for (let next = this.deferred.shift(); next !== undefined; next = this.deferred.shift()) next();
  }
  get timersWaiting(): number {
    return this.pending.length;
  }
  advance(ms: number): void {
    this.advanceTo(this.now + ms);
  }
  advanceTo(until: number): void {
    this.runDeferred();
    for (;;) {
      this.pending.sort((a, b) => a.at - b.at || a.handle - b.handle);
      const next = this.pending[0];
      if (next === undefined || next.at > until) break;
      this.pending.shift();
      this.now = Math.max(this.now, next.at);
      next.callback();
    }
    this.now = Math.max(this.now, until);
  }
}

/** Every filter chain gets a source that always answers `value`. */
export function constantRandomness(value: number): RandomSourceFactory {
  return { create: () => ({ next: () => value }) };
}

/** The n-th filter chain built (0, 1, ...) gets `new SeededRandom(seed + n)`: reproducible runs. */
export function seededRandomness(seed: number): RandomSourceFactory {
  let n = 0;
  return { create: () => new SeededRandom(seed + n++) };
}

/**
 * Every filter chain gets its own copy of the script: its n-th draw answers values[n]. A chain that
 * draws more than the script holds throws, so a test cannot go on with randomness it did not choose.
 */
export function scriptedRandomness(values: readonly number[]): RandomSourceFactory {
  return {
    create: (): RandomSource => {
      let i = 0;
      return {
        next: () => {
          if (i >= values.length) throw new Error(`scripted randomness: draw ${i + 1} asked, only ${values.length} scripted`);
          return values[i++] as number;
        },
      };
    },
  };
}

export class RecordingLogger implements Logger {
  readonly lines: { level: string; msg: string; fields: Record<string, unknown> | undefined }[] = [];
  debug(msg: string, fields?: Record<string, unknown>): void {
    this.lines.push({ level: "debug", msg, fields });
  }
  info(msg: string, fields?: Record<string, unknown>): void {
    this.lines.push({ level: "info", msg, fields });
  }
  warn(msg: string, fields?: Record<string, unknown>): void {
    this.lines.push({ level: "warn", msg, fields });
  }
  error(msg: string, fields?: Record<string, unknown>): void {
    this.lines.push({ level: "error", msg, fields });
  }
}

export const TEST_DATA_PLANE_OPTIONS: DataPlaneOptions = { ...DEFAULT_DATA_PLANE_OPTIONS, macAgingMs: 300_000, macTableCapacity: 64 };

export interface InMemoryDataPlaneParts {
  readonly randomness?: RandomSourceFactory;
  /** netemu's own pcap-filter compiler, on the calling thread, unless given. */
  readonly programs?: BpfPrograms;
  readonly options?: DataPlaneOptions;
  readonly time?: ManualTime;
  readonly devices?: InMemoryHostDevices;
  /** Where the filters' trace names are looked up (ADR 0103); none unless given. */
  readonly traces?: TraceBook;
}

export interface InMemoryDataPlane {
  readonly devices: InMemoryHostDevices;
  readonly dp: SwitchDataPlane;
  readonly transport: InMemoryUdpTransport;
  readonly sink: InMemoryCaptureSink;
  readonly time: ManualTime;
  readonly logger: RecordingLogger;
  readonly hub: NotificationHub;
  /** Every notification the data plane published, in order. */
  readonly told: ComputeNotification[];
}

/** The real SwitchDataPlane on in-memory parts (randomness 0.5 unless given). */
export function inMemoryDataPlane(parts: InMemoryDataPlaneParts = {}): InMemoryDataPlane {
  const time = parts.time ?? new ManualTime();
  const transport = new InMemoryUdpTransport(time);
  const devices = parts.devices ?? new InMemoryHostDevices();
  const sink = new InMemoryCaptureSink();
  const logger = new RecordingLogger();
  const hub = new NotificationHub();
  const told: ComputeNotification[] = [];
  hub.subscribe((n) => told.push(n));
  const dp = new SwitchDataPlane(
    transport,
    sink,
    time,
    time,
    parts.randomness ?? constantRandomness(0.5),
    parts.programs ?? new FilterPrograms(new InlineBpfCompiler()),
    logger,
    parts.options ?? TEST_DATA_PLANE_OPTIONS,
    hub,
    devices,
    parts.traces,
  );
  return { dp, transport, devices, sink, time, logger, hub, told };
}

/**
 * White-box: the live fabric counters of every port of a node in the real SwitchDataPlane
 * (framesForwarded, framesOffered and the ingress / egress split, which `dp.counters` does not
 * show). Fails loudly if the data plane's shape changed.
 */
export function liveCounters(dp: SwitchDataPlane, nodeId: string): Map<number, PortCountersSnapshot> {
  const inside = dp as unknown as {
    nodes?: Map<string, { live: { fabric: { counters(port: number): PortCounters | undefined } }; ports: Map<number, unknown> }>;
  };
  if (!(inside.nodes instanceof Map)) throw new Error("SwitchDataPlane has no nodes map any more: update test/support/in-memory-data-plane.ts");
  const out = new Map<number, PortCountersSnapshot>();
  const live = inside.nodes.get(nodeId);
  if (live === undefined) return out;
  for (const port of live.ports.keys()) {
    const c = live.live.fabric.counters(port);
    if (c !== undefined) out.set(port, c.snapshot());
  }
  return out;
}
