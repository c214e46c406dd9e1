/**
 * Traces a link replays (ADR 0103): a capacity trace in Mahimahi's format, and a value trace
 * (delay in ms, loss in %) in netemu's `<ms> <value>` form. Pure: parse a text into a value (bounded,
 * refusals as data naming the line), and look the value up at a time.
 */

/** Bounds of a trace: a day of 1 Gbit/s opportunities would be far beyond any public trace. */
export const TRACE_LIMITS = {
  /** Characters of a trace's text (the public LTE traces are a few hundred kB). */
  textChars: 16 * 1024 * 1024,
  /** Lines (a capacity trace: delivery opportunities). */
  lines: 2_000_000,
  /** The last timestamp, in ms (about 11.5 days). */
  maxMs: 1_000_000_000,
  /** Characters of a name (a safe file name). */
  nameChars: 128,
} as const;

/** Bytes one Mahimahi delivery opportunity carries (of the IP packet: the frame past its Ethernet header). */
const OPPORTUNITY_BYTES = 1500;
/** Bytes of an Ethernet header: not counted against an opportunity, as Mahimahi's TUN link never sees it. */
const ETHERNET_HEADER_BYTES = 14;

/** A capacity trace: delivery opportunities at `opportunitiesMs` (non-decreasing), looping every `periodMs` (its last timestamp). */
export interface CapacityTrace {
  readonly kind: "capacity";
  readonly opportunitiesMs: readonly number[];
  readonly periodMs: number;
}

/**
 * A piecewise-constant value: `values[i]` from `atMs[i]` (the first at 0) until the next; looping every
 * `periodMs` when the trace ends with a lone timestamp, else the last value stays.
 */
export interface ValueTrace {
  readonly kind: "values";
  readonly atMs: readonly number[];
  readonly values: readonly number[];
  readonly periodMs?: number;
}

export type Trace = CapacityTrace | ValueTrace;

/** What is wrong with a trace's text, as data (the HTTP adapter words it). */
export type TraceProblem =
  | { readonly problem: "empty" }
  | { readonly problem: "too_large"; readonly limit: number; readonly got: number }
  | { readonly problem: "too_many_lines"; readonly limit: number }
  /** A line that is neither `<ms>` (capacity) nor `<ms> <value>` (values), or mixes the two forms. */
  | { readonly problem: "bad_line"; readonly line: number; readonly text: string; readonly expected: string }
  | { readonly problem: "decreasing"; readonly line: number; readonly ms: number; readonly previousMs: number }
  /** A value trace's times must grow strictly: two values at one time say nothing. */
  | { readonly problem: "not_increasing"; readonly line: number; readonly ms: number; readonly previousMs: number }
  | { readonly problem: "too_late"; readonly line: number; readonly ms: number; readonly limit: number }
  /** Mahimahi's rule: a capacity trace must last (its last timestamp above 0). */
  | { readonly problem: "no_duration" }
  | { readonly problem: "first_not_zero"; readonly ms: number }
  | { readonly problem: "value_out_of_range"; readonly line: number; readonly value: string; readonly minimum: number; readonly maximum: number };

export type Parsed<A> = { readonly ok: true; readonly trace: A } | { readonly ok: false; readonly problem: TraceProblem };

const INTEGER = /^\d{1,12}$/;
const NUMBER = /^\d{1,12}(\.\d{1,6})?$/;

/** The trace's lines: CRLF read as LF, one final newline allowed, nothing else blank. */
function linesOf(text: string): Parsed<string[]> {
  if (text.length > TRACE_LIMITS.textChars) return { ok: false, problem: { problem: "too_large", limit: TRACE_LIMITS.textChars, got: text.length } };
  const body = text.replace(/\r\n/g, "\n").replace(/\n$/, "");
  if (body.trim() === "") return { ok: false, problem: { problem: "empty" } };
  const lines = body.split("\n");
  if (lines.length > TRACE_LIMITS.lines) return { ok: false, problem: { problem: "too_many_lines", limit: TRACE_LIMITS.lines } };
  return { ok: true, trace: lines };
}

/**
 * Reads a trace: Mahimahi's capacity form when every line is one integer, else netemu's value form
 * (`<ms> <value>` lines, an optional lone `<ms>` last that sets the loop). `value` bounds a value
 * trace's values (a delay's ms, a loss's %).
 */
export function parseTrace(text: string): Parsed<Trace> {
  const read = linesOf(text);
  if (!read.ok) return read;
  const lines = read.trace;
  const first = (lines[0] as string).trim();
  return INTEGER.test(first) ? capacityOf(lines) : valuesOf(lines);
}

function capacityOf(lines: readonly string[]): Parsed<CapacityTrace> {
  const opportunities: number[] = new Array<number>(lines.length);
  let previous = 0;
  for (let i = 0; i < lines.length; i++) {
    const text = (lines[i] as string).trim();
    if (!INTEGER.test(text)) return { ok: false, problem: { problem: "bad_line", line: i + 1, text: text.slice(0, 80), expected: "a whole number of ms (Mahimahi's format)" } };
    const ms = Number(text);
    if (ms > TRACE_LIMITS.maxMs) return { ok: false, problem: { problem: "too_late", line: i + 1, ms, limit: TRACE_LIMITS.maxMs } };
    if (ms < previous) return { ok: false, problem: { problem: "decreasing", line: i + 1, ms, previousMs: previous } };
    opportunities[i] = ms;
    previous = ms;
  }
  if (previous === 0) return { ok: false, problem: { problem: "no_duration" } };
  return { ok: true, trace: { kind: "capacity", opportunitiesMs: opportunities, periodMs: previous } };
}

/** The largest value a value trace holds: a delay of 10 minutes, a loss of 100 %. Checked per use (valueTraceFits). */
const VALUE_MAXIMUM = 600_000;

function valuesOf(lines: readonly string[]): Parsed<ValueTrace> {
  const atMs: number[] = [];
  const values: number[] = [];
  let periodMs: number | undefined;
  for (let i = 0; i < lines.length; i++) {
    const text = (lines[i] as string).trim();
    const fields = text.split(/[\s,]+/);
    const last = i === lines.length - 1;
    const bad = (expected: string): Parsed<never> => ({ ok: false, problem: { problem: "bad_line", line: i + 1, text: text.slice(0, 80), expected } });
    if (fields.length === 1 && last && i > 0 && INTEGER.test(fields[0] as string)) {
      periodMs = Number(fields[0]);
    } else if (fields.length !== 2 || !INTEGER.test(fields[0] as string) || !NUMBER.test(fields[1] as string)) {
      return bad(i === 0 ? "a capacity trace's `<ms>` on every line, or `<ms> <value>` lines" : "`<ms> <value>` (or a lone `<ms>` last, to loop)");
    }
    const ms = Number(fields[0]);
    if (ms > TRACE_LIMITS.maxMs) return { ok: false, problem: { problem: "too_late", line: i + 1, ms, limit: TRACE_LIMITS.maxMs } };
    if (i === 0 && ms !== 0) return { ok: false, problem: { problem: "first_not_zero", ms } };
    const previous = atMs[atMs.length - 1];
    if (previous !== undefined && ms <= previous) return { ok: false, problem: { problem: "not_increasing", line: i + 1, ms, previousMs: previous } };
    if (periodMs !== undefined) break;
    const value = Number(fields[1]);
    if (value > VALUE_MAXIMUM) return { ok: false, problem: { problem: "value_out_of_range", line: i + 1, value: fields[1] as string, minimum: 0, maximum: VALUE_MAXIMUM } };
    atMs.push(ms);
    values.push(value);
  }
  return { ok: true, trace: periodMs === undefined ? { kind: "values", atMs, values } : { kind: "values", atMs, values, periodMs } };
}

/** The first index whose element is above `x` in an ascending list (its length when none is). */
function upperBound(sorted: readonly number[], x: number): number {
  let lo = 0;
  let hi = sorted.length;
  while (lo < hi) {
    const mid = (lo + hi) >>> 1;
    if ((sorted[mid] as number) <= x) lo = mid + 1;
    else hi = mid;
  }
  return lo;
}

/** A value trace's value `tMs` after it started (negative: before it, its first value). */
export function valueAt(trace: ValueTrace, tMs: number): number {
  const t = tMs <= 0 ? 0 : trace.periodMs === undefined ? tMs : tMs % trace.periodMs;
  return trace.values[Math.max(0, upperBound(trace.atMs, t) - 1)] as number;
}

/** The largest value of a value trace (to check it against what a kind takes). */
export function largestValue(trace: ValueTrace): number {
  return trace.values.reduce((m, v) => Math.max(m, v), 0);
}

/** What a trace lasts, in ms (one loop; a value trace without a loop: up to its last step). */
export function traceDurationMs(trace: Trace): number {
  return trace.kind === "capacity" ? trace.periodMs : (trace.periodMs ?? (trace.atMs[trace.atMs.length - 1] as number));
}

/** A capacity trace's mean capacity over one loop, in kbit/s of IP bytes (1,500 bytes an opportunity). */
export function meanCapacityKbps(trace: CapacityTrace): number {
  return (trace.opportunitiesMs.length * OPPORTUNITY_BYTES * 8) / trace.periodMs;
}

/** Whether a name is a safe file name for a trace: letters, digits, `.`, `_`, `-`, not starting with a dot. */
export function isTraceName(name: unknown): name is string {
  return typeof name === "string" && name.length <= TRACE_LIMITS.nameChars && /^[A-Za-z0-9_-][A-Za-z0-9._-]*$/.test(name);
}

/**
 * A link direction whose capacity follows a Mahimahi trace, with Mahimahi's link semantics: frames
 * wait in a FIFO; each delivery opportunity (at start + k × period + the trace's timestamp) carries up
 * to 1,500 bytes of the frames waiting when it comes (strictly after a frame arrived, as Mahimahi burns
 * the opportunities up to now before it queues a packet); bytes a frame leaves unused in an
 * opportunity go to the next frames waiting then, and are lost when none waits; a frame larger than
 * what is left spans the next opportunities. The trace's time starts at the first frame. The queue
 * holds at most `queueFrames` frames not delivered yet (tail drop). Pure: the caller gives the time;
 * as the FIFO's order is fixed at arrival, each frame's delivery time is known when it is admitted.
 */
export class CapacityTraceLink {
  private startMs: number | undefined;
  /** The opportunity the last admitted frame ended in (its global index: loop × n + line), and the bytes left in it. */
  private cursor = -1;
  private leftBytes = 0;
  /** Delivery times of the frames admitted and not delivered yet, ascending (a ring). */
  private readonly deliveries: Float64Array;
  private head = 0;
  private count = 0;
  /** How long the last admitted frame waits until it is delivered, in ms (as Shaper's, a field so admitting allocates nothing). */
  lastWaitMs = 0;

  constructor(
    readonly trace: CapacityTrace,
    readonly queueFrames: number,
  ) {
    this.deliveries = new Float64Array(queueFrames);
  }

  /** Goes on from `previous` when it replays the same trace (a change of other filters keeps the position and the queue: ADR 0055). */
  resumeFrom(previous: CapacityTraceLink | undefined): this {
    if (previous === undefined || previous.trace !== this.trace) return this;
    this.startMs = previous.startMs;
    this.cursor = previous.cursor;
    this.leftBytes = previous.leftBytes;
    for (let i = 0; i < Math.min(previous.count, this.queueFrames); i++) this.deliveries[i] = previous.deliveries[(previous.head + i) % previous.queueFrames] as number;
    this.count = Math.min(previous.count, this.queueFrames);
    return this;
  }

  /** Where in the trace `nowMs` is, in ms from the start of its loop (undefined before the first frame). */
  positionMs(nowMs: number): number | undefined {
    return this.startMs === undefined ? undefined : Math.max(0, nowMs - this.startMs) % this.trace.periodMs;
  }

  /** Where it stands, as plain data (a node moving to another thread, ADR 0069); undefined before its first frame. */
  state(): CapacityLinkState | undefined {
    if (this.startMs === undefined) return undefined;
    const deliveriesMs: number[] = [];
    for (let i = 0; i < this.count; i++) deliveriesMs.push(this.deliveries[(this.head + i) % this.queueFrames] as number);
    const { opportunitiesMs, periodMs } = this.trace;
    return { startMs: this.startMs, cursor: this.cursor, leftBytes: this.leftBytes, deliveriesMs, periodMs, opportunities: opportunitiesMs.length };
  }

  /**
   * Goes on from where a link replaying the same trace stood elsewhere (its `state()`). A state of
   * another trace (its period or length differs), or whose values are not a position, is left out:
   * the link then starts afresh at its next frame, as it did before states were carried. Frames
   * waiting beyond this link's queue bound are not counted (their frames were held, and are sent, as
   * the delay lines carried them).
   */
  takeUp(state: CapacityLinkState): this {
    const { opportunitiesMs, periodMs } = this.trace;
    if (state.periodMs !== periodMs || state.opportunities !== opportunitiesMs.length) return this;
    if (!Number.isFinite(state.startMs) || !Number.isSafeInteger(state.cursor) || state.cursor < -1) return this;
    if (!Number.isInteger(state.leftBytes) || state.leftBytes < 0 || state.leftBytes > OPPORTUNITY_BYTES || !Array.isArray(state.deliveriesMs)) return this;
    const waiting = state.deliveriesMs.slice(0, this.queueFrames);
    if (!waiting.every((t, i) => Number.isFinite(t) && (i === 0 || t >= (waiting[i - 1] as number)))) return this;
    this.startMs = state.startMs;
    this.cursor = state.cursor;
    this.leftBytes = state.leftBytes;
    this.head = 0;
    this.count = waiting.length;
    waiting.forEach((t, i) => (this.deliveries[i] = t));
    return this;
  }

  /** Frames waiting (admitted, not delivered by `nowMs`). */
  waiting(nowMs: number): number {
    this.expire(nowMs);
    return this.count;
  }

  private timeOf(k: number): number {
    const n = this.trace.opportunitiesMs.length;
    return (this.startMs as number) + Math.floor(k / n) * this.trace.periodMs + (this.trace.opportunitiesMs[k % n] as number);
  }

  /** The first opportunity strictly after `nowMs`. */
  private firstAfter(nowMs: number): number {
    const { opportunitiesMs, periodMs } = this.trace;
    const n = opportunitiesMs.length;
    const since = nowMs - (this.startMs as number);
    const loop = Math.floor(since / periodMs);
    const i = upperBound(opportunitiesMs, since - loop * periodMs);
    return i < n ? loop * n + i : (loop + 1) * n + upperBound(opportunitiesMs, since - (loop + 1) * periodMs);
  }

  private expire(nowMs: number): void {
    while (this.count > 0 && (this.deliveries[this.head] as number) <= nowMs) {
      this.head = (this.head + 1) % this.queueFrames;
      this.count--;
    }
  }

  /** How long from now until the frame is delivered, in ms; undefined when the queue is full (dropped). */
  admit(frameBytes: number, nowMs: number): number | undefined {
    this.expire(nowMs);
    if (this.count >= this.queueFrames) return undefined;
    if (this.startMs === undefined) this.startMs = nowMs;
    let k: number;
    let left: number;
    if (this.cursor >= 0 && this.timeOf(this.cursor) > nowMs) {
      // The opportunity the frame before ends in is still to come: this frame waits then too.
      k = this.leftBytes > 0 ? this.cursor : this.cursor + 1;
      left = this.leftBytes > 0 ? this.leftBytes : OPPORTUNITY_BYTES;
    } else {
      k = this.firstAfter(nowMs);
      left = OPPORTUNITY_BYTES;
    }
    let remaining = Math.max(1, frameBytes - ETHERNET_HEADER_BYTES);
    for (;;) {
      const used = Math.min(left, remaining);
      remaining -= used;
      left -= used;
      if (remaining === 0) break;
      k++;
      left = OPPORTUNITY_BYTES;
    }
    this.cursor = k;
    this.leftBytes = left;
    const at = this.timeOf(k);
    this.deliveries[(this.head + this.count) % this.queueFrames] = at;
    this.count++;
    this.lastWaitMs = at - nowMs;
    return at - nowMs;
  }
}

/**
 * A capacity trace link's position, as plain data (ADR 0069, 0103): its t=0 and its waiting frames'
 * delivery times on the Clock port's scale (epoch ms, the same in every thread), the opportunity the
 * last frame ended in (loop × opportunities + line) and the bytes left in it. `periodMs` and
 * `opportunities` name the trace it stands in, so that it is taken up only by a link of the same trace.
 */
export interface CapacityLinkState {
  readonly startMs: number;
  readonly cursor: number;
  readonly leftBytes: number;
  readonly deliveriesMs: readonly number[];
  readonly periodMs: number;
  readonly opportunities: number;
}

/** A value trace played from the first frame that asks (ADR 0103). */
export class ValueTracePlayer {
  private startMs: number | undefined;

  constructor(readonly trace: ValueTrace) {}

  resumeFrom(previous: ValueTracePlayer | undefined): this {
    if (previous !== undefined && previous.trace === this.trace) this.startMs = previous.startMs;
    return this;
  }

  /** When it started, on the Clock port's scale (undefined before the first frame): what a node moving to another thread takes along. */
  get startedAtMs(): number | undefined {
    return this.startMs;
  }

  /** Goes on from a start elsewhere (a finite time; anything else is left out and it starts at its next frame). */
  takeUp(startMs: number): this {
    if (typeof startMs === "number" && Number.isFinite(startMs)) this.startMs = startMs;
    return this;
  }

  valueAt(nowMs: number): number {
    if (this.startMs === undefined) this.startMs = nowMs;
    return valueAt(this.trace, nowMs - this.startMs);
  }

  positionMs(nowMs: number): number | undefined {
    if (this.startMs === undefined) return undefined;
    const t = Math.max(0, nowMs - this.startMs);
    return this.trace.periodMs === undefined ? t : t % this.trace.periodMs;
  }
}

/** Where a direction's replayed traces stand (ADR 0103): each trace's name and position in its loop, in ms. */
export interface TraceReading {
  readonly capacity?: { readonly name: string; readonly positionMs: number; readonly waitingFrames: number };
  readonly delay?: { readonly name: string; readonly positionMs: number; readonly value: number };
  readonly loss?: { readonly name: string; readonly positionMs: number; readonly value: number };
}

/** Whether two traces are the same value (a copy that crossed to a worker is the trace it was copied from). */
export function sameTrace(a: Trace, b: Trace): boolean {
  if (a === b) return true;
  const same = (x: readonly number[], y: readonly number[]): boolean => x.length === y.length && x.every((v, i) => v === y[i]);
  if (a.kind === "capacity") return b.kind === "capacity" && a.periodMs === b.periodMs && same(a.opportunitiesMs, b.opportunitiesMs);
  return b.kind === "values" && a.periodMs === b.periodMs && same(a.atMs, b.atMs) && same(a.values, b.values);
}
