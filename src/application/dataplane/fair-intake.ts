import type { Clock } from "../ports/system.js";
import type { Timers } from "../ports/timers.js";

/**
 * How much work one port may make its thread do before the other ports get their turn (ADR 0075).
 * A frame's cost is not bounded by its size: the biggest bpf filter allowed costs a frame 15 µs once
 * V8 has optimised its code and 0.4 to 4 ms before (docs/benchmarks.md), so the budget is time, as
 * Linux's NAPI budget is frames and µs per poll.
 */
export interface IntakeBudget {
  /** Work (ms) a port may do between two turns of the thread's event loop before its frames wait. */
  readonly turnMs: number;
  /** Frames a port may hold waiting for its next turn; more are dropped (`overload`). */
  readonly backlogFrames: number;
  /** Bytes of those frames. */
  readonly backlogBytes: number;
}

/**
 * 1 ms a turn: a bystander's frame waits at most about 2 ms per busy port on its thread (one turn in
 * the poll phase, one in the drain), a port with cheap frames does 300 of them in it, and the kernel's
 * receive buffer holds what comes meanwhile. 1,024 frames: what one wake-up of the batched path reads
 * twice over (8 × 64), so a port that keeps up never drops.
 */
export const DEFAULT_INTAKE_BUDGET: IntakeBudget = { turnMs: 1, backlogFrames: 1024, backlogBytes: 2 * 1024 * 1024 };

/**
 * The work charged for a frame of an untimed port (no pcap-filter program on its node): the whole
 * frame path at ~290,000 frames/s (issue 25). Reading the clock twice costs ~0.35 µs a frame on a
 * loaded VM, a tenth of such a frame, so cheap frames are counted, not timed.
 */
export const UNTIMED_FRAME_MS = 0.0034;

/**
 * The frames of one port, received through FairIntake: handled at once while the port has budget left
 * in this turn, else kept (in order) for the next turn, else dropped.
 */
export class PortIntake {
  /** Frames waiting for this port's next turn: a ring of backlogFrames slots, `head` the oldest. */
  private readonly ring: (Uint8Array | undefined)[] = [];
  private head = 0;
  private count = 0;
  private bytes = 0;
  /** The turn whose budget `spentMs` counts. */
  private turn = -1;
  private spentMs = 0;
  private closed = false;
  /**
   * Whether each frame's work is timed (a node with a bpf or match program, whose frames cost what
   * the program makes them cost); otherwise each frame is charged UNTIMED_FRAME_MS.
   */
  timed = true;

  constructor(
    private readonly intake: FairIntake,
    private readonly handle: (frame: Uint8Array) => void,
    private readonly shed: (frame: Uint8Array) => void,
  ) {}

  /** Frames waiting for this port's next turn. */
  get waiting(): number {
    return this.count;
  }

  /** A frame from the port's socket. */
  offer(frame: Uint8Array): void {
    if (this.closed) return;
    // Behind the frames already waiting, to keep the port's order.
    if (this.count === 0 && this.hasBudget()) this.run(frame);
    else this.keep(frame);
  }

  private hasBudget(): boolean {
    if (this.turn !== this.intake.turn) {
      this.turn = this.intake.turn;
      this.spentMs = 0;
    }
    return this.spentMs < this.intake.budget.turnMs;
  }

  private run(frame: Uint8Array): void {
    if (!this.timed) {
      this.spentMs += UNTIMED_FRAME_MS;
      this.handle(frame);
      return;
    }
    const clock = this.intake.clock;
    const start = clock.nowMs();
    try {
      this.handle(frame);
    } finally {
      this.spentMs += clock.nowMs() - start;
    }
  }

  private keep(frame: Uint8Array): void {
    const budget = this.intake.budget;
    if (this.count >= budget.backlogFrames || this.bytes + frame.length > budget.backlogBytes) {
      this.shed(frame);
      return;
    }
    this.ring[(this.head + this.count) % budget.backlogFrames] = frame;
    this.count++;
    this.bytes += frame.length;
    this.intake.waiting(this);
  }

  private take(): Uint8Array {
    const frame = this.ring[this.head] as Uint8Array;
    this.ring[this.head] = undefined;
    this.head = (this.head + 1) % this.intake.budget.backlogFrames;
    this.count--;
    this.bytes -= frame.length;
    return frame;
  }

  /** Handles waiting frames while this turn's budget lasts; true when some are still waiting. */
  drainTurn(): boolean {
    while (this.count > 0 && !this.closed && this.hasBudget()) this.run(this.take());
    return this.count > 0 && !this.closed;
  }

  /** Handles every waiting frame now, whatever the budget (a node handed over takes nothing left behind). */
  drainAll(): void {
    while (this.count > 0 && !this.closed) this.run(this.take());
  }

  /** Forgets the waiting frames: the port is gone, as a closed socket's buffer goes. */
  close(): void {
    this.closed = true;
    this.ring.length = 0;
    this.count = 0;
    this.bytes = 0;
  }
}

/**
 * Fair receive for all the ports of one thread (ADR 0075): each port may spend `turnMs` of work on its
 * frames per turn; past it, its frames wait in its backlog, and the thread's other ports are served
 * before they run. Waiting ports are drained once the I/O already pending has been handled (Timers.defer,
 * `setImmediate`), round robin, each within a fresh budget. So a port whose filters are costly, however
 * fast its frames come, delays a frame of another port by about twice its budget, not by the time of all
 * it read; a port alone on its thread still gets the whole thread, turn after turn.
 */
export class FairIntake {
  /** Advanced at every drain: the turn whose budget each port spends. */
  turn = 0;
  private readonly backlogged = new Set<PortIntake>();
  private scheduled = false;

  constructor(
    readonly clock: Clock,
    private readonly timers: Timers,
    readonly budget: IntakeBudget = DEFAULT_INTAKE_BUDGET,
  ) {}

  /** The intake of one port: `handle` does a frame's work, `shed` is told of a frame dropped for lack of room. */
  port(handle: (frame: Uint8Array) => void, shed: (frame: Uint8Array) => void): PortIntake {
    return new PortIntake(this, handle, shed);
  }

  /** A port has frames waiting: drained after the pending I/O. */
  waiting(port: PortIntake): void {
    this.backlogged.add(port);
    if (this.scheduled) return;
    this.scheduled = true;
    this.defer(this.drain);
  }

  private defer(callback: () => void): void {
    if (this.timers.defer !== undefined) this.timers.defer(callback);
    else this.timers.setTimeout(callback, 0);
  }

  private readonly drain = (): void => {
    this.scheduled = false;
    this.turn++;
    // Round robin: a port still waiting goes to the back, behind the ones that came meanwhile.
    for (const port of [...this.backlogged]) {
      this.backlogged.delete(port);
      if (port.drainTurn()) this.backlogged.add(port);
    }
    if (this.backlogged.size > 0 && !this.scheduled) {
      this.scheduled = true;
      this.defer(this.drain);
    }
  };
}
