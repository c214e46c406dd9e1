/** A port direction's schedule as the page edits and shows it (ADR 0102): JSON in a textarea, the active step as a sentence. */

/** A direction's schedule state as PUT and GET /v2/netemu/impairments answer it (`schedule_in_now`, `schedule_out_now`). */
export interface ScheduleNow {
  readonly step: number;
  readonly filters: Readonly<Record<string, readonly unknown[]>>;
  readonly started_at: string | null;
  readonly next_step_at: string | null;
  readonly next_step_in: number | null;
}

/** What one direction sends: its fixed filters, or its schedule (netemu refuses both, and a schedule clears the fixed ones). */
export type DirectionFields = { readonly filters: object } | { readonly schedule: object } | { readonly problem: string };

/**
 * A direction's fields from the form: an empty schedule text sends the fixed filters (which clear a schedule);
 * any other text must be a JSON object, which netemu judges (its refusal names what is wrong).
 */
export function directionFields(filters: object, scheduleText: string): DirectionFields {
  const text = scheduleText.trim();
  if (text === "") return { filters };
  let parsed: unknown;
  try {
    parsed = JSON.parse(text);
  } catch (err) {
    return { problem: `the schedule is not JSON (${(err as Error).message})` };
  }
  if (typeof parsed !== "object" || parsed === null || Array.isArray(parsed)) return { problem: "the schedule must be a JSON object, as `netemu impair --schedule-out` takes" };
  return { schedule: parsed };
}

/** A schedule as the textarea shows it: indented JSON, or nothing. */
export function scheduleText(schedule: object | undefined): string {
  return schedule === undefined ? "" : JSON.stringify(schedule, null, 2);
}

const filtersWords = (filters: Readonly<Record<string, readonly unknown[]>>): string => {
  const kinds = Object.entries(filters).map(([kind, values]) => `${kind} ${values.map(String).join(", ")}`);
  return kinds.length === 0 ? "no impairment" : kinds.join("; ");
};

/** The active step and when the next begins, as a sentence. */
export function scheduleNowText(now: ScheduleNow | undefined): string {
  if (now === undefined) return "No schedule.";
  const active = `Step ${now.step} active (${filtersWords(now.filters)})`;
  if (now.started_at === null) return `${active}, until the first frame starts the schedule.`;
  if (now.next_step_in === null) return `${active}, for good.`;
  return `${active}; the next step begins in ${now.next_step_in.toFixed(1)} s.`;
}
