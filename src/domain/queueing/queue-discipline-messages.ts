import type { FilterProblem } from "../filters/filter-settings.js";
import { QUEUE_DISCIPLINES } from "./queue-discipline.js";

type Detail = Extract<FilterProblem, { problem: "bad_queue_discipline" }>["detail"];

const UNITS = { time: "a time with its unit (500us, 5ms, 0.1s)", bytes: "bytes (1514, 64kb, 32mb)", frames: "a whole number of frames", count: "a whole number" } as const;
const shown = (unit: keyof typeof UNITS, n: number): string => (unit === "time" ? `${n} ms` : unit === "bytes" ? `${n} bytes` : String(n));

const describe = (v: unknown): string => (v === null ? "null" : typeof v === "object" ? (Array.isArray(v) ? "an array" : "an object") : typeof v === "string" ? JSON.stringify(v) : String(v));

/** What is wrong with a queue_discipline entry, in words: one wording for the API's 400, the lab file's error and the CLI's (the adapters and the lab parser use it). */
export function queueDisciplineMessage(detail: Detail): string {
  switch (detail.problem) {
    case "not_text":
      return `Filter queue_discipline: the discipline must be text, got ${describe(detail.got)}`;
    case "unknown_discipline":
      return `Filter queue_discipline: the discipline must be one of ${QUEUE_DISCIPLINES.join(", ")}, got ${JSON.stringify(detail.got)}`;
    case "unknown_parameter":
      return detail.parameters.length === 0
        ? `Filter queue_discipline: ${detail.discipline} takes no parameters, got ${JSON.stringify(detail.got)}`
        : `Filter queue_discipline: ${detail.discipline} has no parameter ${JSON.stringify(detail.got)}; its parameters are ${detail.parameters.join(", ")}`;
    case "missing_value":
      return `Filter queue_discipline: ${detail.parameter} needs a value after it`;
    case "repeated_parameter":
      return `Filter queue_discipline: ${detail.parameter} is given twice`;
    case "not_a_value":
      return `Filter queue_discipline: ${detail.parameter} must be ${UNITS[detail.unit]}, got ${JSON.stringify(detail.got)}`;
    case "out_of_range":
      return `Filter queue_discipline: ${detail.parameter} must be between ${shown(detail.unit, detail.minimum)} and ${shown(detail.unit, detail.maximum)}, got ${shown(detail.unit, detail.got)}`;
  }
}

/**
 * Why queue_discipline's codel or fq_codel is refused beside capacity_trace, in words: one wording for
 * the API's 400, the lab file's error and the CLI's (ADR 0103, 2026-11-26).
 */
export function queueOnTraceMessage(p: Extract<FilterProblem, { problem: "queue_on_trace" }>): string {
  return `Filter ${p.kinds[0]} ${p.discipline} and ${p.kinds[1]} cannot be set together: a capacity trace's link is tail drop only, so ${p.discipline} would not run; drop ${p.kinds[0]}, or use bandwidth instead of ${p.kinds[1]}`;
}
