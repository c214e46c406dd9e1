import type { TraceProblem } from "../../domain/traces/trace.js";
import { DELAY_DISTRIBUTIONS, FILTER_KINDS } from "../../domain/filters/catalogue.js";
import type { FilterProblem } from "../../domain/filters/filter-settings.js";
import { QUANTITY_STEP, QUANTITY_TEXT, quantityOf } from "../../domain/filters/quantity.js";
import { queueDisciplineMessage, queueOnTraceMessage } from "../../domain/queueing/queue-discipline-messages.js";

function describeValue(v: unknown): string {
  if (v === null) return "null";
  if (typeof v === "string") return JSON.stringify(v);
  if (typeof v === "object") return Array.isArray(v) ? "an array" : "an object";
  return String(v);
}

/** The 400 message for a `filters` object netemu cannot run (docs/compatibility.md quotes them). */
export function filterProblemMessage(p: FilterProblem): string {
  switch (p.problem) {
    case "not_an_object":
      return `filters must be an object mapping a filter type to its values, got ${describeValue(p.got)}`;
    case "unknown_kind":
      return `Unknown filter type '${p.kind}'; the filter types are ${FILTER_KINDS.join(", ")}`;
    case "not_a_list":
      return `Filter ${p.kind}: the values must be a list, got ${describeValue(p.got)}`;
    case "bpf_not_text":
      return p.kind === "bpf" ? `Filter bpf: Filters must be text, got ${describeValue(p.got)}` : `Filter ${p.kind}: Expressions must be text, got ${describeValue(p.got)}`;
    case "bpf_invalid":
      return p.kind === "bpf" ? `Invalid BPF expression on line ${p.line}: ${p.message}` : `Filter ${p.kind}: invalid pcap-filter expression on line ${p.line}: ${p.message}`;
    case "too_many_lines":
      return `Filter ${p.kind}: at most ${p.limit} expression lines, got ${p.got}`;
    case "line_too_long":
      return `Filter ${p.kind}: line ${p.line} has ${p.got} characters, more than the ${p.limit} an expression may have`;
    case "too_much_text":
      return `Filter ${p.kind}: at most ${p.limit} characters of expressions in all, got ${p.got}`;
    case "not_a_distribution":
      return `Filter delay_distribution: Distribution must be one of ${DELAY_DISTRIBUTIONS.join(", ")}, got ${describeValue(p.got)}`;
    case "bad_queue_discipline":
      return queueDisciplineMessage(p.detail);
    case "bad_trace_name":
      return `Filter ${p.kind}: Trace must be the name of an uploaded trace (letters, digits, '.', '_' or '-', at most 128, not starting with '.'), got ${describeValue(p.got)}`;
    case "two_rates":
      return "Filter capacity_trace and bandwidth are two rates for one direction: set one of them";
    case "queue_on_trace":
      return queueOnTraceMessage(p);
    case "unknown_trace":
      return `Filter ${p.kind}: no trace named ${JSON.stringify(p.name)} was uploaded (PUT /v2/netemu/traces/${p.name})`;
    case "unfit_trace":
      return `Filter ${p.kind}: trace ${JSON.stringify(p.name)} is not ${p.expected}`;
    case "value_count": {
      const count = p.parameters.length;
      const expected = p.minimum === count ? `${count}` : p.minimum === count - 1 ? `${p.minimum} or ${count}` : `${p.minimum} to ${count}`;
      return `Filter ${p.kind} takes ${expected} value(s) (${p.parameters.map((x) => x.name).join(", ")}), got ${p.got}`;
    }
    case "not_an_integer":
      return `Filter ${p.kind}: ${p.parameter.name} must be an integer between ${p.parameter.minimum} and ${p.parameter.maximum} ${p.parameter.unit}, got ${describeValue(p.got)}`;
    case "out_of_range": {
      const x = p.parameter;
      const read = p.value === undefined ? "" : ` (${p.value} ${x.unit})`;
      return quantityOf(x.unit) === "count"
        ? `Filter ${p.kind}: ${x.name} must be an integer between ${x.minimum} and ${x.maximum} ${x.unit}, got ${describeValue(p.got)}`
        : `Filter ${p.kind}: ${x.name} must be between ${x.minimum} and ${x.maximum} ${x.unit}, got ${describeValue(p.got)}${read}`;
    }
    // ADR 0101: what a %, time or rate takes, said with the units it reads.
    case "not_a_number":
      return `Filter ${p.kind}: ${p.parameter.name} must be ${QUANTITY_TEXT[quantityOf(p.parameter.unit)]}, got ${describeValue(p.got)}`;
    case "not_a_quantity": {
      const quantity = quantityOf(p.parameter.unit);
      const what = p.unit === undefined ? `is not a ${quantity === "percent" ? "percentage" : quantity}` : `has a unit netemu does not read (${p.unit})`;
      return `Filter ${p.kind}: ${p.parameter.name} ${describeValue(p.got)} ${what}; give ${QUANTITY_TEXT[quantity]}`;
    }
    case "too_fine":
      return `Filter ${p.kind}: ${p.parameter.name} is finer than netemu takes (${QUANTITY_STEP[quantityOf(p.parameter.unit)]}), got ${describeValue(p.got)}`;
  }
}

/** What is wrong with an uploaded trace's text, naming the line (ADR 0103). */
export function traceProblemMessage(p: TraceProblem): string {
  switch (p.problem) {
    case "empty":
      return "it is empty";
    case "too_large":
      return `it has ${p.got} characters, more than the ${p.limit} a trace may have`;
    case "too_many_lines":
      return `it has more than the ${p.limit} lines a trace may have`;
    case "bad_line":
      return `line ${p.line} (${JSON.stringify(p.text)}) is not ${p.expected}`;
    case "decreasing":
      return `line ${p.line}: ${p.ms} ms comes before the ${p.previousMs} ms of the line above (timestamps must not decrease)`;
    case "not_increasing":
      return `line ${p.line}: ${p.ms} ms is not after the ${p.previousMs} ms of the line above`;
    case "too_late":
      return `line ${p.line}: ${p.ms} ms is beyond the ${p.limit} ms a trace may last`;
    case "no_duration":
      return "it lasts no time (its last timestamp must be above 0)";
    case "first_not_zero":
      return `a value trace starts at 0 ms, this one at ${p.ms}`;
    case "value_out_of_range":
      return `line ${p.line}: ${p.value} is not in ${p.minimum}..${p.maximum}`;
  }
}
