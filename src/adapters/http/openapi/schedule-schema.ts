import { SCHEDULE_LIMITS, SCHEDULE_STARTS } from "../../../domain/filters/schedule.js";
import type { JsonSchema } from "./json-schema.js";

/** Where the document keeps the typed schedule (ADR 0102); every schedule field points here. */
export const SCHEDULE_REF = "#/components/schemas/Schedule";

/** The fields that hold a direction's schedule: a link end's `schedule`, an impairment's pair. */
export const SCHEDULE_FIELDS: readonly string[] = ["schedule", "schedule_in", "schedule_out"];

/**
 * A schedule's shape (the codecs take any object: the domain's parseSchedule checks what a shape cannot
 * say, steps in order and windows inside the period, naming the field).
 */
export function scheduleSchema(filtersRef: string): JsonSchema {
  const seconds = (description: string, exclusive = false): JsonSchema => ({ type: "number", ...(exclusive ? { exclusiveMinimum: 0 } : { minimum: 0 }), maximum: SCHEDULE_LIMITS.maxSeconds, description });
  const items = (item: JsonSchema, description: string): JsonSchema => ({ type: "array", items: item, minItems: 1, maxItems: SCHEDULE_LIMITS.steps, description });
  return {
    type: "object",
    description: "A direction's impairments as a function of time (ADR 0102): steps at given times, or windows in a period; instead of the direction's fixed filters.",
    properties: {
      start: { type: "string", enum: [...SCHEDULE_STARTS], description: "t=0: when it is set (default) or at the port's first frame." },
      steps: items({ type: "object", properties: { at: seconds("Seconds from the start; the first is 0, each after the one before."), filters: { $ref: filtersRef } }, required: ["at"], additionalProperties: false }, "Steps in time order: played once (the last stays), or looping every `period`."),
      period: seconds("Seconds: steps loop, windows repeat, every period.", true),
      windows: items({ type: "object", properties: { at: seconds("Where in the period it begins (default 0)."), for: seconds("How long it lasts.", true), filters: { $ref: filtersRef } }, required: ["for"], additionalProperties: false }, "Windows inside the period, in order, not overlapping."),
      base: { $ref: filtersRef },
      once: { type: "boolean", description: "Windows only: play the period once; then `base` stays." },
    },
    additionalProperties: false,
  };
}
