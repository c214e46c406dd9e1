import { type RandomSource, normalQuantile, uniformInt } from "./random.js";

/**
 * One frame's delay for `delay L J`: L plus a uniform integer jitter in [−J, +J] ms, never below 0.
 * With J = 0 no random number is drawn.
 */
export function frameDelayMs(latencyMs: number, jitterMs: number, random: RandomSource): number {
  if (jitterMs <= 0) return Math.max(0, latencyMs);
  return Math.max(0, latencyMs + uniformInt(random, -jitterMs, jitterMs));
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
 * (by its quantile function). Pareto: netem's, a Pareto of shape 3 scaled to mean 0 and standard deviation 1 (heavy
 * tail to the late side). Fractional milliseconds are kept.
 */
export function distributedDelayMs(latencyMs: number, jitterMs: number, distribution: "normal" | "pareto", random: RandomSource): number {
  if (jitterMs <= 0) return Math.max(0, latencyMs);
  return Math.max(0, latencyMs + jitterMs * (distribution === "normal" ? standardNormal(random) : standardPareto(random)));
}

/** One uniform draw per variate (inverse transform), so that a correlated source correlates the delays. */
function standardNormal(random: RandomSource): number {
  return normalQuantile(random.next());
}

/** Pareto(shape 3, scale 1) has mean 1.5 and standard deviation √3 / 2. */
const PARETO_SHAPE = 3;
const PARETO_MEAN = 1.5;
const PARETO_SD = Math.sqrt(3) / 2;

function standardPareto(random: RandomSource): number {
  const x = 1 / Math.pow(1 - random.next(), 1 / PARETO_SHAPE);
  return (x - PARETO_MEAN) / PARETO_SD;
}
