import { Fifo } from "./fifo.js";
import { markCongestionExperienced } from "./ip-headers.js";

/** A frame in a queue, with the time it entered it (the Clock's ms): its sojourn is measured from there. */
export interface QueuedFrame {
  readonly frame: Uint8Array;
  readonly enqueuedMs: number;
}

/** Why a queue discipline let a frame go without sending it. */
export type QueueDropReason = "codel" | "overlimit";

/**
 * What a queue discipline tells whoever holds its frames: each frame it drops (the holder gives back
 * the room it took) and what it measured. Counters only; nothing here decides anything.
 */
export interface QueueObserver {
  dropped(entry: QueuedFrame, reason: QueueDropReason): void;
  /** An ECN-capable frame marked Congestion Experienced instead of dropped. */
  marked(): void;
  /** The sojourn of a frame CoDel looked at (each frame at the head of a queue when it dequeues), ms. */
  sojourn(ms: number): void;
}

/** A first-in first-out list of queued frames with its byte count. */
export class FrameFifo {
  private readonly frames = new Fifo<QueuedFrame>();
  bytes = 0;

  get length(): number {
    return this.frames.length;
  }

  push(entry: QueuedFrame): void {
    this.frames.push(entry);
    this.bytes += entry.frame.length;
  }

  peek(): QueuedFrame | undefined {
    return this.frames.peek();
  }

  shift(): QueuedFrame | undefined {
    const entry = this.frames.shift();
    if (entry !== undefined) this.bytes -= entry.frame.length;
    return entry;
  }

  /** Every frame, oldest first, leaving the list empty. */
  drain(): QueuedFrame[] {
    this.bytes = 0;
    return this.frames.drain();
  }
}

/** CoDel's parameters (RFC 8289 §4), times in ms. */
export interface CodelParameters {
  /** The acceptable standing queue delay: 5 ms. */
  readonly targetMs: number;
  /** The window a queue must stay above target in before CoDel acts, about a worst-case RTT: 100 ms. */
  readonly intervalMs: number;
  /** Mark ECN-capable frames CE instead of dropping them. */
  readonly ecn: boolean;
  /** A backlog of at most this many bytes is never dropped from (one full frame is no standing queue): 1514. */
  readonly mtu: number;
}

export const CODEL_TARGET_MS = 5;
export const CODEL_INTERVAL_MS = 100;
export const CODEL_MTU = 1514;

/** What CoDel's dequeue works on: its queue's frames, and the backlog the "at most one frame" rule looks at. */
export interface CodelQueue {
  shift(): QueuedFrame | undefined;
  /** The bytes still queued once the frame at hand has left (a whole qdisc's, under fq_codel, as Linux counts). */
  readonly backlogBytes: number;
}

/** The control law: the next drop comes interval/√count after `t` (RFC 8289 §3.3). */
export function controlLaw(t: number, intervalMs: number, count: number): number {
  return t + intervalMs / Math.sqrt(count);
}

/** CoDel's state (RFC 8289 §5) as plain data. */
export interface CodelControllerState {
  readonly firstAboveMs: number;
  readonly dropNextMs: number;
  readonly count: number;
  readonly lastCount: number;
  readonly dropping: boolean;
}

/**
 * The state of CoDel for one queue (RFC 8289 §5, the behaviour of Linux's codel_dequeue): whether it
 * is dropping, when the sojourn first stayed above target, the drop count and when the next drop is
 * due. It decides at dequeue, from the sojourn of the frame at the head.
 */
export class CodelController {
  /** When the sojourn will have been above target for an interval (0: not above target). */
  firstAboveMs = 0;
  dropNextMs = 0;
  count = 0;
  lastCount = 0;
  dropping = false;
  /** The sojourn of the last frame looked at, ms. */
  lastSojournMs = 0;

  constructor(private readonly p: CodelParameters) {}

  /** What it knows, as plain data: carried with its queue's frames when the node moves (ADR 0069, 0100). */
  state(): CodelControllerState {
    return { firstAboveMs: this.firstAboveMs, dropNextMs: this.dropNextMs, count: this.count, lastCount: this.lastCount, dropping: this.dropping };
  }

  /** Goes on from `state` (another thread's); a value that is not one of its kind leaves the controller as it started. */
  resume(state: CodelControllerState): void {
    const time = (v: unknown): v is number => typeof v === "number" && Number.isFinite(v);
    const count = (v: unknown): v is number => Number.isSafeInteger(v) && (v as number) >= 0;
    if (!time(state.firstAboveMs) || !time(state.dropNextMs) || !count(state.count) || !count(state.lastCount) || typeof state.dropping !== "boolean") return;
    this.firstAboveMs = state.firstAboveMs;
    this.dropNextMs = state.dropNextMs;
    this.count = state.count;
    this.lastCount = state.lastCount;
    this.dropping = state.dropping;
  }

  /** Whether the frame just taken from the head may be dropped: its sojourn has stayed above target for an interval. */
  private okToDrop(entry: QueuedFrame | undefined, queue: CodelQueue, nowMs: number, observer: QueueObserver): boolean {
    if (entry === undefined) {
      this.firstAboveMs = 0;
      return false;
    }
    const sojourn = nowMs - entry.enqueuedMs;
    this.lastSojournMs = sojourn;
    observer.sojourn(sojourn);
    if (sojourn < this.p.targetMs || queue.backlogBytes <= this.p.mtu) {
      this.firstAboveMs = 0;
      return false;
    }
    if (this.firstAboveMs === 0) {
      this.firstAboveMs = nowMs + this.p.intervalMs;
      return false;
    }
    return nowMs >= this.firstAboveMs;
  }

  /** Marks the frame CE when ECN is on and it is ECN-capable. */
  private marks(entry: QueuedFrame, observer: QueueObserver): boolean {
    if (!this.p.ecn || !markCongestionExperienced(entry.frame)) return false;
    observer.marked();
    return true;
  }

  /**
   * The next frame to send from `queue` at `nowMs`, after dropping (or marking) what the control law
   * says; undefined when the queue is empty.
   */
  dequeue(queue: CodelQueue, nowMs: number, observer: QueueObserver): QueuedFrame | undefined {
    let entry = queue.shift();
    if (entry === undefined) {
      this.dropping = false;
      this.firstAboveMs = 0;
      return undefined;
    }
    const drop = this.okToDrop(entry, queue, nowMs, observer);
    if (this.dropping) {
      if (!drop) {
        this.dropping = false;
      } else {
        while (this.dropping && nowMs >= this.dropNextMs) {
          this.count++;
          if (this.marks(entry as QueuedFrame, observer)) {
            // A marked frame is sent: one mark per dequeue, the next is due by the control law.
            this.dropNextMs = controlLaw(this.dropNextMs, this.p.intervalMs, this.count);
            return entry;
          }
          observer.dropped(entry as QueuedFrame, "codel");
          entry = queue.shift();
          if (!this.okToDrop(entry, queue, nowMs, observer)) this.dropping = false;
          else this.dropNextMs = controlLaw(this.dropNextMs, this.p.intervalMs, this.count);
        }
      }
    } else if (drop) {
      if (!this.marks(entry, observer)) {
        observer.dropped(entry, "codel");
        entry = queue.shift();
        // Looked at for its sojourn (and to reset the window if it is below target).
        this.okToDrop(entry, queue, nowMs, observer);
      }
      this.dropping = true;
      // Back into dropping soon after leaving it: start near the drop rate that controlled the queue
      // last time (RFC 8289 §5.4), not from one.
      const delta = this.count - this.lastCount;
      this.count = delta > 1 && nowMs - this.dropNextMs < 16 * this.p.intervalMs ? delta : 1;
      this.lastCount = this.count;
      this.dropNextMs = controlLaw(nowMs, this.p.intervalMs, this.count);
    }
    return entry;
  }
}

/** CoDel on one FIFO (Linux's codel qdisc): `limit` frames at most, tail drop beyond. */
export interface CodelSettings extends CodelParameters {
  readonly limit: number;
}

/** A queue discipline: frames in at enqueue, out at dequeue, in the discipline's order; drops told to the observer. */
export interface QueueDiscipline {
  /** Queues the frame (or drops it, or others, at the discipline's limit: told to the observer). */
  enqueue(frame: Uint8Array, nowMs: number): void;
  /** The next frame to send, or undefined when none is queued. */
  dequeue(nowMs: number): QueuedFrame | undefined;
  readonly length: number;
  readonly bytes: number;
  /** Every frame still queued, in the order it would have left, leaving the discipline empty. */
  drain(): QueuedFrame[];
}

export class CodelQueueDiscipline implements QueueDiscipline, CodelQueue {
  private readonly fifo = new FrameFifo();
  readonly controller: CodelController;

  constructor(
    private readonly settings: CodelSettings,
    private readonly observer: QueueObserver,
  ) {
    this.controller = new CodelController(settings);
  }

  get length(): number {
    return this.fifo.length;
  }
  get bytes(): number {
    return this.fifo.bytes;
  }
  get backlogBytes(): number {
    return this.fifo.bytes;
  }

  shift(): QueuedFrame | undefined {
    return this.fifo.shift();
  }

  enqueue(frame: Uint8Array, nowMs: number): void {
    const entry = { frame, enqueuedMs: nowMs };
    if (this.fifo.length >= this.settings.limit) {
      this.observer.dropped(entry, "overlimit");
      return;
    }
    this.fifo.push(entry);
  }

  /** Takes a frame as it was queued elsewhere (its enqueue time kept), when a discipline replaces another. */
  adopt(entry: QueuedFrame): void {
    if (this.fifo.length >= this.settings.limit) this.observer.dropped(entry, "overlimit");
    else this.fifo.push(entry);
  }

  dequeue(nowMs: number): QueuedFrame | undefined {
    return this.controller.dequeue(this, nowMs, this.observer);
  }

  drain(): QueuedFrame[] {
    return this.fifo.drain();
  }
}
