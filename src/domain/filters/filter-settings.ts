import * as E from "fp-ts/lib/Either.js";
import { DELAY_DISTRIBUTIONS, FILTER_KINDS, type DelayDistribution, type FilterKind, type IntParameter, descriptorOf, isFilterKind } from "./catalogue.js";
import { CONFIGURATION_LIMITS } from "../configuration/limits.js";
import { isPlainObject } from "../configuration/read.js";
import { quantityOf, readQuantity } from "./quantity.js";
import { isTraceName } from "../traces/trace.js";
import { type QueueDisciplineProblem, type QueueDisciplineSpec, TAIL_DROP, parseQueueDiscipline } from "../queueing/queue-discipline.js";

/**
 * The values each filter kind takes, kind by kind: the one definition the filter types are mapped
 * from. Keyed by exactly the kinds of FILTER_KINDS (checked below, so a kind added there without
 * its values here fails to compile).
 */
export interface FilterValues {
  readonly frequency_drop: readonly [number];
  readonly packet_loss: readonly [number];
  /** Latency and, optionally, jitter in ms, to 0.001 (1 µs: ADR 0101). */
  readonly delay: readonly [number] | readonly [number, number];
  readonly corrupt: readonly [number];
  /** pcap-filter expressions, one per line: a frame matching one is dropped. */
  readonly bpf: readonly string[];
  /** kbit/s (to 0.001: 1 bit/s) and, optionally, the queue bound in ms (ADR 0101). */
  readonly bandwidth: readonly [number] | readonly [number, number];
  /** p and r, optionally the loss when bad and when good, in % (to 0.01: ADR 0101). */
  readonly burst_loss: readonly [number, number] | readonly [number, number, number] | readonly [number, number, number, number];
  readonly duplicate: readonly [number];
  readonly reorder: readonly [number];
  readonly delay_distribution: readonly [DelayDistribution];
  /** ρ in %: each frame's jitter draw follows the previous one's. */
  readonly delay_correlation: readonly [number];
  /** ρ in %: packet_loss (corrupt, duplicate, reorder) follows the previous frame's fate. */
  readonly loss_correlation: readonly [number];
  readonly corrupt_correlation: readonly [number];
  readonly duplicate_correlation: readonly [number];
  readonly reorder_correlation: readonly [number];
  /** pcap-filter expressions: the other filters act only on frames matching one of them. */
  readonly match: readonly string[];
  /** The bandwidth stage's queue discipline, in tc's words (ADR 0100): the items joined by spaces. */
  readonly queue_discipline: readonly string[];
  /** An uploaded capacity trace's name and, optionally, the queue bound in frames (ADR 0103). */
  readonly capacity_trace: readonly [string] | readonly [string, number];
  /** An uploaded value trace's name: the delay it adds, in ms, over time (ADR 0103). */
  readonly delay_trace: readonly [string];
  /** An uploaded value trace's name: the loss chance, in %, over time (ADR 0103). */
  readonly loss_trace: readonly [string];
}

/** Compiles only when FilterValues has exactly the kinds of FILTER_KINDS as keys. */
type SameKeys<A, B> = [A] extends [B] ? ([B] extends [A] ? true : false) : false;
type Holds<T extends true> = T;
type FilterValuesCoverEveryKind = Holds<SameKeys<keyof FilterValues, FilterKind>>;

/**
 * A link end's filters as an embedder writes them: each key one filter kind, with its values
 * (`{ delay: [50, 5], packet_loss: [1] }`), so a misspelt kind or a wrong arity fails to compile.
 * What the compiler cannot see (ranges, whether an expression compiles) parseFilterSettings checks
 * at run time, whatever the static type said: it is the truth at every door (ADR 0064).
 */
export type LinkFilters = { readonly [K in FilterKind]?: FilterValues[K] };

/**
 * Validated filter settings of one link end, or one direction of it: a value (ADR 0053). Only kinds
 * that are "on" appear, in the catalogue's order, with values in the catalogue's bounds; the text
 * kinds keep their items as given after GNS3's normalisation (which is what a client reads back).
 * Made by `parseFilterSettings`, compared by `filterSettingsEqual`. Its shape is LinkFilters': a
 * parsed value can be given back as input.
 */
export type FilterSettings = LinkFilters;

export const NO_FILTERS: FilterSettings = Object.freeze({});

/**
 * A link end's filters as a JSON client sends them: filter kind → values (`{"delay": [50, 5]}`), not
 * yet checked against the catalogue (parseFilterSettings does that, and says what is wrong).
 */
export type RawFilterSettings = Readonly<Record<string, unknown>>;

/** Which line of a bpf filter did not compile (1-based), and the compiler's message. */
export interface BpfLineError {
  readonly line: number;
  readonly message: string;
}

/** The kinds that name an uploaded trace (ADR 0103). */
export const TRACE_KINDS = ["capacity_trace", "delay_trace", "loss_trace"] as const;
export type TraceKind = (typeof TRACE_KINDS)[number];
/** capacity_trace's queue bound when left out, in frames. */
export const DEFAULT_TRACE_QUEUE_FRAMES = 1000;

/** The trace names settings refer to, by kind. */
export function traceNames(settings: FilterSettings): { readonly kind: TraceKind; readonly name: string }[] {
  const names: { kind: TraceKind; name: string }[] = [];
  for (const kind of TRACE_KINDS) {
    const name = settings[kind]?.[0];
    if (name !== undefined) names.push({ kind, name });
  }
  return names;
}

/** The kinds whose values are pcap-filter expressions, one per line. */
export type TextLinesKind = "bpf" | "match";

/** What is wrong with a `filters` object, as data; the HTTP adapter words it. */
export type FilterProblem =
  | { readonly problem: "not_an_object"; readonly got: unknown }
  | { readonly problem: "unknown_kind"; readonly kind: string }
  | { readonly problem: "not_a_list"; readonly kind: FilterKind; readonly got: unknown }
  | { readonly problem: "bpf_not_text"; readonly kind: TextLinesKind; readonly got: unknown }
  | { readonly problem: "bpf_invalid"; readonly kind: TextLinesKind; readonly line: number; readonly message: string }
  /** More expression lines (or text items) than CONFIGURATION_LIMITS.filterLines. */
  | { readonly problem: "too_many_lines"; readonly kind: TextLinesKind; readonly limit: number; readonly got: number }
  /** An expression line longer than CONFIGURATION_LIMITS.expressionLength characters. */
  | { readonly problem: "line_too_long"; readonly kind: TextLinesKind; readonly line: number; readonly limit: number; readonly got: number }
  /** More than CONFIGURATION_LIMITS.filterText characters of expressions in all. */
  | { readonly problem: "too_much_text"; readonly kind: TextLinesKind; readonly limit: number; readonly got: number }
  | { readonly problem: "not_a_distribution"; readonly got: unknown }
  /** queue_discipline's text does not read as a discipline (ADR 0100). */
  | { readonly problem: "bad_queue_discipline"; readonly detail: QueueDisciplineProblem | { readonly problem: "not_text"; readonly got: unknown } }
  | { readonly problem: "value_count"; readonly kind: FilterKind; readonly parameters: readonly IntParameter[]; readonly minimum: number; readonly got: number }
  /** A whole-number parameter (a count) given a fraction, a text or no number. */
  | { readonly problem: "not_an_integer"; readonly kind: FilterKind; readonly parameter: IntParameter; readonly got: unknown }
  /** Outside the parameter's bounds; `value` is what a text was read as, in the catalogue's unit. */
  | { readonly problem: "out_of_range"; readonly kind: FilterKind; readonly parameter: IntParameter; readonly got: unknown; readonly value?: number }
  /** A %, time or rate parameter given neither a number nor a text (null, a boolean), or NaN or an infinity. */
  | { readonly problem: "not_a_number"; readonly kind: FilterKind; readonly parameter: IntParameter; readonly got: unknown }
  /** A text that is not a number with one of the parameter's units (`unit`: the unit word found, if any) (ADR 0101). */
  | { readonly problem: "not_a_quantity"; readonly kind: FilterKind; readonly parameter: IntParameter; readonly got: string; readonly unit?: string }
  /** A trace kind's first item is not a trace name (a safe file name: ADR 0103). */
  | { readonly problem: "bad_trace_name"; readonly kind: TraceKind; readonly got: unknown }
  /** capacity_trace and bandwidth both set: two rates for one direction. */
  | { readonly problem: "two_rates" }
  /**
   * queue_discipline's codel or fq_codel with capacity_trace: the trace link is tail drop only, so
   * the discipline would be ignored; refused until it runs there (ADR 0103, 2026-11-26).
   */
  | { readonly problem: "queue_on_trace"; readonly kinds: readonly ["queue_discipline", "capacity_trace"]; readonly discipline: Exclude<QueueDisciplineSpec["kind"], "tail_drop"> }
  /** A trace named by a filter is not in the trace store (the data plane's answer: ADR 0103). */
  | { readonly problem: "unknown_trace"; readonly kind: TraceKind; readonly name: string }
  /** A trace of the other form (a capacity trace for delay_trace, a value trace for capacity_trace), or with values beyond the kind's. */
  | { readonly problem: "unfit_trace"; readonly kind: TraceKind; readonly name: string; readonly expected: string }
  /** Finer than netemu takes: more decimals than 0.01 %, 1 µs or 1 bit/s (ADR 0101). */
  | { readonly problem: "too_fine"; readonly kind: FilterKind; readonly parameter: IntParameter; readonly got: unknown };

export interface InvalidFilterSettings {
  readonly _tag: "InvalidFilterSettings";
  readonly problem: FilterProblem;
  /** The field that held them when it is not a link's or NIO's `filters` (`filters_in`, `nodes[1].filters`). */
  readonly field?: string;
}

const invalid = (problem: FilterProblem, field: string | undefined): E.Either<InvalidFilterSettings, never> =>
  E.left(field === undefined || field === "filters" ? { _tag: "InvalidFilterSettings", problem } : { _tag: "InvalidFilterSettings", problem, field });

/**
 * GNS3's normalisation (Link.update_filters) of one entry: string items are stripped of spaces and
 * newlines; an entry whose list is empty or whose first item is 0 or "" is "off" (undefined). Unlike
 * GNS3 nothing is coerced here: a boolean or null stays what it is and fails validation, a fraction or
 * a text with a unit is read at its parameter's granularity (ADR 0101).
 */
function normaliseEntry(values: readonly unknown[]): unknown[] | undefined {
  const items = values.map((v: unknown) => (typeof v === "string" ? v.replace(/^[ \n]+|[ \n]+$/g, "") : v));
  return items.length === 0 || items[0] === 0 || items[0] === "" ? undefined : items;
}

/** GNS3's normalisation of a whole `filters` object: the entries that are on, stripped. */
export function normaliseFilters(raw: Readonly<Record<string, unknown>>): Record<string, unknown> {
  const kept: Record<string, unknown> = {};
  for (const name of Object.keys(raw)) {
    const values = raw[name];
    const entry = Array.isArray(values) ? normaliseEntry(values) : values;
    if (entry !== undefined) Object.defineProperty(kept, name, { value: entry, enumerable: true, writable: true, configurable: true });
  }
  return kept;
}

/**
 * One numeric value, read at its parameter's granularity (ADR 0101): a count is a whole number; a %,
 * time or rate a number in the catalogue's unit with the decimals it takes, or a text with its unit.
 * Answers the value in the catalogue's unit, or what is wrong.
 */
function checkValue(kind: FilterKind, parameter: IntParameter, v: unknown): { readonly problem?: undefined; readonly value: number } | FilterProblem {
  const read = readQuantity(v, quantityOf(parameter.unit), parameter.minimum, parameter.maximum);
  if (read.problem === undefined) return { value: read.value };
  switch (read.problem) {
    case "out_of_range":
      return typeof v === "string" ? { problem: "out_of_range", kind, parameter, got: v, value: read.read } : { problem: "out_of_range", kind, parameter, got: v };
    case "not_a_quantity":
      return read.unit === undefined ? { problem: "not_a_quantity", kind, parameter, got: v as string } : { problem: "not_a_quantity", kind, parameter, got: v as string, unit: read.unit };
    case "not_a_number":
      return { problem: "not_a_number", kind, parameter, got: v };
    case "not_an_integer":
      return { problem: "not_an_integer", kind, parameter, got: v };
    case "too_fine":
      return { problem: "too_fine", kind, parameter, got: v };
  }
}

/** How many values a kind takes at least, where trailing ones have defaults (the others take exactly their parameters). */
export const MINIMUM_VALUES: Partial<Record<FilterKind, number>> = { delay: 1, bandwidth: 1, burst_loss: 2 };

/**
 * Checks the items of a bpf or match entry: text, within the line count and the line length. One scan
 * over the text that stops at the first line past a limit, before anything is split or trimmed.
 */
function checkText(kind: TextLinesKind, items: readonly unknown[]): FilterProblem | undefined {
  const { filterLines, expressionLength, filterText } = CONFIGURATION_LIMITS;
  if (items.length > filterLines) return { problem: "too_many_lines", kind, limit: filterLines, got: items.length };
  for (const item of items) if (typeof item !== "string") return { problem: "bpf_not_text", kind, got: item };
  let lines = 0;
  let text = 0;
  for (const item of items as readonly string[]) {
    let start = 0;
    while (start <= item.length) {
      const end = item.indexOf("\n", start);
      const stop = end < 0 ? item.length : end;
      const line = item.slice(start, stop).trim();
      if (line !== "") {
        lines++;
        if (lines > filterLines) return { problem: "too_many_lines", kind, limit: filterLines, got: countLines(items as readonly string[]) };
        if (line.length > expressionLength) return { problem: "line_too_long", kind, line: lines, limit: expressionLength, got: line.length };
        text += line.length;
        if (text > filterText) return { problem: "too_much_text", kind, limit: filterText, got: expressionLines(items as readonly string[]).reduce((n, l) => n + l.length, 0) };
      }
      if (end < 0) break;
      start = end + 1;
    }
  }
  return undefined;
}

/** The non-blank lines of text items (only for the message of a refusal, once). */
function countLines(items: readonly string[]): number {
  return expressionLines(items).length;
}

/** Checks one entry that is on; answers its values, frozen. */
function parseEntry(kind: FilterKind, values: readonly unknown[]): E.Either<FilterProblem, readonly unknown[]> {
  if (kind === "bpf" || kind === "match") {
    const problem = checkText(kind, values);
    return problem === undefined ? E.right(Object.freeze([...values])) : E.left(problem);
  }
  if (kind === "delay_distribution") {
    const [choice] = values;
    if (values.length !== 1 || !(DELAY_DISTRIBUTIONS as readonly unknown[]).includes(choice)) return E.left({ problem: "not_a_distribution", got: values.length === 1 ? choice : values });
    return E.right(Object.freeze([choice]));
  }
  if (kind === "queue_discipline") return parseQueueDisciplineEntry(values);
  if (kind === "capacity_trace" || kind === "delay_trace" || kind === "loss_trace") return parseTraceEntry(kind, values);
  const params = descriptorOf(kind).parameters as readonly IntParameter[];
  // Trailing parameters with a default may be left out: delay's jitter (uBridge takes 1 or 2 values),
  // bandwidth's queue, burst_loss's losses per state; every other kind takes exactly its parameters.
  const minCount = MINIMUM_VALUES[kind] ?? params.length;
  if (values.length < minCount || values.length > params.length) {
    return E.left({ problem: "value_count", kind, parameters: params, minimum: minCount, got: values.length });
  }
  const read: number[] = [];
  for (let i = 0; i < values.length; i++) {
    const checked = checkValue(kind, params[i] as IntParameter, values[i]);
    if (checked.problem !== undefined) return E.left(checked);
    read.push(checked.value);
  }
  return E.right(Object.freeze(read));
}

/** A trace kind's items: a trace name and, for capacity_trace, an optional queue bound in frames. */
function parseTraceEntry(kind: TraceKind, values: readonly unknown[]): E.Either<FilterProblem, readonly unknown[]> {
  const params = descriptorOf(kind).parameters;
  if (values.length > params.length) return E.left({ problem: "value_count", kind, parameters: params.filter((p): p is IntParameter => p.type === "int"), minimum: 1, got: values.length });
  const [name, queue] = values;
  if (!isTraceName(name)) return E.left({ problem: "bad_trace_name", kind, got: name });
  if (values.length === 1) return E.right(Object.freeze([name]));
  const checked = checkValue(kind, params[1] as IntParameter, queue);
  if (checked.problem !== undefined) return E.left(checked);
  return E.right(Object.freeze([name, checked.value]));
}

/** queue_discipline's items: text, joined by spaces, that reads as a discipline. */
function parseQueueDisciplineEntry(values: readonly unknown[]): E.Either<FilterProblem, readonly unknown[]> {
  const notText = values.findIndex((v) => typeof v !== "string");
  if (notText >= 0) return E.left({ problem: "bad_queue_discipline", detail: { problem: "not_text", got: values[notText] } });
  const read = parseQueueDiscipline(values.join(" "));
  return read.ok ? E.right(Object.freeze([...values])) : E.left({ problem: "bad_queue_discipline", detail: read.problem });
}

/**
 * Whether settings ask for a queue discipline the capacity trace's link cannot run (codel, fq_codel:
 * it is tail drop only), as the problem; undefined when they do not (part of directionConflict).
 */
function queueOnTrace(settings: FilterSettings | ReadonlyMap<FilterKind, readonly unknown[]>): Extract<FilterProblem, { problem: "queue_on_trace" }> | undefined {
  const get = (kind: FilterKind): readonly unknown[] | undefined => (settings instanceof Map ? settings.get(kind) : (settings as FilterSettings)[kind]);
  const items = get("queue_discipline");
  if (items === undefined || get("capacity_trace") === undefined) return undefined;
  const read = parseQueueDiscipline(items.join(" "));
  if (!read.ok || read.spec.kind === "tail_drop") return undefined;
  return { problem: "queue_on_trace", kinds: ["queue_discipline", "capacity_trace"], discipline: read.spec.kind };
}

/**
 * Kinds a direction cannot run together, as the problem (undefined when none): capacity_trace with
 * bandwidth (two rates), or with codel / fq_codel (queueOnTrace). Checked on each parsed object and on
 * what a direction runs, where kinds parsed apart meet (a NIO's `filters` under `filters_in`, a lab
 * link's under `a_to_b`, an overlay over a port's filters).
 */
export function directionConflict(settings: FilterSettings | ReadonlyMap<FilterKind, readonly unknown[]>): Extract<FilterProblem, { problem: "two_rates" | "queue_on_trace" }> | undefined {
  const has = (kind: FilterKind): boolean => (settings instanceof Map ? settings.has(kind) : (settings as FilterSettings)[kind] !== undefined);
  if (has("capacity_trace") && has("bandwidth")) return { problem: "two_rates" };
  return queueOnTrace(settings);
}

/** The queue discipline of settings that passed parseFilterSettings: tail drop when none is set. */
export function queueDisciplineOf(settings: FilterSettings): QueueDisciplineSpec {
  const items = settings.queue_discipline;
  if (items === undefined) return TAIL_DROP;
  const read = parseQueueDiscipline(items.join(" "));
  return read.ok ? read.spec : TAIL_DROP;
}

/**
 * The one parse of a `filters` object, at every door (ADR 0053): GNS3's normalisation, then each
 * entry checked against the catalogue and the limits, in one pass over the keys (the first wrong one
 * ends it). The result is canonical: the kinds that are on, in catalogue order, frozen. pcap-filter
 * expressions are checked for their size here; whether they compile is the compiler's answer
 * (the application compiles them once per distinct text). `field` names where the object was.
 */
export function parseFilterSettings(raw: unknown, field?: string): E.Either<InvalidFilterSettings, FilterSettings> {
  if (!isPlainObject(raw)) return invalid({ problem: "not_an_object", got: raw }, field);
  const parsed = new Map<FilterKind, readonly unknown[]>();
  for (const name of Object.keys(raw)) {
    if (!isFilterKind(name)) return invalid({ problem: "unknown_kind", kind: name }, field);
    const values = raw[name];
    if (!Array.isArray(values)) return invalid({ problem: "not_a_list", kind: name, got: values }, field);
    // Bounded before normalising: no kind takes more than filterLines items.
    if (values.length > CONFIGURATION_LIMITS.filterLines) {
      if (name === "bpf" || name === "match") return invalid({ problem: "too_many_lines", kind: name, limit: CONFIGURATION_LIMITS.filterLines, got: values.length }, field);
      const params = descriptorOf(name).parameters as readonly IntParameter[];
      return invalid({ problem: "value_count", kind: name, parameters: params, minimum: MINIMUM_VALUES[name] ?? params.length, got: values.length }, field);
    }
    const entry = normaliseEntry(values);
    if (entry === undefined) continue;
    const checked = parseEntry(name, entry);
    if (E.isLeft(checked)) return invalid(checked.left, field);
    // A text read as 0 ("0ms") is off, as the number 0 is (GNS3's rule, on the value read).
    if (checked.right[0] === 0) continue;
    parsed.set(name, checked.right);
  }
  const clash = directionConflict(parsed);
  if (clash !== undefined) return invalid(clash, field);
  const settings: Record<string, readonly unknown[]> = {};
  for (const kind of FILTER_KINDS) {
    const values = parsed.get(kind);
    if (values !== undefined) settings[kind] = values;
  }
  return E.right(Object.freeze(settings) as FilterSettings);
}

/** The wire form of settings (what GNS3 echoes), as a fresh plain object: parse(render(v)) equals v. */
export function renderFilterSettings(settings: FilterSettings): Record<string, unknown[]> {
  const out: Record<string, unknown[]> = {};
  for (const kind of FILTER_KINDS) {
    const values = settings[kind];
    if (values !== undefined) out[kind] = [...values];
  }
  return out;
}

/** Whether two settings are the same value: the same kinds on, with the same values (key order aside). */
export function filterSettingsEqual(a: FilterSettings, b: FilterSettings): boolean {
  if (a === b) return true;
  for (const kind of FILTER_KINDS) {
    const x = a[kind] as readonly unknown[] | undefined;
    const y = b[kind] as readonly unknown[] | undefined;
    if (x === y) continue;
    if (x === undefined || y === undefined || x.length !== y.length) return false;
    for (let i = 0; i < x.length; i++) if (x[i] !== y[i]) return false;
  }
  return true;
}

/** Whether any filter is on. */
export function hasFilters(settings: FilterSettings): boolean {
  for (const kind of FILTER_KINDS) if (settings[kind] !== undefined) return true;
  return false;
}

/** The expression lines of a bpf entry: one per non-blank line of its text items. */
export function bpfLines(settings: FilterSettings): string[] {
  return expressionLines(settings.bpf);
}

/** The expression lines of a match entry, which scopes the other filters. */
export function matchLines(settings: FilterSettings): string[] {
  return expressionLines(settings.match);
}

function expressionLines(items: readonly string[] | undefined): string[] {
  return (items ?? []).flatMap((v) => v.split("\n")).map((l) => l.trim()).filter((l) => l !== "");
}

/**
 * The canonical text of a set of expression lines: what one compiled program is keyed by, so that
 * the same expressions are compiled once however their items were split or spaced.
 */
export function expressionText(lines: readonly string[]): string {
  return lines.join("\n");
}
