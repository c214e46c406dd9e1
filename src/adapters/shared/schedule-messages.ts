import type { ScheduleRule } from "../../domain/configuration/invalid-configuration.js";

/** The words for what a schedule broke (ADR 0102), after the field's name; `got` is already quoted. */
export function scheduleRuleWords(r: ScheduleRule, got: string): string {
  switch (r.rule) {
    case "exclusive_minimum":
      return `${got} must be more than ${r.limit} seconds`;
    case "min_items":
      return `is empty: give at least ${r.limit} item`;
    case "unknown_field":
      return `is not a field here (expected one of ${r.allowed.join(", ")})`;
    case "first_at_zero":
      return `${got}: the first step must be at 0 seconds (it says what runs from the start)`;
    case "ascending":
      return `${got} is not after ${r.after}: steps must be in ascending time order`;
    case "inside_period":
      return `${got} does not fit inside the period of ${r.periodSeconds} seconds (${r.period})`;
    case "after_window":
      return `${got} begins before ${r.window} ends: windows must be in order and must not overlap`;
    case "exclusive_with":
      return `cannot be given together with ${r.other}`;
    case "only_with":
      return `is only taken with ${r.other}`;
  }
}
