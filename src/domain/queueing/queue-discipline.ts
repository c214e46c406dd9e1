import { CODEL_INTERVAL_MS, CODEL_MTU, CODEL_TARGET_MS, type CodelSettings, CodelQueueDiscipline, type QueueDiscipline, type QueueObserver } from "./codel.js";
import { FQ_CODEL_DROP_BATCH, FQ_CODEL_FLOWS, FQ_CODEL_LIMIT, FQ_CODEL_MEMORY_LIMIT, FQ_CODEL_QUANTUM, type FqCodelSettings, FqCodelQueueDiscipline } from "./fq-codel.js";

/** The queue disciplines of the bandwidth stage: tail drop (the transmitter's queue bounded in ms), CoDel, FQ-CoDel. */
export const QUEUE_DISCIPLINES = ["tail_drop", "codel", "fq_codel"] as const;
type QueueDisciplineKind = (typeof QUEUE_DISCIPLINES)[number];

/** A queue discipline and its parameters, as a value (times in ms, sizes in bytes). */
export type QueueDisciplineSpec =
  | { readonly kind: "tail_drop" }
  | ({ readonly kind: "codel" } & CodelSettings)
  | ({ readonly kind: "fq_codel" } & FqCodelSettings);

export const TAIL_DROP: QueueDisciplineSpec = Object.freeze({ kind: "tail_drop" });

/** Linux's defaults: codel's limit is 1000 frames and ECN off; fq_codel's ECN is on. */
export const CODEL_DEFAULTS: CodelSettings = Object.freeze({ targetMs: CODEL_TARGET_MS, intervalMs: CODEL_INTERVAL_MS, ecn: false, mtu: CODEL_MTU, limit: 1000 });
export const FQ_CODEL_DEFAULTS: FqCodelSettings = Object.freeze({
  targetMs: CODEL_TARGET_MS,
  intervalMs: CODEL_INTERVAL_MS,
  ecn: true,
  mtu: CODEL_MTU,
  limit: FQ_CODEL_LIMIT,
  memoryLimit: FQ_CODEL_MEMORY_LIMIT,
  flows: FQ_CODEL_FLOWS,
  quantum: FQ_CODEL_QUANTUM,
  dropBatch: FQ_CODEL_DROP_BATCH,
});

type Unit = "time" | "frames" | "bytes" | "count";

/** A numeric parameter as written (tc's names), the field it sets, its unit and bounds (in ms or bytes). */
interface NumericParameter {
  readonly name: string;
  readonly field: "targetMs" | "intervalMs" | "limit" | "memoryLimit" | "flows" | "quantum" | "dropBatch" | "mtu";
  readonly unit: Unit;
  readonly minimum: number;
  readonly maximum: number;
}

const TIME = (name: string, field: "targetMs" | "intervalMs"): NumericParameter => ({ name, field, unit: "time", minimum: 0.001, maximum: 10_000 });
const CODEL_PARAMETERS: readonly NumericParameter[] = [
  TIME("target", "targetMs"),
  TIME("interval", "intervalMs"),
  { name: "limit", field: "limit", unit: "frames", minimum: 1, maximum: 100_000 },
  { name: "mtu", field: "mtu", unit: "bytes", minimum: 64, maximum: 65_535 },
];
const FQ_CODEL_PARAMETERS: readonly NumericParameter[] = [
  ...CODEL_PARAMETERS,
  { name: "memory_limit", field: "memoryLimit", unit: "bytes", minimum: 1514, maximum: 256 * 1024 * 1024 },
  { name: "flows", field: "flows", unit: "count", minimum: 1, maximum: 65_536 },
  { name: "quantum", field: "quantum", unit: "bytes", minimum: 256, maximum: 1024 * 1024 },
  { name: "drop_batch", field: "dropBatch", unit: "count", minimum: 1, maximum: 10_000 },
];

/** What is wrong with a queue discipline's text, as data (the adapters word it). */
export type QueueDisciplineProblem =
  | { readonly problem: "unknown_discipline"; readonly got: string }
  | { readonly problem: "unknown_parameter"; readonly discipline: QueueDisciplineKind; readonly got: string; readonly parameters: readonly string[] }
  | { readonly problem: "missing_value"; readonly parameter: string }
  | { readonly problem: "repeated_parameter"; readonly parameter: string }
  | { readonly problem: "not_a_value"; readonly parameter: string; readonly unit: Unit; readonly got: string }
  | { readonly problem: "out_of_range"; readonly parameter: string; readonly unit: Unit; readonly minimum: number; readonly maximum: number; readonly got: number };

/** 5ms, 500us, 0.1s: a time in ms. tc's bare number means µs, a trap: a unit is required. */
function readTime(text: string): number | undefined {
  const m = /^(\d+(?:\.\d+)?)(us|ms|s)$/.exec(text);
  if (m === null) return undefined;
  const n = Number(m[1]);
  return m[2] === "us" ? n / 1000 : m[2] === "s" ? n * 1000 : n;
}

/** 1514, 1514b, 64kb, 32mb (tc's multiples of 1024): bytes. */
function readBytes(text: string): number | undefined {
  const m = /^(\d+)(b|kb|k|mb|m)?$/i.exec(text);
  if (m === null) return undefined;
  const unit = (m[2] ?? "b").toLowerCase();
  return Number(m[1]) * (unit.startsWith("k") ? 1024 : unit.startsWith("m") ? 1024 * 1024 : 1);
}

function readCount(text: string): number | undefined {
  return /^\d+$/.test(text) ? Number(text) : undefined;
}

/**
 * A queue discipline as tc writes it, in one text (the items of the filter's list are joined):
 * `fq_codel`, `codel target 5ms interval 100ms ecn`, `fq_codel flows 64 quantum 300 noecn`,
 * `tail_drop`. Parameters left out take Linux's defaults. The first problem found is answered.
 */
export function parseQueueDiscipline(text: string): { readonly ok: true; readonly spec: QueueDisciplineSpec } | { readonly ok: false; readonly problem: QueueDisciplineProblem } {
  const tokens = text.split(/\s+/).filter((t) => t !== "");
  const [kind, ...rest] = tokens;
  if (kind === "tail_drop" && rest.length === 0) return { ok: true, spec: TAIL_DROP };
  if (kind === "tail_drop") return { ok: false, problem: { problem: "unknown_parameter", discipline: "tail_drop", got: rest[0] as string, parameters: [] } };
  if (kind !== "codel" && kind !== "fq_codel") return { ok: false, problem: { problem: "unknown_discipline", got: kind ?? "" } };
  const parameters = kind === "codel" ? CODEL_PARAMETERS : FQ_CODEL_PARAMETERS;
  const values: Record<string, number | boolean> = { ...(kind === "codel" ? CODEL_DEFAULTS : FQ_CODEL_DEFAULTS) };
  const seen = new Set<string>();
  const names = [...parameters.map((p) => p.name), "ecn", "noecn"];
  for (let i = 0; i < rest.length; i++) {
    const name = rest[i] as string;
    const key = name === "noecn" ? "ecn" : name;
    if (seen.has(key)) return { ok: false, problem: { problem: "repeated_parameter", parameter: key } };
    seen.add(key);
    if (name === "ecn" || name === "noecn") {
      values["ecn"] = name === "ecn";
      continue;
    }
    const parameter = parameters.find((p) => p.name === name);
    if (parameter === undefined) return { ok: false, problem: { problem: "unknown_parameter", discipline: kind, got: name, parameters: names } };
    const raw = rest[++i];
    if (raw === undefined) return { ok: false, problem: { problem: "missing_value", parameter: name } };
    const value = parameter.unit === "time" ? readTime(raw) : parameter.unit === "bytes" ? readBytes(raw) : readCount(raw);
    if (value === undefined) return { ok: false, problem: { problem: "not_a_value", parameter: name, unit: parameter.unit, got: raw } };
    if (value < parameter.minimum || value > parameter.maximum) return { ok: false, problem: { problem: "out_of_range", parameter: name, unit: parameter.unit, minimum: parameter.minimum, maximum: parameter.maximum, got: value } };
    values[parameter.field] = value;
  }
  return { ok: true, spec: Object.freeze({ kind, ...values }) as QueueDisciplineSpec };
}

/** Whether two specs are the same discipline with the same parameters. */
export function sameQueueDiscipline(a: QueueDisciplineSpec, b: QueueDisciplineSpec): boolean {
  if (a === b) return true;
  const x = a as unknown as Record<string, unknown>;
  const y = b as unknown as Record<string, unknown>;
  const keys = Object.keys(x);
  return keys.length === Object.keys(y).length && keys.every((k) => x[k] === y[k]);
}

/** A discipline of `spec` (CoDel or FQ-CoDel: tail drop is the Shaper's, no queue of frames). */
export function makeQueueDiscipline(spec: Exclude<QueueDisciplineSpec, { kind: "tail_drop" }>, observer: QueueObserver, seed = 0): QueueDiscipline & { adopt(entry: { frame: Uint8Array; enqueuedMs: number }): void } {
  return spec.kind === "codel" ? new CodelQueueDiscipline(spec, observer) : new FqCodelQueueDiscipline(spec, observer, seed);
}
