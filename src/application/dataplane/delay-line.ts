import { FrameChunks } from "./frame-chunks.js";
import { DepartureScheduler } from "../../domain/filters/delay.js";
import { HoldBudget } from "../../domain/filters/hold-limit.js";
import type { Clock } from "../ports/system.js";
import type { Timers } from "../ports/timers.js";

/** What a delay line held when its node moved: frames with their departures (ADR 0069). */
export interface HeldFrames {
  readonly frames: readonly { readonly frame: Uint8Array; readonly departureMs: number }[];
  readonly lastDepartureMs: number;
  /** Whether the line woke to the µs (ADR 0101); absent is false. */
  readonly precise?: boolean;
}

const EMPTY = new Uint8Array(0);

/** No bound: a line made without a budget (a test's, or one whose bounds are kept elsewhere). */
const UNBOUNDED = new HoldBudget({ frames: Number.POSITIVE_INFINITY, bytes: Number.POSITIVE_INFINITY });

/**
 * How long before a departure a precise line's timer wakes it (ms): Node's timers count whole ms from the
 * loop's cached time, so they fire up to a ms early or late; the rest of the wait is spent in `defer`
 * turns of the event loop, each a few µs, so a frame leaves within a turn of its departure (ADR 0101).
 */
const PRECISE_WAKE_AHEAD_MS = 1;

/** The timer handle of a line waiting in `defer` turns (they cannot be cancelled: a closed line ignores them). */
const DEFERRED = Symbol("deferred");

/**
 * Holds the frames of one direction of one port until their departure time, then hands them on in
 * order. One timer for the whole line (the head's departure), not one per frame: at 5,000 frames/s
 * with 50 ms of delay about 250 frames wait, each costing an array slot. What it holds counts
 * against a HoldBudget (the port's, within its thread's): a frame beyond it is refused (ADR 0072).
 */
export class DelayLine {
  private readonly scheduler = new DepartureScheduler();
  private readonly frames: Uint8Array[] = [];
  private readonly departures: number[] = [];
  private head = 0;
  private timer: unknown = undefined;
  private closed = false;
  /**
   * Wakes to the µs (ADR 0101): set by the frames pushed (a delay with a fraction of a ms asks for it), so
   * a line whose delays are whole ms keeps the timer's ms and never spins the event loop.
   */
  private precise = false;
  /** The time of the last turn a precise line spun in: a clock that has not moved since spins no more. */
  private spunAt = Number.NaN;
  /** Where the frames that are views into a buffer not their own are copied to. */
  private readonly chunks = new FrameChunks();

  constructor(
    private readonly clock: Clock,
    private readonly timers: Timers,
    private readonly deliver: (frame: Uint8Array) => void,
    /** Told when delivering a frame threw: that frame is lost, the ones behind it still leave. */
    private readonly onFault: (err: unknown) => void = () => undefined,
    private readonly budget: HoldBudget = UNBOUNDED,
  ) {}

  get pending(): number {
    return this.frames.length - this.head;
  }

  /**
   * Holds the frame for `delayMs` (and behind the frames before it); false when it is not held: the
   * line is closed, or holding it would pass the budget's bound (the caller counts the drop). A
   * refused frame takes no place in the order: the departures of the ones after it are not moved.
   */
  push(frame: Uint8Array, delayMs: number, precise = false): boolean {
    if (this.closed || !this.budget.take(frame.byteLength)) return false;
    this.precise = precise;
    const now = this.clock.nowMs();
    const departure = this.scheduler.departure(now, delayMs);
    this.frames.push(this.own(frame));
    this.departures.push(departure);
    if (this.timer === undefined) this.arm(now);
    return true;
  }

  /**
   * The frame itself when it owns its buffer (node:dgram's do). Frames that are views into a buffer not their own (the batched path's receive batch, up to 64
   * datagrams) are copied into chunks of the line's own, one after the other: a held view would keep its
   * whole batch alive, and the bytes held would be many times what the bound counts (ADR 0072). A line
   * lets its frames go in order, so a chunk goes once its last frame has left: at most the chunk being
   * filled and the one being emptied hold bytes that are not held frames. One allocation per chunk, not
   * one per frame (an ArrayBuffer of its own costs ~1 µs for a 1,400 B frame, a copy into a chunk ~0.1).
   */
  private own(frame: Uint8Array): Uint8Array {
    if (frame.byteOffset === 0 && frame.byteLength === frame.buffer.byteLength) return frame;
    return this.chunks.copy(frame);
  }

  private arm(now: number): void {
    const next = this.departures[this.head];
    if (next === undefined) return;
    const wait = next - now;
    if (!this.precise) this.timer = this.timers.setTimeout(() => this.release(), Math.max(0, wait));
    else if (wait > PRECISE_WAKE_AHEAD_MS) this.timer = this.timers.setTimeout(() => this.release(), wait - PRECISE_WAKE_AHEAD_MS);
    else if (this.timers.defer !== undefined && now !== this.spunAt) {
      // A turn of the event loop, then look again. A turn that sees the time of the one before is a
      // clock that does not move by itself (a test's): the timer waits for it instead of spinning.
      this.spunAt = now;
      this.timer = DEFERRED;
      this.timers.defer(() => this.release());
    } else this.timer = this.timers.setTimeout(() => this.release(), Math.max(0, wait));
  }

  private release(): void {
    if (this.closed) return;
    this.timer = undefined;
    const now = this.clock.nowMs();
    // Never early: Node counts a timer from the event loop's cached time, so it can fire up to a
    // millisecond before a frame's departure; such a frame waits for the next timer (late by < 1 ms).
    while (this.head < this.frames.length && (this.departures[this.head] as number) <= now) {
      const frame = this.frames[this.head] as Uint8Array;
      this.frames[this.head] = EMPTY;
      this.head++;
      this.budget.give(frame.byteLength);
      // A throw out of a timer would end the process; out of this loop it would strand the rest.
      try {
        this.deliver(frame);
      } catch (err) {
        this.onFault(err);
      }
    }
    if (this.head === this.frames.length) {
      this.frames.length = 0;
      this.departures.length = 0;
      this.head = 0;
    } else if (this.head > 1024) {
      this.frames.splice(0, this.head);
      this.departures.splice(0, this.head);
      this.head = 0;
    }
    if (this.pending > 0) this.arm(now);
  }

  /**
   * Stops the line and gives what it still holds, each frame with its departure time (Clock's scale),
   * and the departure of the last frame scheduled: what the same line on another thread takes up
   * (ADR 0069). Frames are held in the line's own chunks (or their own buffers), never in a receive
   * batch: what crosses is what is held, and a chunk shared by several frames crosses once.
   */
  handOver(): HeldFrames {
    const frames: { frame: Uint8Array; departureMs: number }[] = [];
    for (let i = this.head; i < this.frames.length; i++) frames.push({ frame: this.frames[i] as Uint8Array, departureMs: this.departures[i] as number });
    const lastDepartureMs = this.scheduler.lastDeparture;
    const precise = this.precise;
    this.close();
    return precise ? { frames, lastDepartureMs, precise } : { frames, lastDepartureMs };
  }

  /**
   * Takes up what the same line held on another thread (before this one holds anything): each frame
   * leaves at its own time, in order. Answers the frames not taken up: beyond this thread's bounds
   * (the caller counts them as dropped), or all of them on a closed line: the length of each.
   */
  takeUp(held: HeldFrames): readonly number[] {
    if (this.closed) return held.frames.map(({ frame }) => frame.byteLength);
    const refused: number[] = [];
    // A time that is no time (+Infinity would hold the line for ever) is left out.
    const time = (ms: number): boolean => Number.isFinite(ms);
    if (time(held.lastDepartureMs)) this.scheduler.resumeAfter(held.lastDepartureMs);
    this.precise = held.precise === true;
    let last = Number.NEGATIVE_INFINITY;
    for (const { frame, departureMs } of held.frames) {
      if (!time(departureMs)) continue;
      if (!this.budget.take(frame.byteLength)) {
        refused.push(frame.byteLength);
        continue;
      }
      // Never out of order: a departure before the previous one leaves with it.
      last = Math.max(last, departureMs);
      this.frames.push(this.own(frame));
      this.departures.push(last);
    }
    if (this.timer === undefined && this.pending > 0) this.arm(this.clock.nowMs());
    return refused;
  }

  /**
   * Drops what is still waiting (the port is going away) and gives its room back to the budget;
   * answers how many frames that was. The frames are let go of at once, not when the line is.
   */
  close(): number {
    this.closed = true;
    if (this.timer !== undefined && this.timer !== DEFERRED) this.timers.clearTimeout(this.timer);
    this.timer = undefined;
    const dropped = this.pending;
    for (let i = this.head; i < this.frames.length; i++) this.budget.give((this.frames[i] as Uint8Array).byteLength);
    this.chunks.release();
    this.frames.length = 0;
    this.departures.length = 0;
    this.head = 0;
    return dropped;
  }
}
