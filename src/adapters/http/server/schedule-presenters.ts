import { renderFilterSettings } from "../../../domain/filters/filter-settings.js";
import { type ScheduleState, renderSchedule } from "../../../domain/filters/schedule.js";

export { renderSchedule };

/** A direction's schedule state as answers show it (ADR 0102): times as ISO 8601, the wait in seconds. */
export function presentScheduleNow(s: ScheduleState) {
  return {
    step: s.step,
    filters: renderFilterSettings(s.filters),
    started_at: s.startedAtMs === undefined ? null : new Date(s.startedAtMs).toISOString(),
    next_step_at: s.nextAtMs === undefined ? null : new Date(s.nextAtMs).toISOString(),
    next_step_in: s.nextInMs === undefined ? null : s.nextInMs / 1000,
  };
}
