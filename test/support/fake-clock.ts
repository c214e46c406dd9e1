import type { Clock } from "../../src/application/ports/system.js";
import type { Timers } from "../../src/application/ports/timers.js";

/**
 * A wall clock and its timers that move only when the test says: `advance(ms)` runs each timer due in
 * order, at its own time, and lets the promises it starts settle before the next one.
 */
export class FakeClock implements Clock, Timers {
  private now: number;
  private next = 1;
  private readonly pending = new Map<number, { readonly at: number; readonly callback: () => void }>();

  constructor(startMs = Date.UTC(2026, 10, 26, 12, 0, 0)) {
    this.now = startMs;
  }

  nowMs(): number {
    return this.now;
  }

  setTimeout(callback: () => void, ms: number): unknown {
    const id = this.next++;
    this.pending.set(id, { at: this.now + Math.max(0, ms), callback });
    return id;
  }

  clearTimeout(handle: unknown): void {
    this.pending.delete(handle as number);
  }

  /** How many timers wait. */
  get waiting(): number {
    return this.pending.size;
  }

  async advance(ms: number): Promise<void> {
    const end = this.now + ms;
    await settle();
    for (;;) {
      let due: [number, { at: number; callback: () => void }] | undefined;
      for (const entry of this.pending) if (entry[1].at <= end && (due === undefined || entry[1].at < due[1].at)) due = entry;
      if (due === undefined) break;
      this.pending.delete(due[0]);
      this.now = due[1].at;
      due[1].callback();
      await settle();
    }
    this.now = end;
  }
}

/** Lets the promise chains started so far run to their end (a few rounds of the macrotask queue). */
async function settle(): Promise<void> {
  for (let i = 0; i < 5; i++) await new Promise((resolve) => setImmediate(resolve));
}
