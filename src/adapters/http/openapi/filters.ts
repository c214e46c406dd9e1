import * as E from "fp-ts/lib/Either.js";
import { DELAY_DISTRIBUTIONS, FILTER_CATALOGUE, NETEMU_FILTER_CATALOGUE, type FilterDescriptor, type IntParameter } from "../../../domain/filters/catalogue.js";
import { parseFilterSettings } from "../../../domain/filters/filter-settings.js";
import { CONFIGURATION_LIMITS } from "../../../domain/configuration/limits.js";
import { QUANTITY_EXAMPLE, QUANTITY_PATTERN, QUANTITY_STEP, quantityOf } from "../../../domain/filters/quantity.js";
import type { JsonSchema } from "./json-schema.js";
import { SCHEDULE_FIELDS, SCHEDULE_REF } from "./schedule-schema.js";

/** Where the document keeps the typed `filters` object; every `filters`-like field points here. */
export const FILTERS_REF = "#/components/schemas/Filters";

/** The fields that hold a link end's filters: GNS3's `filters` and netemu's one-way pair (ADR 0051). */
export const FILTERS_FIELDS: readonly string[] = ["filters", "filters_in", "filters_out"];

/**
 * How many values a kind takes at least, asked of the domain's own parse (it keeps the rule to
 * itself): the largest values of each parameter are "on" and in range, so only the count decides.
 */
function fewestValues(kind: FilterDescriptor["type"], parameters: readonly IntParameter[]): number {
  const accepted = (n: number) => E.isRight(parseFilterSettings({ [kind]: parameters.slice(0, n).map((p) => p.maximum) }));
  for (let n = 1; n <= parameters.length; n++) {
    if (accepted(n)) {
      // The counts between the fewest and all must all be taken, or a range would not describe them.
      for (let m = n + 1; m <= parameters.length; m++) if (!accepted(m)) throw new Error(`filter ${kind}: ${m} values refused though ${n} are taken`);
      return n;
    }
  }
  throw new Error(`filter ${kind}: no count of values in range is taken`);
}

/**
 * One numeric value: a count an integer; a %, ms or kbit/s a number with decimals to its step, or a text
 * with its unit, read as the number in the catalogue's unit (ADR 0101).
 */
function parameterSchema(p: IntParameter): JsonSchema {
  const quantity = quantityOf(p.unit);
  if (quantity === "count") return { type: "integer", minimum: p.minimum, maximum: p.maximum, description: `${p.name} (${p.unit})` };
  return {
    description: `${p.name} (${p.unit}, to ${QUANTITY_STEP[quantity]}), or with its unit (${QUANTITY_EXAMPLE[quantity]}); answered in ${p.unit}`,
    anyOf: [
      { type: "number", minimum: p.minimum, maximum: p.maximum },
      { type: "string", pattern: QUANTITY_PATTERN[quantity].source },
    ],
  };
}

/** An entry that is on: its values typed one by one from the catalogue. */
function onValues(descriptor: FilterDescriptor): JsonSchema {
  const { filterLines, expressionLength, filterText } = CONFIGURATION_LIMITS;
  if (descriptor.type === "delay_distribution") {
    return { type: "array", prefixItems: [{ type: "string", enum: [...DELAY_DISTRIBUTIONS] }], minItems: 1, maxItems: 1 };
  }
  if (descriptor.type === "queue_discipline") {
    // The first item names the discipline; the parameters' names, units and ranges are the parse's to check (its 400 says which).
    return {
      type: "array",
      prefixItems: [{ type: "string", pattern: "^\\s*(tail_drop|codel|fq_codel)(\\s|$)" }],
      items: { type: "string" },
      minItems: 1,
      maxItems: filterLines,
      description: "tail_drop, codel or fq_codel and their parameters in tc's words, the items joined by spaces: fq_codel target 5ms interval 100ms limit 10240 memory_limit 32mb flows 1024 quantum 1514 drop_batch 64 ecn|noecn (ADR 0100)",
    };
  }
  if (descriptor.type === "capacity_trace" || descriptor.type === "delay_trace" || descriptor.type === "loss_trace") {
    const name = { type: "string", pattern: "^[A-Za-z0-9_-][A-Za-z0-9._-]{0,127}$", description: "an uploaded trace's name (ADR 0103)" };
    return descriptor.type === "capacity_trace"
      ? { type: "array", prefixItems: [name, { type: "integer", minimum: 1, maximum: 100_000, description: "queue bound in frames" }], minItems: 1, maxItems: 2 }
      : { type: "array", prefixItems: [name], minItems: 1, maxItems: 1 };
  }
  if (descriptor.parameters.every((p) => p.type === "text")) {
    return {
      type: "array",
      items: { type: "string" },
      minItems: 1,
      maxItems: filterLines,
      description: `pcap-filter expressions, one per line (an item may hold several lines): at most ${filterLines} lines of ${expressionLength} characters, ${filterText} characters in all`,
    };
  }
  const parameters = descriptor.parameters as readonly IntParameter[];
  return {
    type: "array",
    prefixItems: parameters.map(parameterSchema),
    minItems: fewestValues(descriptor.type, parameters),
    maxItems: parameters.length,
  };
}

/**
 * GNS3's "off": an empty list, or a first value of 0 or a blank text (the web UI's Reset sends
 * these; GNS3 strips spaces and newlines before it looks), whatever follows.
 */
const OFF: JsonSchema = {
  type: "array",
  prefixItems: [{ anyOf: [{ const: 0 }, { type: "string", pattern: "^[ \\n]*$" }] }],
  maxItems: CONFIGURATION_LIMITS.filterLines,
  description: "off",
};

function kindSchema(descriptor: FilterDescriptor, netemu: boolean): JsonSchema {
  return {
    title: descriptor.name,
    description: `${descriptor.description}.${netemu ? " netemu's impairment (ADR 0050): always taken, listed by available_filters with --extended-filters." : ""} [] or a first value of 0 (or a blank text) turns it off.`,
    anyOf: [onValues(descriptor), OFF],
  };
}

/**
 * The `filters` object of a link end, kind by kind, generated from the domain's catalogue (names,
 * bounds, units) and its parse (how many values), so it cannot drift from what a request may send.
 */
export function filtersSchema(): JsonSchema {
  return {
    title: "Filters",
    type: "object",
    description: "A link end's filters, or one direction's (filters_in, filters_out): kind -> values, applied in a fixed order whatever the keys' order (ADR 0030, 0050).",
    properties: Object.fromEntries([
      ...FILTER_CATALOGUE.map((d) => [d.type, kindSchema(d, false)] as const),
      ...NETEMU_FILTER_CATALOGUE.map((d) => [d.type, kindSchema(d, true)] as const),
    ]),
    additionalProperties: false,
  };
}

/**
 * A body or answer schema with each `filters`-like property that is a bare object replaced by the
 * typed Filters (the codecs take any object there: the domain's parse checks it, with its messages).
 */
export function withTypedFilters(schema: JsonSchema): JsonSchema {
  const visit = (node: unknown): unknown => {
    if (Array.isArray(node)) return node.map(visit);
    if (typeof node !== "object" || node === null) return node;
    const out: Record<string, unknown> = {};
    for (const [key, value] of Object.entries(node)) {
      if (key === "properties" && typeof value === "object" && value !== null) {
        out[key] = Object.fromEntries(
          Object.entries(value).map(([name, property]) => [
            name,
            FILTERS_FIELDS.includes(name) && isBareObject(property) ? typed(property as JsonSchema) : SCHEDULE_FIELDS.includes(name) && isBareObject(property) ? { $ref: SCHEDULE_REF } : visit(property),
          ]),
        );
      } else out[key] = visit(value);
    }
    return out;
  };
  return visit(schema) as JsonSchema;
}

/** 3.1 lets a reference keep its description beside it. */
function typed(property: JsonSchema): JsonSchema {
  return typeof property["description"] === "string" ? { $ref: FILTERS_REF, description: property["description"] } : { $ref: FILTERS_REF };
}

function isBareObject(schema: unknown): boolean {
  if (typeof schema !== "object" || schema === null) return false;
  const keys = Object.keys(schema).filter((k) => k !== "description");
  return keys.length === 1 && (schema as { type?: unknown }).type === "object";
}
