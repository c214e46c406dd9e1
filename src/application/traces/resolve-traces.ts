import * as E from "fp-ts/lib/Either.js";
import type { ChainTraces } from "../../domain/filters/filter-chain.js";
import { type FilterSettings, type InvalidFilterSettings, type TraceKind, traceNames } from "../../domain/filters/filter-settings.js";
import { type Trace, largestValue } from "../../domain/traces/trace.js";
import type { TraceBook } from "../ports/trace-store.js";

/** What a kind takes: the form of trace, and the largest value (loss is a %). */
function fits(kind: TraceKind, trace: Trace): string | undefined {
  if (kind === "capacity_trace") return trace.kind === "capacity" ? undefined : "a capacity trace (Mahimahi's format: one ms per line)";
  if (trace.kind !== "values") return "a value trace (`<ms> <value>` lines)";
  if (kind === "loss_trace" && largestValue(trace) > 100) return "a loss trace (its values are % from 0 to 100)";
  return undefined;
}

/**
 * The traces settings name, looked up in `book` (ADR 0103): a name the book does not hold, or a trace
 * of the wrong form for its kind, is refused as the settings' problem, naming it.
 */
export function resolveTraces(settings: FilterSettings, book: TraceBook): E.Either<InvalidFilterSettings, ChainTraces> {
  const named = traceNames(settings);
  if (named.length === 0) return E.right({});
  const resolved: { capacity?: Trace; delay?: Trace; loss?: Trace } = {};
  for (const { kind, name } of named) {
    const trace = book.traceNamed(name);
    if (trace === undefined) return E.left({ _tag: "InvalidFilterSettings", problem: { problem: "unknown_trace", kind, name } });
    const unfit = fits(kind, trace);
    if (unfit !== undefined) return E.left({ _tag: "InvalidFilterSettings", problem: { problem: "unfit_trace", kind, name, expected: unfit } });
    resolved[kind === "capacity_trace" ? "capacity" : kind === "delay_trace" ? "delay" : "loss"] = trace;
  }
  return E.right(resolved as ChainTraces);
}

/** The named traces settings use, by name, for a sync to carry to a worker (plain data: ADR 0103). */
export function tracesUsed(settings: readonly FilterSettings[], book: TraceBook): E.Either<InvalidFilterSettings, Map<string, Trace>> {
  const used = new Map<string, Trace>();
  for (const s of settings) {
    const resolved = resolveTraces(s, book);
    if (E.isLeft(resolved)) return resolved;
    for (const { name } of traceNames(s)) used.set(name, book.traceNamed(name) as Trace);
  }
  return E.right(used);
}
