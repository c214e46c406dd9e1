import * as E from "fp-ts/lib/Either.js";
import { type ArmedSchedule, parseSchedule } from "../../domain/filters/schedule.js";
import type { InvalidFilterSettings } from "../../domain/filters/filter-settings.js";
import { type InvalidConfiguration, invalidConfiguration } from "../../domain/configuration/invalid-configuration.js";
import type { FilterPrograms } from "../filter-programs.js";

/**
 * A schedule given at a door (a link end's `schedule`, a NIO's `schedule_in`/`schedule_out`: ADR 0102),
 * parsed, its steps' expressions compiled, and armed at `nowMs`. Refused when the same direction is also
 * given fixed filters (`other` names them): which would run? Nothing is changed by a refusal.
 */
export async function parseArmedSchedule(
  raw: unknown,
  field: string,
  fixedGiven: { readonly given: boolean; readonly field: string },
  programs: FilterPrograms,
  nowMs: number,
): Promise<E.Either<InvalidConfiguration | InvalidFilterSettings, ArmedSchedule>> {
  if (fixedGiven.given) return E.left(invalidConfiguration(field, { rule: "exclusive_with", other: fixedGiven.field }, raw));
  const parsed = parseSchedule(raw, field);
  if (E.isLeft(parsed)) return parsed;
  for (const [index, step] of parsed.right.steps.entries()) {
    const compiled = await programs.check(step.filters, `${field}.steps[${index}].filters`);
    if (E.isLeft(compiled)) return compiled;
  }
  return E.right(Object.freeze({ schedule: parsed.right, setAtMs: nowMs }));
}
