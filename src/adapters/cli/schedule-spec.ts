import { readFileSync } from "node:fs";
import { parse as parseYaml } from "yaml";

/** Where a schedule stands, as the impairment routes answer it (`schedule_in_now`). */
interface ScheduleNow {
  readonly step: number;
  readonly filters: Readonly<Record<string, unknown>>;
  readonly started_at: string | null;
  readonly next_step_in: number | null;
}

/**
 * `--schedule-in/--schedule-out SPEC` (ADR 0102): the JSON itself when it begins with `{`, else a YAML or
 * JSON file. Only its shape is read here: the server's one parse says what is wrong with it, by field.
 */
export function readScheduleSpec(spec: string): { schedule: Record<string, unknown> } | { error: string } {
  let text = spec;
  if (!spec.trimStart().startsWith("{")) {
    try {
      text = readFileSync(spec, "utf8");
    } catch (e) {
      return { error: `${spec}: cannot read the file (${(e as NodeJS.ErrnoException).code ?? String(e)}); give a YAML or JSON file, or the JSON itself` };
    }
  }
  let value: unknown;
  try {
    value = parseYaml(text);
  } catch (e) {
    return { error: `${spec}: not YAML or JSON (${(e as Error).message.split("\n")[0]})` };
  }
  if (typeof value !== "object" || value === null || Array.isArray(value)) return { error: `${spec}: a schedule is a mapping (steps, or period and windows)` };
  return { schedule: value as Record<string, unknown> };
}

/** `schedule step 1 (delay=200), next in 3.2 s`, or `... waiting for the first frame`. */
export function scheduleSummary(now: ScheduleNow, render: (filters: Readonly<Record<string, unknown>>) => string): string {
  const next = now.started_at === null ? "waiting for the first frame" : now.next_step_in === null ? "last step" : `next in ${now.next_step_in.toFixed(1)} s`;
  return `schedule step ${now.step} (${render(now.filters)}), ${next}`;
}
