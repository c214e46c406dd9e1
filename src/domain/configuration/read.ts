import * as E from "fp-ts/lib/Either.js";
import { type InvalidConfiguration, invalidConfiguration } from "./invalid-configuration.js";

/**
 * Readers of one configuration field out of an unknown input (JSON from a client or a file, a value
 * an embedder built, a message from another thread): each checks one field and never walks deeper
 * than that field, so the parse functions built on them are bounded by the shape they read.
 */
type Read<A> = E.Either<InvalidConfiguration, A>;

export function isPlainObject(raw: unknown): raw is Readonly<Record<string, unknown>> {
  return typeof raw === "object" && raw !== null && !Array.isArray(raw) && !(raw instanceof Map);
}

export function readObject(raw: unknown, field: string): Read<Readonly<Record<string, unknown>>> {
  return isPlainObject(raw) ? E.right(raw) : E.left(invalidConfiguration(field, { rule: "type", expected: "object" }, raw));
}

/** An own property (never one inherited from a prototype, whatever its name). */
export function own(object: Readonly<Record<string, unknown>>, key: string): unknown {
  return Object.prototype.hasOwnProperty.call(object, key) ? object[key] : undefined;
}

export function readArray(raw: unknown, field: string, maxItems: number): Read<readonly unknown[]> {
  if (!Array.isArray(raw)) return E.left(invalidConfiguration(field, { rule: "type", expected: "array" }, raw));
  if (raw.length > maxItems) return E.left(invalidConfiguration(field, { rule: "max_items", limit: maxItems }, raw.length));
  return E.right(raw);
}

export function readInteger(raw: unknown, field: string, minimum: number, maximum: number): Read<number> {
  if (typeof raw !== "number" || !Number.isInteger(raw)) return E.left(invalidConfiguration(field, { rule: "type", expected: "integer" }, raw));
  if (raw < minimum) return E.left(invalidConfiguration(field, { rule: "minimum", limit: minimum }, raw));
  if (raw > maximum) return E.left(invalidConfiguration(field, { rule: "maximum", limit: maximum }, raw));
  return E.right(raw);
}

export function readString(raw: unknown, field: string, minLength: number, maxLength: number): Read<string> {
  if (typeof raw !== "string") return E.left(invalidConfiguration(field, { rule: "type", expected: "string" }, raw));
  if (raw.length < minLength) return E.left(invalidConfiguration(field, { rule: "min_length", limit: minLength }, raw));
  if (raw.length > maxLength) return E.left(invalidConfiguration(field, { rule: "max_length", limit: maxLength }, raw));
  return E.right(raw);
}

export function readBoolean(raw: unknown, field: string): Read<boolean> {
  return typeof raw === "boolean" ? E.right(raw) : E.left(invalidConfiguration(field, { rule: "type", expected: "boolean" }, raw));
}

export function readChoice<T extends string>(raw: unknown, field: string, choices: readonly T[]): Read<T> {
  return typeof raw === "string" && (choices as readonly string[]).includes(raw)
    ? E.right(raw as T)
    : E.left(invalidConfiguration(field, { rule: "one_of", choices }, raw));
}

/** A field that must be there. */
export function required(object: Readonly<Record<string, unknown>>, key: string, field: string): Read<unknown> {
  const value = own(object, key);
  return value === undefined ? E.left(invalidConfiguration(field, { rule: "required" }, undefined)) : E.right(value);
}

/**
 * A free-form value a client may store (a project's `variables` or `supplier`): JSON data nested at
 * most `maxDepth` levels, checked without recursion, so that writing and answering it later cannot
 * overflow the stack.
 */
export function readJsonValue(raw: unknown, field: string, maxDepth: number): Read<unknown> {
  const stack: [unknown, number][] = [[raw, 1]];
  while (stack.length > 0) {
    const [v, depth] = stack.pop() as [unknown, number];
    if (v === null || typeof v === "string" || typeof v === "boolean" || (typeof v === "number" && Number.isFinite(v))) continue;
    if (typeof v !== "object" || v instanceof Map || v instanceof Set) return E.left(invalidConfiguration(field, { rule: "type", expected: "object" }, typeof v));
    if (depth > maxDepth) return E.left(invalidConfiguration(field, { rule: "max_depth", limit: maxDepth }, depth));
    for (const child of Object.values(v)) stack.push([child, depth + 1]);
  }
  return E.right(raw);
}
