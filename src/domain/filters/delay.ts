import { type RandomSource, normalQuantile, uniformInt } from "./random.js";

/**
 * One frame's delay for `delay L J`: L plus a uniform jitter in [−J, +J] ms, never below 0. A jitter in
 * whole ms is drawn in whole ms (GNS3's, uBridge's); one with a fraction of a ms in whole µs, its own
 * granularity (ADR 0101). With J = 0 no random number is drawn.
 */
export function frameDelayMs(latencyMs: number, jitterMs: number, random: RandomSource): number {
  if (jitterMs <= 0) return Math.max(0, latencyMs);
  if (Number.isInteger(jitterMs)) return Math.max(0, latencyMs + uniformInt(random, -jitterMs, jitterMs));
  const jitterUs = Math.round(jitterMs * 1000);
  return Math.max(0, latencyMs + uniformInt(random, -jitterUs, jitterUs) / 1000);
}

/**
 * Whether a delay asks for less than a millisecond's precision: a latency or jitter with a fraction of
 * a ms. Its frames are then held by a line that wakes to the µs (DelayLine's precise mode, ADR 0101);
 * a whole-ms delay keeps the timer's ms, which costs no spinning.
 */
export function isSubMillisecond(latencyMs: number, jitterMs: number): boolean {
  return !Number.isInteger(latencyMs) || !Number.isInteger(jitterMs);
}

/**
 * Departure times for ONE direction of a link end that keep frame order without head-of-line
 * blocking: departure = max(arrival + delay, previous departure). A frame never waits for the frames
 * before it beyond their own departure (unlike uBridge, where each delay adds to the next), and never
 * overtakes them. Use one scheduler per direction; the caller sets the timers.
 */
export class DepartureScheduler {
  private last = Number.NEGATIVE_INFINITY;

  /** The time (same clock as `arrivalMs`) at which the frame may leave. */
  departure(arrivalMs: number, delayMs: number): number {
    const at = Math.max(arrivalMs + delayMs, this.last);
    this.last = at;
    return at;
  }

  /** The departure of the last frame scheduled, or −Infinity. */
  get lastDeparture(): number {
    return this.last;
  }

  reset(): void {
    this.last = Number.NEGATIVE_INFINITY;
  }

  /** Goes on after a departure scheduled elsewhere (the same line on another thread: ADR 0069). */
  resumeAfter(lastDepartureMs: number): void {
    if (!Number.isNaN(lastDepartureMs)) this.last = lastDepartureMs;
  }
}

/** Functional form: the departure for a frame given the direction's previous departure. */
export function nextDeparture(previousDepartureMs: number, arrivalMs: number, delayMs: number): number {
  return Math.max(arrivalMs + delayMs, previousDepartureMs);
}

/**
 * One frame's delay when the jitter follows a distribution other than GNS3's uniform one, as netem
 * draws it: the latency plus `jitterMs` × a standard variate, never below 0. Normal: a standard normal
 * (by its quantile function). Pareto: netem's, a Pareto of shape 3 with its tail cut at
 * PARETO_MAX_DEVIATIONS, scaled to mean 0 and standard deviation 1 (heavy tail to the late side, never
 * later than latency + 4 × jitter: ADR 0072). Fractional milliseconds are kept.
 */
export function distributedDelayMs(latencyMs: number, jitterMs: number, distribution: "normal" | "pareto", random: RandomSource): number {
  if (jitterMs <= 0) return Math.max(0, latencyMs);
  return Math.max(0, latencyMs + jitterMs * (distribution === "normal" ? standardNormal(random) : standardPareto(random)));
}

/** One uniform draw per variate (inverse transform), so that a correlated source correlates the delays. */
function standardNormal(random: RandomSource): number {
  return normalQuantile(random.next());
}

/**
 * The latest a pareto delay comes, in jitters after the latency. Pareto(3) has no fourth moment: one
 * draw in 10⁶ is 100 deviations late, and a line that keeps order holds every frame behind it that
 * long. netem's table is cut the same way: its values are 16-bit, at most 4 × its scale.
 */
export const PARETO_MAX_DEVIATIONS = 4;

const PARETO_SHAPE = 3;

/** Mean and standard deviation of Pareto(shape 3, scale 1) with every value above `cap` taken as `cap`. */
function cutParetoMoments(cap: number): { mean: number; sd: number } {
  // E[min(X, c)] = 1.5 − 1/(2c²); E[min(X, c)²] = 3 − 2/c (shape 3, scale 1).
  const mean = 1.5 - 1 / (2 * cap * cap);
  return { mean, sd: Math.sqrt(3 - 2 / cap - mean * mean) };
}

/**
 * The cut, on Pareto(3)'s own scale, at which the standardised cut distribution reaches exactly
 * PARETO_MAX_DEVIATIONS (bisection: the standardised cap grows with the cut).
 */
function paretoCut(deviations: number): number {
  let low = 1.5;
  let high = 1e6;
  for (let i = 0; i < 200; i++) {
    const mid = (low + high) / 2;
    const { mean, sd } = cutParetoMoments(mid);
    if ((mid - mean) / sd < deviations) low = mid;
    else high = mid;
  }
  return low;
}

const PARETO_CUT = paretoCut(PARETO_MAX_DEVIATIONS);
const PARETO_MOMENTS = cutParetoMoments(PARETO_CUT);

/** The earliest a pareto delay comes, in jitters before the latency (about 0.82): the distribution's floor. */
export const PARETO_MIN_DEVIATIONS = (PARETO_MOMENTS.mean - 1) / PARETO_MOMENTS.sd;

function standardPareto(random: RandomSource): number {
  const x = Math.min(PARETO_CUT, 1 / Math.pow(1 - random.next(), 1 / PARETO_SHAPE));
  // Never past the cap by a rounding.
  return Math.min(PARETO_MAX_DEVIATIONS, (x - PARETO_MOMENTS.mean) / PARETO_MOMENTS.sd);
}
