import type * as t from "io-ts";
import { SCHEDULE_STARTS } from "../../domain/filters/schedule.js";
import { bool, list, num, object, oneOfValues } from "./lab-codec-kit.js";

/**
 * A link direction's schedule in a lab file (ADR 0102), the API's `schedule` shape: steps at given
 * times, or windows in a period. The codec gives editors its shape; the domain's parseSchedule then
 * checks what a shape cannot say (steps in order, windows inside the period), naming the field.
 */
export function scheduleCodec(filters: t.Mixed): t.Mixed {
  const Step = object("ScheduleStep", { at: num({ minimum: 0, description: "Seconds from the start (of the period, when it loops); the first step is at 0." }) }, { filters }, "From `at` on, these filters run on the direction.");
  const Window = object(
    "ScheduleWindow",
    { for: num({ minimum: 0, description: "How long the window lasts, in seconds (more than 0)." }) },
    { at: num({ minimum: 0, description: "Where in the period it begins, in seconds (default 0)." }), filters },
    "A window inside the period: its filters run instead of `base` while it lasts.",
  );
  return object(
    "Schedule",
    {},
    {
      start: oneOfValues(SCHEDULE_STARTS, "When t=0 is: `set`, when the lab is deployed (default), or `first_frame`, the link's first frame."),
      steps: list(Step, { minItems: 1, description: "Steps at given times, in order; played once (the last stays) unless `period` loops them." }),
      period: num({ minimum: 0, description: "Seconds: steps loop every period; windows repeat every period." }),
      windows: list(Window, { minItems: 1, description: "Windows in the period, in order, not overlapping (a flap: `{at: 0, for: 2, filters: {frequency_drop: [-1]}}` every 10 s)." }),
      base: filters,
      once: bool("Windows only: play the period once, then `base` stays."),
    },
    "The direction's impairments as a function of time (docs/labs.md, Schedules): instead of its fixed filters.",
  );
}
