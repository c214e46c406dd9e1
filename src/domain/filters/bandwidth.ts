/** The queue bound when `bandwidth` gives only a rate (tbf's usual latency). */
export const DEFAULT_QUEUE_MS = 50;

/**
 * A rate limit for ONE direction of a link end, as a transmitter of `rateKbps` with a queue in front
 * of it: a frame starts when the frames before it are sent, takes (its bytes × 8) / rate to send, and
 * is dropped when it would wait in the queue longer than `queueMs`. The rate counts whole Ethernet
 * frames as they cross the UDP tunnel (header and payload; no preamble, FCS or gap, which the tunnel
 * does not carry). Pure: the caller gives the time.
 */
export class Shaper {
  /** When the transmitter is free again (same clock as `nowMs`). */
  private freeAt = Number.NEGATIVE_INFINITY;
  /**
   * How long the last admitted frame waits in the queue before its transmission starts (its sojourn,
   * `start − now`), in ms: a field, not an answer, so that admitting a frame allocates nothing.
   */
  lastWaitMs = 0;

  constructor(
    private readonly rateKbps: number,
    private readonly queueMs: number,
  ) {}

  /**
   * Goes on from where `previous` (the transmitter this one replaces) stands: frames it admitted are
   * still being sent, so the next frame starts after them, at this transmitter's rate (ADR 0055).
   */
  resumeFrom(previous: Shaper | undefined): this {
    if (previous !== undefined) this.freeAt = previous.freeAt;
    return this;
  }

  /** When the transmitter is free again (−Infinity when idle since it started): carried when a node moves (ADR 0069). */
  get freeAtMs(): number {
    return this.freeAt;
  }
  set freeAtMs(at: number) {
    // −Infinity is an idle transmitter; +Infinity or NaN would never be free: left as it is.
    if (Number.isFinite(at) || at === Number.NEGATIVE_INFINITY) this.freeAt = at;
  }

  /** How long from now until the frame's last bit has left, in ms; undefined when the queue is full (dropped). */
  admit(frameBytes: number, nowMs: number): number | undefined {
    const start = Math.max(nowMs, this.freeAt);
    if (start - nowMs > this.queueMs) return undefined;
    this.lastWaitMs = start - nowMs;
    // kbit/s is bits per ms.
    this.freeAt = start + (frameBytes * 8) / this.rateKbps;
    return this.freeAt - nowMs;
  }
}
