import * as E from "fp-ts/lib/Either.js";
import { type ArmedSchedule, parseSchedule, renderSchedule } from "../../domain/filters/schedule.js";

/**
 * A direction's schedule in the impairments file (ADR 0102): the schedule as set and the wall-clock
 * time it was set, so that after a restart a schedule that started when set goes on where time has
 * brought it (time continues), and one that starts at the first frame waits for a first frame again.
 */
export function scheduleToFile(key: "schedule_in" | "schedule_out" | "schedule", armed: ArmedSchedule | undefined): Record<string, unknown> {
  return armed === undefined ? {} : { [key]: { ...renderSchedule(armed.schedule), set_at_ms: armed.setAtMs } };
}

/** Reads back what scheduleToFile wrote, by the domain's one parse; undefined when the field is absent. */
export function scheduleFromFile(raw: unknown, at: string): E.Either<string, ArmedSchedule | undefined> {
  if (raw === undefined) return E.right(undefined);
  if (typeof raw !== "object" || raw === null || Array.isArray(raw)) return E.left(`${at} is not an object`);
  const { set_at_ms: setAtMs, ...given } = raw as Record<string, unknown>;
  if (typeof setAtMs !== "number" || !Number.isFinite(setAtMs)) return E.left(`${at}.set_at_ms is required (a time in ms)`);
  const parsed = parseSchedule(given, at);
  if (E.isLeft(parsed)) return E.left(`${at} does not parse: ${parsed.left.field ?? at}`);
  return E.right(Object.freeze({ schedule: parsed.right, setAtMs }));
}
