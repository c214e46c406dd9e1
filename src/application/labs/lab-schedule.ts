import * as E from "fp-ts/lib/Either.js";
import { type Schedule, parseSchedule } from "../../domain/filters/schedule.js";
import type { InvalidConfiguration } from "../../domain/configuration/invalid-configuration.js";
import type { FilterProblem } from "../../domain/filters/filter-settings.js";

type Path = readonly (string | number)[];

/** A lab file's filters allow a bare value for one parameter (`delay: 50`); the API's are lists. */
function wireFilters(raw: unknown): unknown {
  if (typeof raw !== "object" || raw === null || Array.isArray(raw)) return raw;
  return Object.fromEntries(Object.entries(raw).map(([kind, value]) => [kind, Array.isArray(value) ? value : [value]]));
}

function wireItems(raw: unknown): unknown {
  return Array.isArray(raw) ? raw.map((item) => (typeof item === "object" && item !== null && "filters" in item ? { ...item, filters: wireFilters((item as { filters: unknown }).filters) } : item)) : raw;
}

/** `a_to_b_schedule.steps[2].at` as a path under the link: ["steps", 2, "at"] after the key. */
function pathOf(field: string): (string | number)[] {
  return field
    .split(/\.|\[(\d+)\]/)
    .filter((part) => part !== undefined && part !== "")
    .map((part) => (/^\d+$/.test(part) ? Number(part) : part));
}

/** What a schedule broke, in the words of a lab file's other messages. */
function ruleText(e: InvalidConfiguration): string {
  const r = e.rule;
  switch (r.rule) {
    case "required":
      return "is required";
    case "first_at_zero":
      return "the first step must be at 0 seconds";
    case "ascending":
      return `${String(e.got)} is not after ${r.after.split(".").slice(1).join(".")}: steps go in time order`;
    case "inside_period":
      return `does not fit inside the period of ${r.periodSeconds} seconds`;
    case "after_window":
      return `begins before ${r.window.split(".").slice(1).join(".")} ends: windows go in order and do not overlap`;
    case "exclusive_minimum":
      return `${String(e.got)} must be more than 0 seconds`;
    case "minimum":
    case "maximum":
      return `${String(e.got)} is ${r.rule === "minimum" ? "below the minimum" : "above the maximum"} of ${r.limit}`;
    case "exclusive_with":
    case "only_with":
      return `${r.rule === "exclusive_with" ? "cannot be given with" : "is only taken with"} ${r.other.split(".").slice(-1)[0] ?? r.other}`;
    default:
      return `breaks the rule ${r.rule}`;
  }
}

/**
 * A link direction's schedule in a lab file (ADR 0102), by the domain's one parse; its refusal as a path
 * under the link and a message, for the parser to place on its line. `key` is `a_to_b_schedule` or
 * `b_to_a_schedule`; `fixed` whether the same direction also has fixed filters.
 */
export function labSchedule(raw: unknown, key: string, fixed: boolean, filterText: (p: FilterProblem) => string): E.Either<{ readonly path: Path; readonly message: string }, Schedule | undefined> {
  if (raw === undefined) return E.right(undefined);
  const direction = key.replace("_schedule", "");
  if (fixed) return E.left({ path: [key], message: `give ${direction} or ${key}, not both: a schedule replaces the direction's fixed filters` });
  const r = raw as Record<string, unknown>;
  const wire = { ...r, ...(r["steps"] === undefined ? {} : { steps: wireItems(r["steps"]) }), ...(r["windows"] === undefined ? {} : { windows: wireItems(r["windows"]) }), ...(r["base"] === undefined ? {} : { base: wireFilters(r["base"]) }) };
  const parsed = parseSchedule(wire, key);
  if (E.isRight(parsed)) return parsed;
  const e = parsed.left;
  if (e._tag === "InvalidFilterSettings") {
    const kind = "kind" in e.problem ? [e.problem.kind] : [];
    return E.left({ path: [...pathOf(e.field ?? key), ...kind], message: filterText(e.problem) });
  }
  return E.left({ path: pathOf(e.field), message: ruleText(e) });
}
