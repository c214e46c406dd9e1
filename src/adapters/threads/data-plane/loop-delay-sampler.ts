import type { LoopDelay } from "../../../application/ports/data-plane.js";

/** What the sampler uses of `perf_hooks.monitorEventLoopDelay`'s histogram (nanoseconds). */
export interface DelayHistogram {
  enable(): boolean;
  disable(): boolean;
  reset(): void;
  readonly count: number;
  readonly min: number;
  readonly max: number;
  readonly mean: number;
  percentile(percentile: number): number;
}

/**
 * A data-plane worker's event-loop delay, sampled only while the worker carries frames (ADR 0113).
 * The histogram samples on a 10 ms timer: 100 wake-ups a second, which cost an idle worker more CPU
 * than everything else it does and measure nothing a frame waits for. So the sampling runs from a load
 * reading that saw frames move until one that saw none; an idle worker reads NaN (no sample).
 */
export class LoopDelaySampler {
  private sampling = false;

  constructor(private readonly histogram: DelayHistogram) {}

  /** Whether the histogram is sampling now. */
  get active(): boolean {
    return this.sampling;
  }

  /** The latest load reading: frames moved through this worker since the one before, or not. */
  carrying(framesMoved: boolean): void {
    if (framesMoved === this.sampling) return;
    this.sampling = framesMoved;
    if (framesMoved) this.histogram.enable();
    else this.histogram.disable();
  }

  /** The delay since the previous reading (NaN when no sample came meanwhile); the next one starts afresh. */
  reading(): Omit<LoopDelay, "worker"> {
    const h = this.histogram;
    const seconds = (ns: number): number => (h.count === 0 ? NaN : ns / 1e9);
    const reading = {
      minSeconds: seconds(h.min),
      meanSeconds: seconds(h.mean),
      p50Seconds: seconds(h.percentile(50)),
      p90Seconds: seconds(h.percentile(90)),
      p99Seconds: seconds(h.percentile(99)),
      maxSeconds: seconds(h.max),
    };
    h.reset();
    return reading;
  }
}
