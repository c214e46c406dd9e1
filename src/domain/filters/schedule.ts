import * as E from "fp-ts/lib/Either.js";
import { type FilterSettings, type InvalidFilterSettings, NO_FILTERS, filterSettingsEqual, parseFilterSettings, renderFilterSettings } from "./filter-settings.js";
import { type InvalidConfiguration, fieldOf, invalidConfiguration, itemOf } from "../configuration/invalid-configuration.js";
import { isPlainObject, own, readArray, readBoolean, readChoice } from "../configuration/read.js";

/**
 * A direction's impairments as a function of time (ADR 0102): which filter set is active at t, and
 * when the next one begins. Pure: the time is given; the timers that act on it live in an adapter.
 *
 * Two forms, one canonical value:
 * - **steps** at given times (`t=0: delay 20; t=30: loss 5`), played once (the last stays) or looping
 *   every `period`;
 * - **windows** inside a `period` ("down for 2 s every 10 s"), with `base` outside them, looping, or
 *   played `once` (then `base` stays).
 * Both are kept as the steps they make (`steps`, at whole milliseconds), so one rule answers both.
 */
export type ScheduleStart = "set" | "first_frame";
export const SCHEDULE_STARTS: readonly ScheduleStart[] = ["set", "first_frame"];

export interface ScheduleStep {
  /** Milliseconds from the start of the period (or of the schedule, when it does not loop). */
  readonly atMs: number;
  readonly filters: FilterSettings;
}

export interface ScheduleWindow {
  readonly atMs: number;
  readonly forMs: number;
  readonly filters: FilterSettings;
}

/** The schedule as it was set: the form the user wrote, parsed. */
export type ScheduleForm =
  | { readonly form: "steps"; readonly steps: readonly ScheduleStep[] }
  | { readonly form: "windows"; readonly windows: readonly ScheduleWindow[]; readonly base: FilterSettings };

export interface Schedule {
  readonly start: ScheduleStart;
  readonly given: ScheduleForm;
  /** Loops every periodMs when set; plays once otherwise. */
  readonly periodMs?: number;
  /** The steps the form makes, ascending; the first at 0 (a windows schedule's step 0 is its base, possibly lasting no time). */
  readonly steps: readonly ScheduleStep[];
  /** Where a schedule that played once stays: its last step, or a windows schedule's base (step 0). */
  readonly finalStep: number;
  /** When the schedule has played out (a once windows schedule); undefined when it never ends or its last step stays. */
  readonly endsAtMs?: number;
}

/** Bounds of a schedule: far above a lab's, low enough that a step lookup stays cheap. */
export const SCHEDULE_LIMITS = {
  steps: 1_000,
  /** About 31 years: a time beyond is a mistake, and its milliseconds stay exact in a double. */
  maxSeconds: 1_000_000_000,
} as const;

type Parsed<A> = E.Either<InvalidConfiguration | InvalidFilterSettings, A>;

const SCHEDULE_KEYS = ["start", "steps", "windows", "period", "base", "once"] as const;

/** A time in seconds (decimals allowed) as whole milliseconds. */
function readSeconds(raw: unknown, field: string, positive: boolean): E.Either<InvalidConfiguration, number> {
  if (typeof raw !== "number" || !Number.isFinite(raw)) return E.left(invalidConfiguration(field, { rule: "type", expected: "number" }, raw));
  if (raw < 0 || (positive && raw === 0)) return E.left(invalidConfiguration(field, { rule: positive ? "exclusive_minimum" : "minimum", limit: 0 }, raw));
  if (raw > SCHEDULE_LIMITS.maxSeconds) return E.left(invalidConfiguration(field, { rule: "maximum", limit: SCHEDULE_LIMITS.maxSeconds }, raw));
  const ms = Math.round(raw * 1000);
  if (positive && ms === 0) return E.left(invalidConfiguration(field, { rule: "exclusive_minimum", limit: 0 }, raw));
  return E.right(ms);
}

function readItems(raw: unknown, field: string): E.Either<InvalidConfiguration, readonly Readonly<Record<string, unknown>>[]> {
  const list = readArray(raw, field, SCHEDULE_LIMITS.steps);
  if (E.isLeft(list)) return list;
  if (list.right.length === 0) return E.left(invalidConfiguration(field, { rule: "min_items", limit: 1 }, list.right.length));
  for (let i = 0; i < list.right.length; i++) {
    const item = list.right[i];
    if (!isPlainObject(item)) return E.left(invalidConfiguration(itemOf(field, i), { rule: "type", expected: "object" }, item));
  }
  return E.right(list.right as readonly Readonly<Record<string, unknown>>[]);
}

function unknownKey(object: Readonly<Record<string, unknown>>, allowed: readonly string[], field: string): InvalidConfiguration | undefined {
  for (const key of Object.keys(object)) if (!allowed.includes(key)) return invalidConfiguration(fieldOf(field, key), { rule: "unknown_field", allowed }, own(object, key));
  return undefined;
}

function readFilters(raw: unknown, field: string): E.Either<InvalidFilterSettings, FilterSettings> {
  return raw === undefined ? E.right(NO_FILTERS) : parseFilterSettings(raw, field);
}

function parseSteps(raw: unknown, field: string): Parsed<ScheduleStep[]> {
  const items = readItems(raw, field);
  if (E.isLeft(items)) return items;
  const steps: ScheduleStep[] = [];
  for (let i = 0; i < items.right.length; i++) {
    const item = items.right[i] as Readonly<Record<string, unknown>>;
    const at = itemOf(field, i);
    const extra = unknownKey(item, ["at", "filters"], at);
    if (extra !== undefined) return E.left(extra);
    if (own(item, "at") === undefined) return E.left(invalidConfiguration(fieldOf(at, "at"), { rule: "required" }, undefined));
    const atMs = readSeconds(own(item, "at"), fieldOf(at, "at"), false);
    if (E.isLeft(atMs)) return atMs;
    if (i === 0 && atMs.right !== 0) return E.left(invalidConfiguration(fieldOf(at, "at"), { rule: "first_at_zero" }, own(item, "at")));
    const previous = steps[i - 1];
    if (previous !== undefined && atMs.right <= previous.atMs) return E.left(invalidConfiguration(fieldOf(at, "at"), { rule: "ascending", after: fieldOf(itemOf(field, i - 1), "at") }, own(item, "at")));
    const filters = readFilters(own(item, "filters"), fieldOf(at, "filters"));
    if (E.isLeft(filters)) return filters;
    steps.push(Object.freeze({ atMs: atMs.right, filters: filters.right }));
  }
  return E.right(steps);
}

function parseWindows(raw: unknown, field: string, periodMs: number, periodField: string, periodGiven: unknown): Parsed<ScheduleWindow[]> {
  const items = readItems(raw, field);
  if (E.isLeft(items)) return items;
  const windows: ScheduleWindow[] = [];
  for (let i = 0; i < items.right.length; i++) {
    const item = items.right[i] as Readonly<Record<string, unknown>>;
    const at = itemOf(field, i);
    const extra = unknownKey(item, ["at", "for", "filters"], at);
    if (extra !== undefined) return E.left(extra);
    const atMs = own(item, "at") === undefined ? E.right(0) : readSeconds(own(item, "at"), fieldOf(at, "at"), false);
    if (E.isLeft(atMs)) return atMs;
    if (own(item, "for") === undefined) return E.left(invalidConfiguration(fieldOf(at, "for"), { rule: "required" }, undefined));
    const forMs = readSeconds(own(item, "for"), fieldOf(at, "for"), true);
    if (E.isLeft(forMs)) return forMs;
    if (atMs.right + forMs.right > periodMs) return E.left(invalidConfiguration(at, { rule: "inside_period", period: periodField, periodSeconds: periodGiven as number }, { at: own(item, "at") ?? 0, for: own(item, "for") }));
    const previous = windows[i - 1];
    if (previous !== undefined && atMs.right < previous.atMs + previous.forMs) return E.left(invalidConfiguration(fieldOf(at, "at"), { rule: "after_window", window: itemOf(field, i - 1) }, own(item, "at") ?? 0));
    const filters = readFilters(own(item, "filters"), fieldOf(at, "filters"));
    if (E.isLeft(filters)) return filters;
    windows.push(Object.freeze({ atMs: atMs.right, forMs: forMs.right, filters: filters.right }));
  }
  return E.right(windows);
}

/** The steps windows make: the base at 0, then each window and the base again after it (none lasting no time but step 0). */
function stepsOfWindows(windows: readonly ScheduleWindow[], base: FilterSettings, periodMs: number): ScheduleStep[] {
  const steps: ScheduleStep[] = [{ atMs: 0, filters: base }];
  for (const w of windows) {
    const last = steps[steps.length - 1] as ScheduleStep;
    // A window right after another (or at 0) replaces the base step that would last no time.
    if (last.atMs === w.atMs && steps.length > 1) steps.pop();
    steps.push({ atMs: w.atMs, filters: w.filters });
    if (w.atMs + w.forMs < periodMs) steps.push({ atMs: w.atMs + w.forMs, filters: base });
  }
  return steps.map((s) => Object.freeze(s));
}

/**
 * The one parse of a schedule, at every door (HTTP, `netemu impair`, lab files, the impairments file,
 * the embedding API). `field` names where it was (`schedule_in`, `links[2].schedule_out`): each
 * refusal names the field at fault and the rule it breaks; nothing is half-parsed.
 */
export function parseSchedule(raw: unknown, field: string): Parsed<Schedule> {
  if (!isPlainObject(raw)) return E.left(invalidConfiguration(field, { rule: "type", expected: "object" }, raw));
  const extra = unknownKey(raw, SCHEDULE_KEYS, field);
  if (extra !== undefined) return E.left(extra);
  const startRaw = own(raw, "start");
  const start = startRaw === undefined ? E.right<InvalidConfiguration, ScheduleStart>("set") : readChoice(startRaw, fieldOf(field, "start"), SCHEDULE_STARTS);
  if (E.isLeft(start)) return start;
  const stepsRaw = own(raw, "steps");
  const windowsRaw = own(raw, "windows");
  const periodRaw = own(raw, "period");
  const period = periodRaw === undefined ? E.right(undefined) : readSeconds(periodRaw, fieldOf(field, "period"), true);
  if (E.isLeft(period)) return period;
  const onceRaw = own(raw, "once");
  const once = onceRaw === undefined ? E.right(false) : readBoolean(onceRaw, fieldOf(field, "once"));
  if (E.isLeft(once)) return once;
  if (stepsRaw !== undefined && windowsRaw !== undefined) return E.left(invalidConfiguration(fieldOf(field, "windows"), { rule: "exclusive_with", other: fieldOf(field, "steps") }, windowsRaw));
  if (stepsRaw === undefined && windowsRaw === undefined) return E.left(invalidConfiguration(fieldOf(field, "steps"), { rule: "required" }, undefined));
  if (stepsRaw !== undefined) {
    if (own(raw, "base") !== undefined) return E.left(invalidConfiguration(fieldOf(field, "base"), { rule: "only_with", other: fieldOf(field, "windows") }, own(raw, "base")));
    // Steps without a period play once already: `once` belongs to windows.
    if (onceRaw !== undefined) return E.left(invalidConfiguration(fieldOf(field, "once"), { rule: "only_with", other: fieldOf(field, "windows") }, onceRaw));
    const steps = parseSteps(stepsRaw, fieldOf(field, "steps"));
    if (E.isLeft(steps)) return steps;
    const last = steps.right[steps.right.length - 1] as ScheduleStep;
    if (period.right !== undefined && last.atMs >= period.right) {
      return E.left(invalidConfiguration(fieldOf(itemOf(fieldOf(field, "steps"), steps.right.length - 1), "at"), { rule: "inside_period", period: fieldOf(field, "period"), periodSeconds: periodRaw as number }, last.atMs / 1000));
    }
    const frozen = Object.freeze(steps.right);
    return E.right(Object.freeze({ start: start.right, given: Object.freeze({ form: "steps" as const, steps: frozen }), ...(period.right === undefined ? {} : { periodMs: period.right }), steps: frozen, finalStep: frozen.length - 1 }));
  }
  if (period.right === undefined) return E.left(invalidConfiguration(fieldOf(field, "period"), { rule: "required" }, undefined));
  const base = readFilters(own(raw, "base"), fieldOf(field, "base"));
  if (E.isLeft(base)) return base;
  const windows = parseWindows(windowsRaw, fieldOf(field, "windows"), period.right, fieldOf(field, "period"), periodRaw);
  if (E.isLeft(windows)) return windows;
  const steps = Object.freeze(stepsOfWindows(windows.right, base.right, period.right));
  return E.right(
    Object.freeze({
      start: start.right,
      given: Object.freeze({ form: "windows" as const, windows: Object.freeze(windows.right), base: base.right }),
      ...(once.right ? { endsAtMs: period.right } : { periodMs: period.right }),
      steps,
      finalStep: 0,
    }),
  );
}

/** Which step is active `elapsedMs` after the schedule's start, and how long until the next begins (undefined: never). */
export interface ActiveStep {
  readonly step: number;
  readonly filters: FilterSettings;
  readonly nextInMs: number | undefined;
}

/** The step active at `elapsedMs` (before the start, step 0: a schedule waiting for its start runs its first step). */
export function activeStep(schedule: Schedule, elapsedMs: number): ActiveStep {
  const t = Math.max(0, elapsedMs);
  const { steps } = schedule;
  if (schedule.endsAtMs !== undefined && t >= schedule.endsAtMs) {
    return { step: schedule.finalStep, filters: (steps[schedule.finalStep] as ScheduleStep).filters, nextInMs: undefined };
  }
  const inPeriod = schedule.periodMs === undefined ? t : t % schedule.periodMs;
  // Binary search: the last step at or before inPeriod.
  let lo = 0;
  let hi = steps.length - 1;
  while (lo < hi) {
    const mid = (lo + hi + 1) >> 1;
    if ((steps[mid] as ScheduleStep).atMs <= inPeriod) lo = mid;
    else hi = mid - 1;
  }
  const next = steps[lo + 1];
  const endOfCycle = schedule.periodMs ?? schedule.endsAtMs;
  const nextAt = next !== undefined ? next.atMs : endOfCycle;
  const nextInMs = nextAt === undefined ? undefined : nextAt - inPeriod;
  return { step: lo, filters: (steps[lo] as ScheduleStep).filters, nextInMs };
}

/** The schedule as it was given, in its wire form (seconds): what answers, lab files and the impairments file show. */
export function renderSchedule(schedule: Schedule): Record<string, unknown> {
  const out: Record<string, unknown> = { start: schedule.start };
  if (schedule.given.form === "steps") {
    out["steps"] = schedule.given.steps.map((s) => ({ at: s.atMs / 1000, filters: renderFilterSettings(s.filters) }));
    if (schedule.periodMs !== undefined) out["period"] = schedule.periodMs / 1000;
  } else {
    out["period"] = (schedule.periodMs ?? schedule.endsAtMs ?? 0) / 1000;
    out["windows"] = schedule.given.windows.map((w) => ({ at: w.atMs / 1000, for: w.forMs / 1000, filters: renderFilterSettings(w.filters) }));
    out["base"] = renderFilterSettings(schedule.given.base);
    if (schedule.endsAtMs !== undefined) out["once"] = true;
  }
  return out;
}

/** Whether two schedules are the same value (what reconciling by value compares). */
export function scheduleEqual(a: Schedule | undefined, b: Schedule | undefined): boolean {
  if (a === b) return true;
  if (a === undefined || b === undefined) return false;
  if (a.start !== b.start || a.periodMs !== b.periodMs || a.endsAtMs !== b.endsAtMs || a.given.form !== b.given.form || a.steps.length !== b.steps.length) return false;
  return a.steps.every((s, i) => s.atMs === (b.steps[i] as ScheduleStep).atMs && filterSettingsEqual(s.filters, (b.steps[i] as ScheduleStep).filters));
}

/**
 * A schedule on a direction, with the wall-clock time it was set (ms since the epoch). A schedule that
 * starts when set counts from `setAtMs`, also after a restart (ADR 0102: time continues); one that
 * starts at the first frame counts from a time the live data plane tells, which a restart forgets.
 */
export interface ArmedSchedule {
  readonly schedule: Schedule;
  readonly setAtMs: number;
}

/** Where a direction's schedule is now: `startedAtMs` undefined while it waits for its first frame. */
export interface ScheduleState extends ActiveStep {
  readonly startedAtMs: number | undefined;
  /** The wall-clock time the next step begins (undefined: never, or not before the first frame). */
  readonly nextAtMs: number | undefined;
}

/** The state of an armed schedule at `nowMs`, counted from `startedAtMs` (a waiting schedule runs step 0 and has no next). */
export function scheduleStateAt(armed: ArmedSchedule, nowMs: number, firstFrameAtMs: number | undefined): ScheduleState {
  const startedAtMs = armed.schedule.start === "set" ? armed.setAtMs : firstFrameAtMs;
  if (startedAtMs === undefined) {
    const first = activeStep(armed.schedule, 0);
    return { ...first, nextInMs: undefined, startedAtMs, nextAtMs: undefined };
  }
  const active = activeStep(armed.schedule, nowMs - startedAtMs);
  return { ...active, startedAtMs, nextAtMs: active.nextInMs === undefined ? undefined : nowMs + active.nextInMs };
}
