import type { Doorbells } from "../../src/adapters/transport/ring-wakeups.js";

/**
 * The addon's doorbells (ADR 0112) in memory and run by hand, for threads simulated in one: a ring
 * is remembered and its thread's onRing called once at `deliver()`, however often it was rung, as an
 * eventfd wakes its loop once. Each world is a thread: `forThread()` gives one thread its doorbells.
 */
export class FakeDoorbells {
  private readonly bells = new Map<number, () => void>();
  private readonly rung = new Set<number>();
  private nextId = 1;
  /** Every ring, in order, by doorbell id (a ring of a doorbell that is gone too). */
  readonly rings: number[] = [];

  /** One thread's view: a thread has at most one doorbell. */
  forThread(): Doorbells {
    let mine: number | undefined;
    return {
      doorbell: (onRing) => {
        if (mine !== undefined) throw Object.assign(new Error("doorbell: this thread has one"), { code: "EEXIST" });
        mine = this.nextId++;
        this.bells.set(mine, onRing);
        return mine;
      },
      ring: (id) => {
        this.rings.push(id);
        if (!this.bells.has(id)) return false;
        this.rung.add(id);
        return true;
      },
    };
  }

  /** The thread of that doorbell went away: its rings reach nothing. */
  remove(id: number): void {
    this.bells.delete(id);
    this.rung.delete(id);
  }

  /** Each rung doorbell's thread hears it once. */
  deliver(): void {
    const due = [...this.rung];
    this.rung.clear();
    for (const id of due) this.bells.get(id)?.();
  }
}
