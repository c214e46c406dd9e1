import * as E from "fp-ts/lib/Either.js";
import { FILTER_KINDS, type FilterKind, type IntParameter, descriptorOf, isFilterKind } from "./catalogue.js";

/**
 * Validated filter settings of one link end. Only kinds that are "on" appear; values are in
 * the catalogue's bounds. The bpf entry keeps the lines as given (one expression per line).
 */
export interface FilterSettings {
  readonly frequency_drop?: readonly [number];
  readonly packet_loss?: readonly [number];
  readonly delay?: readonly [number] | readonly [number, number];
  readonly corrupt?: readonly [number];
  readonly bpf?: readonly string[];
}

export const NO_FILTERS: FilterSettings = Object.freeze({});

export interface InvalidFilterSettings {
  readonly _tag: "InvalidFilterSettings";
  readonly message: string;
}

const invalid = (message: string): E.Either<InvalidFilterSettings, never> =>
  E.left({ _tag: "InvalidFilterSettings", message });

/** Checks a bpf expression text; supplied by the BPF compiler once it is wired in. */
export type BpfCheck = (lines: readonly string[]) => E.Either<string, unknown>;

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

function describeValue(v: unknown): string {
  if (v === null) return "null";
  if (typeof v === "string") return JSON.stringify(v);
  if (typeof v === "object") return Array.isArray(v) ? "an array" : "an object";
  return String(v);
}

function checkInt(kind: FilterKind, p: IntParameter, v: unknown): InvalidFilterSettings | undefined {
  const bounds = `an integer between ${p.minimum} and ${p.maximum} ${p.unit}`;
  if (typeof v !== "number" || !Number.isInteger(v)) {
    return { _tag: "InvalidFilterSettings", message: `Filter ${kind}: ${p.name} must be ${bounds}, got ${describeValue(v)}` };
  }
  if (v < p.minimum || v > p.maximum) {
    return { _tag: "InvalidFilterSettings", message: `Filter ${kind}: ${p.name} must be ${bounds}, got ${v}` };
  }
  return undefined;
}

/** Normalises then validates a `filters` object against the catalogue. */
export function parseFilterSettings(
  raw: unknown,
  bpfCheck?: BpfCheck,
): E.Either<InvalidFilterSettings, FilterSettings> {
  if (typeof raw !== "object" || raw === null || Array.isArray(raw)) {
    return invalid(`filters must be an object mapping a filter type to its values, got ${describeValue(raw)}`);
  }
  const normalised = normaliseFilters(raw as Record<string, unknown>);
  const settings: Record<string, readonly unknown[]> = {};
  for (const [name, values] of Object.entries(normalised)) {
    if (!isFilterKind(name)) {
      return invalid(`Unknown filter type '${name}'; the filter types are ${FILTER_KINDS.join(", ")}`);
    }
    if (!Array.isArray(values)) {
      return invalid(`Filter ${name}: the values must be a list, got ${describeValue(values)}`);
    }
    const descriptor = descriptorOf(name);
    if (name === "bpf") {
      const bad = values.find((v) => typeof v !== "string");
      if (bad !== undefined) return invalid(`Filter bpf: Filters must be text, got ${describeValue(bad)}`);
      const lines = (values as string[]).flatMap((v) => v.split("\n")).map((l) => l.trim()).filter((l) => l !== "");
      if (bpfCheck !== undefined) {
        const checked = bpfCheck(lines);
        if (E.isLeft(checked)) return invalid(checked.left);
      }
      settings[name] = values as string[];
      continue;
    }
    const params = descriptor.parameters as readonly IntParameter[];
    // delay's jitter may be left out (uBridge takes 1 or 2 values); every other kind takes exactly its parameters.
    const minCount = name === "delay" ? 1 : params.length;
    if (values.length < minCount || values.length > params.length) {
      const expected = minCount === params.length ? `${params.length}` : `${minCount} or ${params.length}`;
      const names = params.map((p) => p.name).join(", ");
      return invalid(`Filter ${name} takes ${expected} value(s) (${names}), got ${values.length}`);
    }
    for (let i = 0; i < values.length; i++) {
      const error = checkInt(name, params[i] as IntParameter, values[i]);
      if (error !== undefined) return E.left(error);
    }
    settings[name] = values;
  }
  return E.right(settings as FilterSettings);
}

export function filtersAreEmpty(settings: FilterSettings): boolean {
  return Object.keys(settings).length === 0;
}

/** The expression lines of a bpf entry: one per non-blank line of its text items. */
export function bpfLines(settings: FilterSettings): string[] {
  return (settings.bpf ?? []).flatMap((v) => v.split("\n")).map((l) => l.trim()).filter((l) => l !== "");
}
