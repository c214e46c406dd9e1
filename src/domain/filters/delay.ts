import { type RandomSource, uniformInt } from "./random.js";

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
}

/** Functional form: the departure for a frame given the direction's previous departure. */
export function nextDeparture(previousDepartureMs: number, arrivalMs: number, delayMs: number): number {
  return Math.max(arrivalMs + delayMs, previousDepartureMs);
}
