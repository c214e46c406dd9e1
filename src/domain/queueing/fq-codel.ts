import { Fifo } from "./fifo.js";
import { CodelController, type CodelParameters, type CodelQueue, FrameFifo, type QueueDiscipline, type QueueObserver, type QueuedFrame } from "./codel.js";
import { flowHash } from "./ip-headers.js";

/** FQ-CoDel's parameters (RFC 8290 §5.1, Linux's defaults). */
export interface FqCodelSettings extends CodelParameters {
  /** Frames held in all flows at most: 10240. */
  readonly limit: number;
  /** Bytes held in all flows at most: 32 MiB. */
  readonly memoryLimit: number;
  /** Flow queues the frames are hashed into: 1024. */
  readonly flows: number;
  /** Bytes a flow may send per round of the deficit round robin: 1514. */
  readonly quantum: number;
  /** Frames dropped at most, from the fattest flow, when a limit is reached: 64. */
  readonly dropBatch: number;
}

export const FQ_CODEL_LIMIT = 10240;
export const FQ_CODEL_MEMORY_LIMIT = 32 * 1024 * 1024;
export const FQ_CODEL_FLOWS = 1024;
export const FQ_CODEL_QUANTUM = 1514;
export const FQ_CODEL_DROP_BATCH = 64;

/** Which list a flow is on: none (empty and idle), new flows or old flows. */
const NONE = 0;
const NEW = 1;
const OLD = 2;

class Flow {
  readonly fifo = new FrameFifo();
  deficit = 0;
  list: typeof NONE | typeof NEW | typeof OLD = NONE;
  constructor(
    readonly index: number,
    readonly codel: CodelController,
  ) {}
}

/**
 * FQ-CoDel (RFC 8290, as Linux's fq_codel): frames are hashed by their flow (the 5-tuple) into
 * `flows` queues, each under its own CoDel; a deficit round robin of `quantum` bytes serves the new
 * flows (those that just became active) before the old ones, so a sparse flow (a ping, a DNS query,
 * a TCP handshake) leaves at once behind a bulk flow's standing queue. At the frame or memory limit
 * it drops from the head of the flow holding the most bytes, up to half its backlog.
 */
export class FqCodelQueueDiscipline implements QueueDiscipline {
  private readonly table: (Flow | undefined)[];
  private readonly backlogs: Float64Array;
  private readonly newFlows = new Fifo<number>();
  private readonly oldFlows = new Fifo<number>();
  private frames = 0;
  private held = 0;
  /** What CoDel sees of a flow: its frames, and the whole qdisc's backlog (Linux's). */
  private readonly view: { flow: Flow | undefined } & CodelQueue;

  constructor(
    private readonly settings: FqCodelSettings,
    private readonly observer: QueueObserver,
    /** The hash perturbation (Linux draws one per qdisc). */
    private readonly seed = 0,
  ) {
    this.table = new Array<Flow | undefined>(settings.flows).fill(undefined);
    this.backlogs = new Float64Array(settings.flows);
    const self = this;
    this.view = {
      flow: undefined,
      shift(): QueuedFrame | undefined {
        const flow = this.flow as Flow;
        const entry = flow.fifo.shift();
        if (entry !== undefined) self.left(flow, entry);
        return entry;
      },
      get backlogBytes(): number {
        return self.held;
      },
    };
  }

  get length(): number {
    return this.frames;
  }
  get bytes(): number {
    return this.held;
  }

  /** Which flow queue the frame goes to. */
  flowOf(frame: Uint8Array): number {
    // Multiply-shift scaling of the 32-bit hash, as Linux's reciprocal_scale.
    return Math.floor((flowHash(frame, this.seed) * this.settings.flows) / 2 ** 32);
  }

  /** The bytes queued in one flow (for tests and the fattest-flow search). */
  flowBacklog(index: number): number {
    return this.backlogs[index] ?? 0;
  }

  enqueue(frame: Uint8Array, nowMs: number): void {
    this.adopt({ frame, enqueuedMs: nowMs });
  }

  /** Queues a frame with its enqueue time (one queued elsewhere keeps its sojourn). */
  adopt(entry: QueuedFrame): void {
    const index = this.flowOf(entry.frame);
    let flow = this.table[index];
    if (flow === undefined) {
      flow = new Flow(index, new CodelController(this.settings));
      this.table[index] = flow;
    }
    flow.fifo.push(entry);
    this.backlogs[index] = (this.backlogs[index] as number) + entry.frame.length;
    this.frames++;
    this.held += entry.frame.length;
    if (flow.list === NONE) {
      flow.list = NEW;
      flow.deficit = this.settings.quantum;
      this.newFlows.push(index);
    }
    if (this.frames > this.settings.limit || this.held > this.settings.memoryLimit) this.dropFromFattest();
  }

  /** Drops from the head of the flow holding the most bytes: up to half its backlog, at most dropBatch frames. */
  private dropFromFattest(): void {
    let fattest = 0;
    let most = -1;
    for (let i = 0; i < this.backlogs.length; i++) {
      const b = this.backlogs[i] as number;
      if (b > most) {
        most = b;
        fattest = i;
      }
    }
    const flow = this.table[fattest] as Flow;
    const threshold = most / 2;
    let dropped = 0;
    let bytes = 0;
    while (dropped < this.settings.dropBatch && bytes < threshold) {
      const entry = flow.fifo.shift();
      if (entry === undefined) break;
      this.left(flow, entry);
      dropped++;
      bytes += entry.frame.length;
      this.observer.dropped(entry, "overlimit");
    }
  }

  private left(flow: Flow, entry: QueuedFrame): void {
    this.backlogs[flow.index] = (this.backlogs[flow.index] as number) - entry.frame.length;
    this.frames--;
    this.held -= entry.frame.length;
  }

  dequeue(nowMs: number): QueuedFrame | undefined {
    for (;;) {
      const fromNew = this.newFlows.length > 0;
      const list = fromNew ? this.newFlows : this.oldFlows;
      const index = list.peek();
      if (index === undefined) return undefined;
      const flow = this.table[index] as Flow;
      if (flow.deficit <= 0) {
        // Spent its quantum: a new round, at the back of the old flows.
        flow.deficit += this.settings.quantum;
        list.shift();
        flow.list = OLD;
        this.oldFlows.push(index);
        continue;
      }
      this.view.flow = flow;
      const entry = flow.codel.dequeue(this.view, nowMs, this.observer);
      this.view.flow = undefined;
      if (entry === undefined) {
        list.shift();
        // An emptied new flow goes once through the old list, so a flow cannot stay new by emptying often (RFC 8290 §4.2).
        if (fromNew && this.oldFlows.length > 0) {
          flow.list = OLD;
          this.oldFlows.push(index);
        } else flow.list = NONE;
        continue;
      }
      flow.deficit -= entry.frame.length;
      return entry;
    }
  }

  drain(): QueuedFrame[] {
    // In the order they would have left as far as a frame's own flow goes: flow by flow, new ones first.
    const out: QueuedFrame[] = [];
    for (const list of [this.newFlows, this.oldFlows]) {
      for (let index = list.shift(); index !== undefined; index = list.shift()) {
        const flow = this.table[index] as Flow;
        flow.list = NONE;
        out.push(...flow.fifo.drain());
        this.backlogs[index] = 0;
      }
    }
    for (const flow of this.table) if (flow !== undefined) out.push(...flow.fifo.drain());
    this.backlogs.fill(0);
    this.frames = 0;
    this.held = 0;
    return out;
  }
}
