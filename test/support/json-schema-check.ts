import fc from "fast-check";
import * as E from "fp-ts/lib/Either.js";
import type * as t from "io-ts";
import { isDeepStrictEqual } from "node:util";

type Schema = { readonly [keyword: string]: unknown };

const isObject = (v: unknown): v is Record<string, unknown> => typeof v === "object" && v !== null && !Array.isArray(v);

function hasType(type: string, v: unknown): boolean {
  switch (type) {
    case "string":
      return typeof v === "string";
    case "integer":
      return typeof v === "number" && Number.isInteger(v);
    case "number":
      return typeof v === "number" && Number.isFinite(v);
    case "boolean":
      return typeof v === "boolean";
    case "object":
      return isObject(v);
    case "array":
      return Array.isArray(v);
    case "null":
      return v === null;
    default:
      throw new Error(`the test validator does not know the type ${type}`);
  }
}

const KNOWN = new Set(["title", "type", "enum", "const", "properties", "required", "additionalProperties", "items", "minimum", "maximum", "minLength", "maxLength", "pattern", "oneOf", "anyOf", "description", "format", "$ref", "prefixItems", "minItems", "maxItems"]);

/** The schema a local reference (`#/components/schemas/Filters`) points at in `root`. */
function resolve(root: Schema | undefined, ref: string): Schema {
  if (root === undefined || !ref.startsWith("#/")) throw new Error(`the test validator cannot resolve ${ref} without the document`);
  let node: unknown = root;
  for (const part of ref.slice(2).split("/")) node = (node as Record<string, unknown> | undefined)?.[part];
  if (typeof node !== "object" || node === null) throw new Error(`${ref} points at nothing`);
  return node as Schema;
}

/**
 * A JSON Schema validator for the keywords the OpenAPI document uses, written from the JSON Schema
 * specification independently of the converter: a keyword it does not know fails the test.
 */
export function validates(schema: Schema, v: unknown, root?: Schema): boolean {
  for (const keyword of Object.keys(schema)) if (!KNOWN.has(keyword)) throw new Error(`the test validator does not know the keyword ${keyword}`);
  const s = schema as Record<string, any>;
  if (typeof s.$ref === "string" && !validates(resolve(root, s.$ref), v, root)) return false;
  if ("const" in s && !isDeepStrictEqual(s.const, v)) return false;
  if (s.enum !== undefined && !(s.enum as unknown[]).some((e) => isDeepStrictEqual(e, v))) return false;
  if (s.type !== undefined && !(Array.isArray(s.type) ? s.type : [s.type]).some((type: string) => hasType(type, v))) return false;
  if (typeof v === "string") {
    if (s.minLength !== undefined && [...v].length < s.minLength) return false;
    if (s.maxLength !== undefined && [...v].length > s.maxLength) return false;
    if (s.pattern !== undefined && !new RegExp(s.pattern, "u").test(v)) return false;
  }
  if (typeof v === "number") {
    if (s.minimum !== undefined && v < s.minimum) return false;
    if (s.maximum !== undefined && v > s.maximum) return false;
  }
  if (isObject(v)) {
    const properties = (s.properties ?? {}) as Record<string, Schema>;
    for (const key of (s.required ?? []) as string[]) if (!Object.hasOwn(v, key)) return false;
    for (const [key, value] of Object.entries(v)) {
      const p = Object.hasOwn(properties, key) ? properties[key] : undefined;
      if (p !== undefined) {
        if (!validates(p, value, root)) return false;
      } else if (s.additionalProperties === false) return false;
    }
  }
  if (Array.isArray(v)) {
    const prefix = (s.prefixItems ?? []) as Schema[];
    if (!prefix.every((p, i) => i >= v.length || validates(p, v[i], root))) return false;
    if (s.items !== undefined && !v.slice(prefix.length).every((item) => validates(s.items, item, root))) return false;
    if (s.minItems !== undefined && v.length < s.minItems) return false;
    if (s.maxItems !== undefined && v.length > s.maxItems) return false;
  }
  if (s.oneOf !== undefined && (s.oneOf as Schema[]).filter((b) => validates(b, v, root)).length !== 1) return false;
  if (s.anyOf !== undefined && !(s.anyOf as Schema[]).some((b) => validates(b, v, root))) return false;
  return true;
}

const junk = fc.constantFrom<unknown>(null, 0, -1, 1.5, "", "x", true, [], {});

/** Values near what a schema accepts: mostly fitting, with wrong types, missing and extra keys, and bounds. */
export function nearby(schema: Schema, depth = 0): fc.Arbitrary<unknown> {
  const s = schema as Record<string, any>;
  const fitting = (): fc.Arbitrary<unknown> => {
    if ("const" in s) return fc.constant(s.const);
    if (s.enum !== undefined) return fc.oneof(fc.constantFrom(...(s.enum as unknown[])), fc.constant("not-one-of-them"));
    if (s.oneOf !== undefined) return fc.oneof(...(s.oneOf as Schema[]).map((b) => nearby(b, depth)));
    if (s.anyOf !== undefined) return fc.oneof(...(s.anyOf as Schema[]).map((b) => nearby(b, depth)));
    const types: string[] = s.type === undefined ? [] : Array.isArray(s.type) ? s.type : [s.type];
    if (types.length > 1) return fc.oneof(...types.map((type) => nearby({ ...s, type }, depth)));
    switch (types[0]) {
      case undefined:
        return fc.jsonValue({ maxDepth: 1 });
      case "null":
        return fc.constant(null);
      case "boolean":
        return fc.boolean();
      case "integer": {
        const min = (s.minimum as number | undefined) ?? -3;
        const max = (s.maximum as number | undefined) ?? 70000;
        return fc.oneof(fc.constantFrom(min - 1, min, max, max + 1), fc.integer({ min: min - 2, max: max + 2 }), fc.constant(min + 0.5));
      }
      case "number":
        return fc.oneof(fc.integer(), fc.double({ noNaN: true, noDefaultInfinity: true }));
      case "string": {
        const any = fc.string({ maxLength: ((s.maxLength as number | undefined) ?? 6) + 2 });
        return s.pattern !== undefined ? fc.oneof(fc.stringMatching(new RegExp(s.pattern)), any) : any;
      }
      case "array":
        return depth > 3 ? fc.constant([]) : fc.array(s.items === undefined ? fc.jsonValue({ maxDepth: 1 }) : nearby(s.items, depth + 1), { maxLength: 3 });
      case "object": {
        if (s.properties === undefined || depth > 3) return fc.dictionary(fc.string({ maxLength: 4 }), fc.jsonValue({ maxDepth: 1 }), { maxKeys: 3 });
        const props = Object.fromEntries(Object.entries(s.properties as Record<string, Schema>).map(([k, p]) => [k, nearby(p, depth + 1)]));
        const required = (s.required ?? []) as string[];
        return fc.oneof(
          { weight: 4, arbitrary: fc.record(props, { requiredKeys: required }) },
          fc.record(props, { requiredKeys: [] }),
          fc.tuple(fc.record(props, { requiredKeys: required }), fc.constantFrom("extra", "other_key"), fc.jsonValue({ maxDepth: 0 })).map(([o, k, v]) => ({ ...o, [k]: v })),
        );
      }
      default:
        throw new Error(`no generator for the type ${String(types[0])}`);
    }
  };
  return fc.oneof({ weight: 6, arbitrary: fitting() }, { weight: 1, arbitrary: junk });
}

/** A value the codec and the schema disagree on, or undefined when none was found in `runs` tries. */
export function disagreement(codec: t.Mixed, schema: Schema, runs: number, seed: number): { value: unknown; codec: boolean; schema: boolean } | undefined {
  const result = fc.check(
    fc.property(nearby(schema), (v) => E.isRight(codec.decode(v)) === validates(schema, v)),
    { numRuns: runs, seed },
  );
  if (!result.failed || result.counterexample === null) return undefined;
  const [value] = result.counterexample;
  return { value, codec: E.isRight(codec.decode(value)), schema: validates(schema, value) };
}
