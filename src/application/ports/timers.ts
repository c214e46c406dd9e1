import type { RandomSource } from "../../domain/filters/random.js";

/** Timers and randomness for the data plane, as ports so tests can drive them. */
export interface Timers {
  setTimeout(callback: () => void, ms: number): unknown;
  clearTimeout(handle: unknown): void;
  /**
   * Runs `callback` once the I/O already pending on this thread has been handled (`setImmediate`).
   * Optional, so that an embedder's own Timers keeps working: without it, `setTimeout(callback, 0)`,
   * which waits a millisecond more.
   */
  defer?(callback: () => void): void;
}

export interface RandomSourceFactory {
  /** A fresh source for one filter chain. */
  create(): RandomSource;
}
