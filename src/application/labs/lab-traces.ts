import { traceNames } from "../../domain/filters/filter-settings.js";
import type { Lab } from "./lab.js";

/** Where `netemu lab save --output FILE` writes the traces a lab names: this folder beside FILE. */
export const SAVED_TRACES_FOLDER = "traces";

/**
 * The traces a lab's links name (ADR 0103): in their filters, each direction's filters and each schedule
 * step (a windows schedule's windows and base are among its steps), each name once, sorted so a saved
 * file is the same from one save to the next.
 */
export function tracesNamedBy(lab: Lab): string[] {
  const names = new Set<string>();
  for (const link of lab.links) {
    const sets = [link.filters, link.aToB, link.bToA, ...(link.aToBSchedule?.steps ?? []).map((s) => s.filters), ...(link.bToASchedule?.steps ?? []).map((s) => s.filters)];
    for (const settings of sets) for (const { name } of traceNames(settings)) names.add(name);
  }
  return [...names].sort();
}

/**
 * The lab with a `traces:` section naming each of `names` at `traces/<name>`, relative to the lab file
 * (trace names are safe file names: no slash, no leading dot). No names: the lab as it is.
 */
export function withSavedTraces(lab: Lab, names: readonly string[]): Lab {
  if (names.length === 0) return lab;
  return { ...lab, traces: Object.freeze(Object.fromEntries(names.map((n) => [n, `${SAVED_TRACES_FOLDER}/${n}`]))) };
}
