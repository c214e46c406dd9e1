import { FrameChunks } from "./frame-chunks.js";
import type { QueueDiscipline, QueueDropReason, QueueObserver, QueuedFrame } from "../../domain/queueing/codel.js";
import { type QueueDisciplineSpec, makeQueueDiscipline, sameQueueDiscipline } from "../../domain/queueing/queue-discipline.js";
import { HoldBudget } from "../../domain/filters/hold-limit.js";
import type { QueueStatistics } from "../../domain/queueing/queue-statistics.js";
import type { Clock } from "../ports/system.js";
import type { Timers } from "../ports/timers.js";

type QueueingSpec = Exclude<QueueDisciplineSpec, { kind: "tail_drop" }>;

export type { QueueStatistics };

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
      codelDrops: this.codelDrops,
      overlimitDrops: this.overlimitDrops,
      ecnMarks: this.ecnMarks,
      sentFrames: this.sentFrames,
      sojournSumMs: this.sojournSumMs,
      sojournMaxMs: this.sojournMaxMs,
      lastSojournMs: this.lastSojournMs,
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
