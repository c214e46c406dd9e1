import type { FrameRing, RingBell } from "./frame-ring.js";
import { loadUdpBatchAddon } from "./batched-udp-transport.js";

/**
 * How the reader of a frame ring with nothing left to read learns of the next frame (ADR 0112). A
 * waiter serves one reader: a reader that waits again before it was woken replaces its wait.
 */
export interface RingWaiter {
  /** Calls `woke` once a frame may have been written to `ring`, or its writer went; false (and no call) when one waits already. */
  wait(ring: FrameRing, woke: () => void): boolean;
  /** The wait, if any, is off: `woke` will not be called. */
  cancel(): void;
}

/** A thread's way of waking readers (the bell its writers ring) and of being woken (a waiter per reader). */
export interface RingWakeups {
  readonly bell: RingBell | undefined;
  waiter(): RingWaiter;
}

/** What the addon gives for doorbells (native/udp-batch.c): one per thread, rung by id from any thread. */
export interface Doorbells {
  /** This thread's doorbell; `onRing` runs on this thread's loop after one or more rings. Throws when the thread has one. */
  doorbell(onRing: () => void): number;
  /** False when no doorbell has that id (its thread went away). */
  ring(id: number): boolean;
}

/**
 * The doorbell of this thread and the readers waiting on it. The doorbell ringing says only that some
 * frame ring read in this thread was written: each waiting reader asks its own ring again, and the ones
 * with nothing stay.
 */
export class ThreadDoorbell {
  readonly id: number;
  private readonly waiting = new Map<object, { readonly ring: FrameRing; readonly woke: () => void }>();

  constructor(doorbells: Doorbells) {
    this.id = doorbells.doorbell(this.rang);
  }

  /** `woke` once `ring` has a frame or lost its writer; false when it has one already. */
  wait(reader: object, ring: FrameRing, woke: () => void): boolean {
    if (!ring.awaitBell(this.id)) {
      this.waiting.delete(reader);
      return false;
    }
    this.waiting.set(reader, { ring, woke });
    return true;
  }

  cancel(reader: object): void {
    this.waiting.delete(reader);
  }

  /** The readers waiting now: a woken one that waits again is for the next ring. */
  private readonly rang = (): void => {
    for (const [reader, wait] of [...this.waiting]) {
      if (this.waiting.get(reader) !== wait) continue;
      // Nothing for it (the doorbell rang for another ring of this thread, or a drain read its frame first): its wait goes on.
      if (wait.ring.awaitBell(this.id)) continue;
      this.waiting.delete(reader);
      wait.woke();
    }
  };
}

/** Waking through doorbells: a writer rings the reader's thread, whose loop polls an eventfd. */
export function doorbellWakeups(doorbells: Doorbells, doorbell: ThreadDoorbell): RingWakeups {
  return { bell: ringing(doorbells), waiter: () => doorbellWaiter(doorbell) };
}

const ringing =
  (doorbells: Doorbells): RingBell =>
  (id) =>
    void doorbells.ring(id);

function doorbellWaiter(doorbell: ThreadDoorbell): RingWaiter {
  const reader = {};
  return { wait: (ring, woke) => doorbell.wait(reader, ring, woke), cancel: () => doorbell.cancel(reader) };
}

/**
 * With no addon: Atomics.waitAsync, and a look on a timer of the loop's (libuv's, not V8's: those are the
 * tasks Node 20 loses now and then, see FrameRing.whenWritten) after 1 ms at first, then twice as long
 * each time it found nothing, up to 64 ms: a lost wake-up costs a busy link 1 ms and an idle one at most
 * 64, and an idle ring wakes its thread 16 times a second.
 */
const MIN_PATIENCE_MS = 1;
const MAX_PATIENCE_MS = 64;

/** A timer of the loop that can be cancelled. */
export type LoopTimer = (ms: number, callback: () => void) => () => void;

class AtomicsWaiter implements RingWaiter {
  private patienceMs = MIN_PATIENCE_MS;
  /** Counts the waits: only the latest one's wake-up or timer wakes (one chain of waits at a time). */
  private waits = 0;
  private cancelTimer: (() => void) | undefined;

  constructor(private readonly later: LoopTimer) {}

  wait(ring: FrameRing, woke: () => void): boolean {
    const written = ring.whenWritten();
    if (written === undefined) return false;
    const wait = ++this.waits;
    const settle = (byTimer: boolean): void => {
      if (wait !== this.waits) return;
      this.cancel();
      // Woken by the timer for nothing: wait longer next time, up to MAX_PATIENCE_MS.
      this.patienceMs = byTimer && !ring.waiting ? Math.min(MAX_PATIENCE_MS, this.patienceMs * 2) : MIN_PATIENCE_MS;
      woke();
    };
    this.cancelTimer?.();
    this.cancelTimer = this.later(this.patienceMs, () => settle(true));
    void written.then(() => settle(false));
    return true;
  }

  cancel(): void {
    this.waits++;
    this.cancelTimer?.();
    this.cancelTimer = undefined;
  }
}

export function atomicsWakeups(later: LoopTimer): RingWakeups {
  return { bell: undefined, waiter: () => new AtomicsWaiter(later) };
}

/**
 * Doorbells when the addon loads; Atomics.waitAsync otherwise. A writer rings whatever doorbell its
 * reader left in the ring, so the addon's bell is kept for writing even in a thread that could not
 * make a doorbell of its own to wait on (its readers then wait with Atomics, and are notified so).
 */
export function ringWakeupsOf(later: LoopTimer, load: () => Doorbells): RingWakeups {
  let doorbells: Doorbells;
  try {
    doorbells = load();
  } catch {
    return atomicsWakeups(later);
  }
  let doorbell: ThreadDoorbell | undefined;
  try {
    doorbell = new ThreadDoorbell(doorbells);
  } catch {
    // The addon's table of doorbells is full (or this thread has one already): its readers wait with Atomics.
  }
  return { bell: ringing(doorbells), waiter: doorbell === undefined ? atomicsWakeups(later).waiter : () => doorbellWaiter(doorbell) };
}

/** Whether this process's threads can wake each other through the addon's doorbells (it loads, and has them). */
export function doorbellsAvailable(load: () => Partial<Doorbells> = loadUdpBatchAddon): boolean {
  try {
    return typeof load().doorbell === "function";
  } catch {
    return false;
  }
}

/** This thread's wake-ups, made at first need: the addon makes one doorbell per thread, and each worker has its own modules. */
let thread: RingWakeups | undefined;

export function threadRingWakeups(later: LoopTimer): RingWakeups {
  thread ??= ringWakeupsOf(later, loadUdpBatchAddon);
  return thread;
}
