import { randomInt } from "node:crypto";
import { SeededRandom, type RandomSource } from "../../domain/filters/random.js";
import type { RandomSourceFactory, Timers } from "../../application/ports/timers.js";

export class NodeTimers implements Timers {
  setTimeout(callback: () => void, ms: number): unknown {
    return setTimeout(callback, ms);
  }
  clearTimeout(handle: unknown): void {
    clearTimeout(handle as NodeJS.Timeout);
  }
  defer(callback: () => void): void {
    setImmediate(callback);
  }
}

/** Each filter chain gets its own fast PRNG, seeded from the OS so runs differ (uBridge never seeds). */
export class SeededRandomFactory implements RandomSourceFactory {
  create(): RandomSource {
    return new SeededRandom(randomInt(0, 2 ** 32));
  }
}
