/**
 * How long the recent-window maximum looks back: the window is the current second and the one before,
 * so a reading shows the largest wait of the last one to two seconds (netemu's page reads every second).
 */
export const QUEUE_DELAY_WINDOW_MS = 1000;

/**
 * What a direction's queue did, as plain data: the waits summed and counted since the port was attached
 * (the difference of two readings gives the mean over any interval) and the largest wait of the recent
 * window. Crosses the worker boundary and a node's move as it is (ADR 0097).
 */
export interface QueueDelayReading {
  /** The waits of every frame that went through the queue, summed, in ms. */
  readonly sumMs: number;
  /** Frames that went through the queue (a frame the queue had no room for is a drop, not counted here). */
  readonly frames: number;
  /** The largest wait in the last one to two seconds (0 when none), in ms. */
  readonly maxMs: number;
}

/** The state a record carries to another thread (ADR 0069): its reading and where its window stands. */
export interface QueueDelayState {
  readonly sumMs: number;
  readonly frames: number;
  /** The window's current second (epoch ms / QUEUE_DELAY_WINDOW_MS), its largest wait, and the second before's. */
  readonly second: number;
  readonly maxMs: number;
  readonly previousMaxMs: number;
}

export const NO_QUEUE_DELAY: QueueDelayReading = { sumMs: 0, frames: 0, maxMs: 0 };

const isWait = (n: unknown): n is number => typeof n === "number" && Number.isFinite(n) && n >= 0;

/**
 * The sojourn times of one direction of a port's queue: the time each frame waited in it before its
 * transmission started (the bandwidth stage's `start − now`; a queue discipline such as CoDel reports
 * its dequeue time minus its enqueue time here the same way). Recording a frame is a few additions and
 * comparisons: nothing is allocated, so it stays on the frame path. Time is the caller's (the Clock
 * port's epoch ms).
 */
export class QueueDelayRecord {
  private sumMs = 0;
  private frames = 0;
  private second = Number.NEGATIVE_INFINITY;
  private maxMs = 0;
  private previousMaxMs = 0;

  /** A frame that waited `waitMs` before its transmission started, recorded at `nowMs`. */
  record(waitMs: number, nowMs: number): void {
    this.sumMs += waitMs;
    this.frames++;
    const second = Math.floor(nowMs / QUEUE_DELAY_WINDOW_MS);
    if (second !== this.second) this.turn(second);
    if (waitMs > this.maxMs) this.maxMs = waitMs;
  }

  /** The sums, and the largest wait of the second of `nowMs` and the one before it. */
  reading(nowMs: number): QueueDelayReading {
    const second = Math.floor(nowMs / QUEUE_DELAY_WINDOW_MS);
    const maxMs = second === this.second ? Math.max(this.maxMs, this.previousMaxMs) : second === this.second + 1 ? this.maxMs : 0;
    return { sumMs: this.sumMs, frames: this.frames, maxMs };
  }

  state(): QueueDelayState {
    return { sumMs: this.sumMs, frames: this.frames, second: this.second, maxMs: this.maxMs, previousMaxMs: this.previousMaxMs };
  }

  /** Goes on from a record taken elsewhere; a value that is not one leaves the record as it started. */
  resume(from: QueueDelayState | undefined): void {
    if (typeof from !== "object" || from === null) return;
    if (!isWait(from.sumMs) || !Number.isSafeInteger(from.frames) || from.frames < 0) return;
    this.sumMs = from.sumMs;
    this.frames = from.frames;
    if (Number.isSafeInteger(from.second) && isWait(from.maxMs) && isWait(from.previousMaxMs)) {
      this.second = from.second;
      this.maxMs = from.maxMs;
      this.previousMaxMs = from.previousMaxMs;
    }
  }

  reset(): void {
    this.sumMs = 0;
    this.frames = 0;
    this.second = Number.NEGATIVE_INFINITY;
    this.maxMs = 0;
    this.previousMaxMs = 0;
  }

  /** A new second: the one that ends becomes the previous one, unless seconds without frames came between. */
  private turn(second: number): void {
    this.previousMaxMs = second === this.second + 1 ? this.maxMs : 0;
    this.maxMs = 0;
    this.second = second;
  }
}
