import type * as t from "io-ts";
import { shapeOf } from "../schema.js";

/** A JSON Schema (draft 2020-12, as OpenAPI 3.1 uses it), as plain data. */
export type JsonSchema = { readonly [keyword: string]: unknown };

/** A codec this converter cannot describe: a new kind needs its case here before a route may use it. */
export class UndescribableCodec extends Error {}

/**
 * The JSON Schema of a body codec, derived from the shape each builder of `schema.ts` keeps beside
 * its codec (ADR 0045), plus io-ts's `literal` and `unknown`. Any other codec is refused loudly, so
 * that the API's description never guesses.
 */
export function toJsonSchema(codec: t.Mixed): JsonSchema {
  const shape = shapeOf(codec);
  if (shape === undefined) {
    const tag = (codec as { _tag?: unknown })._tag;
    if (tag === "LiteralType") return { const: (codec as unknown as t.LiteralC<string | number | boolean>).value };
    if (tag === "UnknownType") return {};
    if (tag === "NullType") return { type: "null" };
    throw new UndescribableCodec(`no JSON Schema for the codec "${codec.name}" (${typeof tag === "string" ? tag : "a hand-written t.Type"}): build it with schema.ts or teach openapi/json-schema.ts its kind`);
  }
  switch (shape.kind) {
    case "string":
      return defined({ type: "string", minLength: shape.minLength, maxLength: shape.maxLength, pattern: shape.pattern?.source });
    case "integer":
      return defined({ type: "integer", minimum: shape.minimum, maximum: shape.maximum });
    case "nullable":
      return orNull(toJsonSchema(shape.of));
    case "boolean":
      return { type: "boolean" };
    case "number":
      return { type: "number" };
    case "enum":
      return { type: "string", enum: [...shape.values] };
    case "object":
      return { type: "object" };
    case "array":
      return { type: "array", items: toJsonSchema(shape.item) };
    case "closedObject": {
      const properties = Object.fromEntries([...Object.entries(shape.required), ...Object.entries(shape.optional)].map(([key, c]) => [key, toJsonSchema(c)]));
      const required = Object.keys(shape.required);
      return {
        title: shape.name,
        type: "object",
        properties,
        ...(required.length > 0 ? { required } : {}),
        ...(shape.additional ? {} : { additionalProperties: false }),
      };
    }
    case "oneOf":
      return { oneOf: shape.branches.map(toJsonSchema) };
    case "anyOf":
      return { anyOf: shape.branches.map(toJsonSchema) };
    case "openObject":
      return {
        title: shape.name,
        type: "object",
        properties: Object.fromEntries(Object.entries(shape.optional).map(([key, c]) => [key, toJsonSchema(c)])),
        additionalProperties: true,
      };
  }
}

function defined(schema: Record<string, unknown>): JsonSchema {
  return Object.fromEntries(Object.entries(schema).filter(([, v]) => v !== undefined));
}

/** `null` as well: a type list when the schema has a single type, else a choice. */
function orNull(schema: JsonSchema): JsonSchema {
  const type = schema["type"];
  if (typeof type === "string" && schema["enum"] === undefined) return { ...schema, type: [type, "null"] };
  if (Array.isArray(type) && type.includes("null")) return schema;
  return { anyOf: [schema, { type: "null" }] };
}
