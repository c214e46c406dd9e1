import * as E from "fp-ts/lib/Either.js";
import { DELAY_DISTRIBUTIONS, type DelayDistribution, type FilterKind, type IntParameter, descriptorOf, isFilterKind } from "./catalogue.js";

/**
 * Validated filter settings of one link end. Only kinds that are "on" appear; values are in
 * the catalogue's bounds. The bpf entry keeps the lines as given (one expression per line).
 */
export type FilterSettings = {
  readonly frequency_drop?: readonly [number];
  readonly packet_loss?: readonly [number];
  readonly delay?: readonly [number] | readonly [number, number];
  readonly corrupt?: readonly [number];
  readonly bpf?: readonly string[];
  /** kbit/s and, optionally, the queue bound in ms. */
  readonly bandwidth?: readonly [number] | readonly [number, number];
  /** p and r, optionally the loss when bad and when good, in %. */
  readonly burst_loss?: readonly [number, number] | readonly [number, number, number] | readonly [number, number, number, number];
  readonly duplicate?: readonly [number];
  readonly reorder?: readonly [number];
  readonly delay_distribution?: readonly [DelayDistribution];
  /** ρ in %: each frame's jitter draw follows the previous one's. */
  readonly delay_correlation?: readonly [number];
  /** ρ in %: packet_loss (corrupt, duplicate, reorder) follows the previous frame's fate. */
  readonly loss_correlation?: readonly [number];
  readonly corrupt_correlation?: readonly [number];
  readonly duplicate_correlation?: readonly [number];
  readonly reorder_correlation?: readonly [number];
  /** pcap-filter expressions: the other filters act only on frames matching one of them. */
  readonly match?: readonly string[];
};

export const NO_FILTERS: FilterSettings = Object.freeze({});

/**
 * A link end's filters as a client sends them: filter kind → values (`{"delay": [50, 5]}`), not yet
 * checked against the catalogue (parseFilterSettings does that, and says what is wrong).
 */
export type RawFilterSettings = Readonly<Record<string, unknown>>;

/** Which line of a bpf filter did not compile (1-based), and the compiler's message. */
export interface BpfLineError {
  readonly line: number;
  readonly message: string;
}

/** What is wrong with a `filters` object, as data; the HTTP adapter words it. */
export type FilterProblem =
  | { readonly problem: "not_an_object"; readonly got: unknown }
  | { readonly problem: "unknown_kind"; readonly kind: string }
  | { readonly problem: "not_a_list"; readonly kind: FilterKind; readonly got: unknown }
  | { readonly problem: "bpf_not_text"; readonly kind: TextLinesKind; readonly got: unknown }
  | { readonly problem: "bpf_invalid"; readonly kind: TextLinesKind; readonly line: number; readonly message: string }
  | { readonly problem: "not_a_distribution"; readonly got: unknown }
  | { readonly problem: "value_count"; readonly kind: FilterKind; readonly parameters: readonly IntParameter[]; readonly minimum: number; readonly got: number }
  | { readonly problem: "not_an_integer" | "out_of_range"; readonly kind: FilterKind; readonly parameter: IntParameter; readonly got: unknown };

export interface InvalidFilterSettings {
  readonly _tag: "InvalidFilterSettings";
  readonly problem: FilterProblem;
}

/** The kinds whose values are pcap-filter expressions, one per line. */
type TextLinesKind = "bpf" | "match";

const invalid = (problem: FilterProblem): E.Either<InvalidFilterSettings, never> => E.left({ _tag: "InvalidFilterSettings", problem });

/** Checks the lines of a bpf filter; the BPF compiler, wired in by the composition root. */
export type BpfCheck = (lines: readonly string[]) => E.Either<BpfLineError, unknown>;

/**
 * GNS3's normalisation (Link.update_filters): string items are stripped of spaces and newlines;
 * an entry whose list is empty or whose first item is 0 or "" is "off" and dropped. Unlike GNS3
 * nothing is coerced: a float, a boolean or null stays what it is and fails validation below.
 */
export function normaliseFilters(raw: Readonly<Record<string, unknown>>): Record<string, unknown> {
  const kept: Record<string, unknown> = {};
  for (const [name, values] of Object.entries(raw)) {
    if (!Array.isArray(values)) {
      kept[name] = values;
      continue;
    }
    const items = values.map((v: unknown) => (typeof v === "string" ? v.replace(/^[ \n]+|[ \n]+$/g, "") : v));
    if (items.length === 0 || items[0] === 0 || items[0] === "") continue;
    kept[name] = items;
  }
  return kept;
}

function checkInt(kind: FilterKind, parameter: IntParameter, v: unknown): InvalidFilterSettings | undefined {
  if (typeof v !== "number" || !Number.isInteger(v)) return { _tag: "InvalidFilterSettings", problem: { problem: "not_an_integer", kind, parameter, got: v } };
  if (v < parameter.minimum || v > parameter.maximum) return { _tag: "InvalidFilterSettings", problem: { problem: "out_of_range", kind, parameter, got: v } };
  return undefined;
}

const MINIMUM_VALUES: Partial<Record<FilterKind, number>> = { delay: 1, bandwidth: 1, burst_loss: 2 };

/** Normalises then validates a `filters` object against the catalogue. */
export function parseFilterSettings(
  raw: unknown,
  bpfCheck?: BpfCheck,
): E.Either<InvalidFilterSettings, FilterSettings> {
  if (typeof raw !== "object" || raw === null || Array.isArray(raw)) {
    return invalid({ problem: "not_an_object", got: raw });
  }
  const normalised = normaliseFilters(raw as Record<string, unknown>);
  const settings: Record<string, readonly unknown[]> = {};
  for (const [name, values] of Object.entries(normalised)) {
    if (!isFilterKind(name)) {
      return invalid({ problem: "unknown_kind", kind: name });
    }
    if (!Array.isArray(values)) {
      return invalid({ problem: "not_a_list", kind: name, got: values });
    }
    const descriptor = descriptorOf(name);
    if (name === "bpf" || name === "match") {
      const bad = values.find((v) => typeof v !== "string");
      if (bad !== undefined) return invalid({ problem: "bpf_not_text", kind: name, got: bad });
      const lines = (values as string[]).flatMap((v) => v.split("\n")).map((l) => l.trim()).filter((l) => l !== "");
      if (bpfCheck !== undefined) {
        const checked = bpfCheck(lines);
        if (E.isLeft(checked)) return invalid({ problem: "bpf_invalid", kind: name, line: checked.left.line, message: checked.left.message });
      }
      settings[name] = values as string[];
      continue;
    }
    if (name === "delay_distribution") {
      const [choice] = values as unknown[];
      if (values.length !== 1 || !(DELAY_DISTRIBUTIONS as readonly unknown[]).includes(choice)) return invalid({ problem: "not_a_distribution", got: values.length === 1 ? choice : values });
      settings[name] = values;
      continue;
    }
    const params = descriptor.parameters as readonly IntParameter[];
    // Trailing parameters with a default may be left out: delay's jitter (uBridge takes 1 or 2 values),
    // bandwidth's queue, burst_loss's losses per state; every other kind takes exactly its parameters.
    const minCount = MINIMUM_VALUES[name] ?? params.length;
    if (values.length < minCount || values.length > params.length) {
      return invalid({ problem: "value_count", kind: name, parameters: params, minimum: minCount, got: values.length });
    }
    for (let i = 0; i < values.length; i++) {
      const error = checkInt(name, params[i] as IntParameter, values[i]);
      if (error !== undefined) return E.left(error);
    }
    settings[name] = values;
  }
  return E.right(settings as FilterSettings);
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
