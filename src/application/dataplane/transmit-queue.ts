import { FrameChunks } from "./frame-chunks.js";
import { CodelQueueDiscipline, type CodelControllerState, type QueueDiscipline, type QueueDropReason, type QueueObserver, type QueuedFrame } from "../../domain/queueing/codel.js";
import { type QueueDisciplineSpec, makeQueueDiscipline, sameQueueDiscipline } from "../../domain/queueing/queue-discipline.js";
import { HoldBudget } from "../../domain/filters/hold-limit.js";
import type { QueueStatistics } from "../../domain/queueing/queue-statistics.js";
import type { Clock } from "../ports/system.js";
import type { Timers } from "../ports/timers.js";

type QueueingSpec = Exclude<QueueDisciplineSpec, { kind: "tail_drop" }>;

export type { QueueStatistics };

/**
 * What a port direction's queue held when its node moved to another thread (ADR 0069, 0100), as plain
 * data: the frames waiting, oldest turn first, each with its enqueue time; the frame being sent and
 * when its last bit leaves; when the transmitter is free; CoDel's state (plain codel: fq_codel's
 * per-flow state restarts); and the queue's counters. Times on the Clock's scale.
 */
export interface HeldQueue {
  readonly frames: readonly QueuedFrame[];
  readonly inFlight?: { readonly frame: Uint8Array; readonly doneMs: number };
  readonly freeAtMs: number;
  readonly rateKbps: number;
  readonly codel?: CodelControllerState;
  readonly counters: QueueCounters;
}

/** What a queue counted: its statistics beyond the discipline and the backlog. */
type QueueCounters = Omit<QueueStatistics, "discipline" | "backlogFrames" | "backlogBytes">;

/** The frames a queue let go to a tail-drop transmitter, each with when its last bit leaves (ADR 0100). */
interface ReleasedBacklog {
  readonly frames: readonly { readonly frame: Uint8Array; readonly doneMs: number }[];
  /** When the last of them has left: the tail-drop transmitter is free from then. */
  readonly freeAtMs: number;
}

/** No bound (a test's queue): the discipline's own limits hold. */
const UNBOUNDED = new HoldBudget({ frames: Number.POSITIVE_INFINITY, bytes: Number.POSITIVE_INFINITY });

/**
 * The bandwidth stage's transmitter with a queue that decides at dequeue (CoDel, FQ-CoDel: ADR 0100):
 * frames wait in the discipline's queue, the transmitter takes the next one when it has sent the one
 * before (a frame of B bytes takes B × 8 / rate), and a frame is handed on when its last bit has left,
 * as the tail-drop Shaper's delay says. One timer for the transmitter, as a DelayLine has one for its
 * line; when a timer fires late, the frames whose turn passed go out at once and the transmitter goes
 * on from when it was really free, so the rate stays exact.
 */
export class TransmitQueue implements QueueObserver {
  private discipline: (QueueDiscipline & { adopt(entry: QueuedFrame): void }) | undefined;
  private spec: QueueingSpec | undefined;
  private rateKbps = 1;
  /** The frame being sent and when its last bit leaves. */
  private inFlight: Uint8Array | undefined;
  private doneAt = Number.NEGATIVE_INFINITY;
  private timer: unknown = undefined;
  private closed = false;
  private codelDrops = 0;
  private overlimitDrops = 0;
  private ecnMarks = 0;
  private sentFrames = 0;
  private sojournSumMs = 0;
  private sojournMaxMs = 0;
  private lastSojournMs = 0;
  /** Every frame is copied (the queue may mark it): fq_codel lets frames go out of arrival order, so a chunk may live a little longer than in a DelayLine. */
  private readonly chunks = new FrameChunks();

  constructor(
    private readonly clock: Clock,
    private readonly timers: Timers,
    /** A frame whose last bit has left the transmitter. */
    private readonly deliver: (frame: Uint8Array) => void,
    /** A frame the queue dropped (bytes, and why: codel, the discipline's limit, or the port's hold bound). */
    private readonly drop: (bytes: number, reason: "codel" | "bandwidth" | "delay_limit") => void,
    /** Told when delivering a frame threw: that frame is lost, the ones behind it still leave. */
    private readonly onFault: (err: unknown) => void = () => undefined,
    private readonly budget: HoldBudget = UNBOUNDED,
    /** The flow hash's perturbation. */
    private readonly seed = 0,
    /** Told each frame's wait before its transmission started, as the port's measured queue delay counts it (ADR 0097). */
    private readonly waited: (waitMs: number, nowMs: number) => void = () => undefined,
  ) {}

  /**
   * Queues a frame (a copy: the queue may mark it, and the caller's may be another port's too) for a
   * transmitter of `rateKbps` with `spec`'s discipline. A discipline that changed takes over the
   * frames the previous one held, each with its enqueue time (ADR 0055: a change keeps the queue).
   */
  offer(frame: Uint8Array, spec: QueueingSpec, rateKbps: number): void {
    if (this.closed) return;
    if (this.spec === undefined || !sameQueueDiscipline(this.spec, spec)) this.switchTo(spec);
    this.rateKbps = rateKbps;
    if (!this.budget.take(frame.byteLength)) {
      this.drop(frame.byteLength, "delay_limit");
      return;
    }
    const now = this.clock.nowMs();
    (this.discipline as QueueDiscipline).enqueue(this.chunks.copy(frame), now);
    if (this.timer === undefined) this.transmitFrom(now);
  }

  private switchTo(spec: QueueingSpec): void {
    const held = this.discipline?.drain() ?? [];
    this.spec = spec;
    this.discipline = makeQueueDiscipline(spec, this, this.seed);
    for (const entry of held) this.discipline.adopt(entry);
  }

  /**
   * The transmitter is busy until `freeAtMs` (a tail-drop Shaper's backlog this queue comes after,
   * ADR 0100): the first frame queued starts then, not before. Nothing changes for a queue already
   * sending (its own backlog is ahead).
   */
  startAfter(freeAtMs: number): void {
    if (this.closed || this.timer !== undefined || !Number.isFinite(freeAtMs) || freeAtMs <= this.doneAt) return;
    this.doneAt = freeAtMs;
    const now = this.clock.nowMs();
    if (freeAtMs > now) this.timer = this.timers.setTimeout(() => this.sent(), freeAtMs - now);
  }

  /**
   * Lets what waits go to a tail-drop transmitter (the discipline switched to tail drop, ADR 0100):
   * the frame being sent leaves when it would have, the ones waiting one after the other from then,
   * in the order they would have left, at the rate they were queued for, none dropped (tail drop
   * admitted them). The queue is left idle and empty, its counters kept.
   */
  release(): ReleasedBacklog {
    if (this.timer !== undefined) this.timers.clearTimeout(this.timer);
    this.timer = undefined;
    const frames: { frame: Uint8Array; doneMs: number }[] = [];
    if (this.inFlight !== undefined) frames.push({ frame: this.inFlight, doneMs: this.doneAt });
    this.inFlight = undefined;
    let free = Math.max(this.clock.nowMs(), this.doneAt);
    for (const entry of this.discipline?.drain() ?? []) {
      this.budget.give(entry.frame.byteLength);
      free += (entry.frame.byteLength * 8) / this.rateKbps;
      frames.push({ frame: entry.frame, doneMs: free });
    }
    this.doneAt = frames.length === 0 ? this.doneAt : free;
    return { frames, freeAtMs: this.doneAt };
  }

  /** Stops the transmitter and gives what it holds and knows, as plain data (its node moves: ADR 0069). */
  handOver(): HeldQueue {
    const frames = this.discipline?.drain() ?? [];
    const inFlight = this.inFlight;
    const codel = this.discipline instanceof CodelQueueDiscipline ? this.discipline.controller.state() : undefined;
    const held: HeldQueue = {
      frames,
      ...(inFlight === undefined ? {} : { inFlight: { frame: inFlight, doneMs: this.doneAt } }),
      freeAtMs: this.doneAt,
      rateKbps: this.rateKbps,
      ...(codel === undefined ? {} : { codel }),
      counters: this.counters(),
    };
    for (const entry of frames) this.budget.give(entry.frame.byteLength);
    this.inFlight = undefined;
    this.close();
    return held;
  }

  /**
   * Takes up what the same queue held on another thread (before this one holds anything), under
   * `spec` (the discipline its chain runs here): the frame being sent leaves at its time, the others
   * keep their enqueue times and order, CoDel goes on from its state, the counters from theirs. A frame
   * beyond this thread's hold bound is dropped and counted (`delay_limit`), as a delay line's is.
   */
  takeUp(held: HeldQueue, spec: QueueingSpec): void {
    if (this.closed) {
      for (const entry of held.frames) this.drop(entry.frame.byteLength, "delay_limit");
      if (held.inFlight !== undefined) this.drop(held.inFlight.frame.byteLength, "delay_limit");
      return;
    }
    this.resumeCounters(held.counters);
    if (this.spec === undefined || !sameQueueDiscipline(this.spec, spec)) this.switchTo(spec);
    if (Number.isFinite(held.rateKbps) && held.rateKbps > 0) this.rateKbps = held.rateKbps;
    if (held.codel !== undefined && this.discipline instanceof CodelQueueDiscipline) this.discipline.controller.resume(held.codel);
    const discipline = this.discipline as QueueDiscipline & { adopt(entry: QueuedFrame): void };
    for (const { frame, enqueuedMs } of held.frames) {
      if (!Number.isFinite(enqueuedMs) || !this.budget.take(frame.byteLength)) {
        this.drop(frame.byteLength, "delay_limit");
        continue;
      }
      discipline.adopt({ frame: this.chunks.copy(frame), enqueuedMs });
    }
    const now = this.clock.nowMs();
    if (held.inFlight !== undefined && Number.isFinite(held.inFlight.doneMs)) {
      this.inFlight = this.chunks.copy(held.inFlight.frame);
      this.doneAt = held.inFlight.doneMs;
    } else if (Number.isFinite(held.freeAtMs)) this.doneAt = held.freeAtMs;
    if (this.timer !== undefined) return;
    if (this.inFlight !== undefined || this.doneAt > now) this.timer = this.timers.setTimeout(() => this.sent(), Math.max(0, this.doneAt - now));
    else if (discipline.length > 0) this.transmitFrom(now);
  }

  private counters(): QueueCounters {
    return {
      codelDrops: this.codelDrops,
      overlimitDrops: this.overlimitDrops,
      ecnMarks: this.ecnMarks,
      sentFrames: this.sentFrames,
      sojournSumMs: this.sojournSumMs,
      sojournMaxMs: this.sojournMaxMs,
      lastSojournMs: this.lastSojournMs,
    };
  }

  private resumeCounters(c: QueueCounters): void {
    const count = (v: unknown): v is number => Number.isSafeInteger(v) && (v as number) >= 0;
    const ms = (v: unknown): v is number => typeof v === "number" && Number.isFinite(v) && v >= 0;
    if (count(c.codelDrops)) this.codelDrops = c.codelDrops;
    if (count(c.overlimitDrops)) this.overlimitDrops = c.overlimitDrops;
    if (count(c.ecnMarks)) this.ecnMarks = c.ecnMarks;
    if (count(c.sentFrames)) this.sentFrames = c.sentFrames;
    if (ms(c.sojournSumMs)) this.sojournSumMs = c.sojournSumMs;
    if (ms(c.sojournMaxMs)) this.sojournMaxMs = c.sojournMaxMs;
    if (ms(c.lastSojournMs)) this.lastSojournMs = c.lastSojournMs;
  }

  /** Sends frames from `at` (when the transmitter was free) up to now, then waits for the one in flight. */
  private transmitFrom(at: number): void {
    const now = this.clock.nowMs();
    let free = at;
    for (;;) {
      const entry = this.discipline?.dequeue(free);
      if (entry === undefined) {
        this.inFlight = undefined;
        this.doneAt = free;
        return;
      }
      const bytes = entry.frame.byteLength;
      this.budget.give(bytes);
      const sojourn = free - entry.enqueuedMs;
      this.sentFrames++;
      this.sojournSumMs += sojourn;
      if (sojourn > this.sojournMaxMs) this.sojournMaxMs = sojourn;
      this.lastSojournMs = sojourn;
      this.waited(sojourn, now);
      // kbit/s is bits per ms.
      const done = free + (bytes * 8) / this.rateKbps;
      if (done > now) {
        this.inFlight = entry.frame;
        this.doneAt = done;
        this.timer = this.timers.setTimeout(() => this.sent(), done - now);
        return;
      }
      this.hand(entry.frame);
      free = done;
    }
  }

  private sent(): void {
    this.timer = undefined;
    const frame = this.inFlight;
    this.inFlight = undefined;
    // Never early: Node may fire a timer up to a ms before its time (see DelayLine).
    if (frame !== undefined && this.doneAt > this.clock.nowMs()) {
      this.inFlight = frame;
      this.timer = this.timers.setTimeout(() => this.sent(), Math.max(0, this.doneAt - this.clock.nowMs()));
      return;
    }
    if (frame !== undefined) this.hand(frame);
    if (!this.closed) this.transmitFrom(this.doneAt);
  }

  /** A throw out of a timer would end the process; out of this loop it would strand the rest. */
  private hand(frame: Uint8Array): void {
    try {
      this.deliver(frame);
    } catch (err) {
      this.onFault(err);
    }
  }

  dropped(entry: QueuedFrame, reason: QueueDropReason): void {
    if (reason === "codel") this.codelDrops++;
    else this.overlimitDrops++;
    // Every frame the discipline saw took its room in offer (or before a switch of discipline).
    this.budget.give(entry.frame.byteLength);
    this.drop(entry.frame.byteLength, reason === "codel" ? "codel" : "bandwidth");
  }

  marked(): void {
    this.ecnMarks++;
  }

  sojourn(): void {
    // Counted per frame sent (transmitFrom), not per frame CoDel looked at.
  }

  /** Frames waiting (not the one being sent). */
  get pending(): number {
    return this.discipline?.length ?? 0;
  }

  statistics(): QueueStatistics | undefined {
    if (this.spec === undefined) return undefined;
    return {
      discipline: this.spec.kind,
      backlogFrames: this.discipline?.length ?? 0,
      backlogBytes: this.discipline?.bytes ?? 0,
      ...this.counters(),
    };
  }

  /** Stops the transmitter and drops what waits (the port is going away); answers how many frames that was. */
  close(): number {
    this.closed = true;
    if (this.timer !== undefined) this.timers.clearTimeout(this.timer);
    this.timer = undefined;
    const held = this.discipline?.drain() ?? [];
    for (const entry of held) this.budget.give(entry.frame.byteLength);
    this.inFlight = undefined;
    this.chunks.release();
    return held.length;
  }
}
