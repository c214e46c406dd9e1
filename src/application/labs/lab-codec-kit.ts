import * as t from "io-ts";

/**
 * The few io-ts codecs a lab file is decoded with, each kept beside what it accepts (its shape) so that
 * the JSON Schema shipped for editors is generated from the very codecs the parser decodes with
 * (`labJsonSchema`, ADR 0084): the two cannot drift. Every codec reports one failure, with a message that
 * names what was expected; the failure's context is the path of the field, which the parser maps to a line.
 */
type Shape =
  | { readonly kind: "string"; readonly minLength?: number | undefined; readonly pattern?: RegExp | undefined; readonly description?: string | undefined }
  | { readonly kind: "integer"; readonly minimum?: number | undefined; readonly maximum?: number | undefined; readonly description?: string | undefined }
  | { readonly kind: "number"; readonly minimum?: number | undefined; readonly maximum?: number | undefined; readonly description?: string | undefined }
  | { readonly kind: "boolean"; readonly description?: string | undefined }
  | { readonly kind: "enum"; readonly values: readonly string[]; readonly description?: string | undefined }
  | { readonly kind: "const"; readonly value: string }
  | { readonly kind: "array"; readonly item: t.Mixed; readonly minItems?: number | undefined; readonly maxItems?: number | undefined; readonly description?: string | undefined }
  | { readonly kind: "tuple"; readonly items: readonly t.Mixed[]; readonly minItems: number; readonly description?: string | undefined }
  | { readonly kind: "object"; readonly required: t.Props; readonly optional: t.Props; readonly description?: string | undefined }
  | { readonly kind: "map"; readonly keyPattern: RegExp; readonly value: t.Mixed; readonly description?: string | undefined }
  | { readonly kind: "anyOf"; readonly branches: readonly t.Mixed[]; readonly description?: string | undefined }
  /** Objects told apart by one key's constant value (`kind: ethernet_switch`), as JSON Schema's if/then chain. */
  | { readonly kind: "tagged"; readonly tag: string; readonly branches: Readonly<Record<string, t.Mixed>>; readonly description?: string | undefined };

const SHAPES = new WeakMap<t.Mixed, Shape>();

function shaped<C extends t.Mixed>(codec: C, shape: Shape): C {
  SHAPES.set(codec, shape);
  return codec;
}

export function shapeOf(codec: t.Mixed): Shape {
  const shape = SHAPES.get(codec);
  if (shape === undefined) throw new Error(`codec ${codec.name} was not built by the lab codec kit`);
  return shape;
}

const show = (u: unknown): string => (u === undefined ? "nothing" : u === null ? "null" : typeof u === "string" ? JSON.stringify(u) : Array.isArray(u) ? "a list" : typeof u === "object" ? "a mapping" : String(u));

const isMapping = (u: unknown): u is Record<string, unknown> => typeof u === "object" && u !== null && !Array.isArray(u);

export function str(opts: { minLength?: number; pattern?: RegExp; patternText?: string; description?: string } = {}): t.Type<string> {
  return shaped(
    new t.Type<string>(
      "string",
      (u): u is string => typeof u === "string",
      (u, c) => {
        if (typeof u !== "string") return t.failure(u, c, `expected text, got ${show(u)}`);
        if (opts.minLength !== undefined && u.length < opts.minLength) return t.failure(u, c, "expected non-empty text");
        if (opts.pattern !== undefined && !opts.pattern.test(u)) return t.failure(u, c, `${show(u)} is not ${opts.patternText ?? `text matching ${opts.pattern.source}`}`);
        return t.success(u);
      },
      t.identity,
    ),
    { kind: "string", minLength: opts.minLength, pattern: opts.pattern, description: opts.description },
  );
}

export function int(opts: { minimum?: number; maximum?: number; description?: string } = {}): t.Type<number> {
  return shaped(
    new t.Type<number>(
      "integer",
      (u): u is number => typeof u === "number" && Number.isInteger(u),
      (u, c) => {
        if (typeof u !== "number" || !Number.isInteger(u)) return t.failure(u, c, `expected a whole number, got ${show(u)}`);
        if (opts.minimum !== undefined && u < opts.minimum) return t.failure(u, c, `${u} is below the minimum of ${opts.minimum}`);
        if (opts.maximum !== undefined && u > opts.maximum) return t.failure(u, c, `${u} is above the maximum of ${opts.maximum}`);
        return t.success(u);
      },
      t.identity,
    ),
    { kind: "integer", minimum: opts.minimum, maximum: opts.maximum, description: opts.description },
  );
}

/** A number that may have decimals (how many is the domain's to check: ADR 0101). */
export function num(opts: { minimum?: number; maximum?: number; description?: string } = {}): t.Type<number> {
  return shaped(
    new t.Type<number>(
      "number",
      (u): u is number => typeof u === "number",
      (u, c) => {
        if (typeof u !== "number" || !Number.isFinite(u)) return t.failure(u, c, `expected a number, got ${show(u)}`);
        if (opts.minimum !== undefined && u < opts.minimum) return t.failure(u, c, `${u} is below the minimum of ${opts.minimum}`);
        if (opts.maximum !== undefined && u > opts.maximum) return t.failure(u, c, `${u} is above the maximum of ${opts.maximum}`);
        return t.success(u);
      },
      t.identity,
    ),
    { kind: "number", minimum: opts.minimum, maximum: opts.maximum, description: opts.description },
  );
}

export function bool(description?: string): t.Type<boolean> {
  return shaped(
    new t.Type<boolean>(
      "boolean",
      (u): u is boolean => typeof u === "boolean",
      (u, c) => (typeof u === "boolean" ? t.success(u) : t.failure(u, c, `expected true or false, got ${show(u)}`)),
      t.identity,
    ),
    { kind: "boolean", description },
  );
}

export function oneOfValues<V extends string>(values: readonly V[], description?: string): t.Type<V> {
  return shaped(
    new t.Type<V>(
      values.join(" | "),
      (u): u is V => typeof u === "string" && (values as readonly string[]).includes(u),
      (u, c) => (typeof u === "string" && (values as readonly string[]).includes(u) ? t.success(u as V) : t.failure(u, c, `${show(u)} is not one of ${values.map((v) => JSON.stringify(v)).join(", ")}`)),
      t.identity,
    ),
    { kind: "enum", values, description },
  );
}

export function constant<V extends string>(value: V): t.Type<V> {
  return shaped(
    new t.Type<V>(
      JSON.stringify(value),
      (u): u is V => u === value,
      (u, c) => (u === value ? t.success(value) : t.failure(u, c, `expected ${JSON.stringify(value)}, got ${show(u)}`)),
      t.identity,
    ),
    { kind: "const", value },
  );
}

export function list<A>(item: t.Type<A>, opts: { minItems?: number; maxItems?: number; description?: string } = {}): t.Type<A[]> {
  return shaped(
    new t.Type<A[]>(
      `Array<${item.name}>`,
      (u): u is A[] => Array.isArray(u),
      (u, c) => {
        if (!Array.isArray(u)) return t.failure(u, c, `expected a list, got ${show(u)}`);
        if (opts.minItems !== undefined && u.length < opts.minItems) return t.failure(u, c, `expected at least ${opts.minItems} item${opts.minItems === 1 ? "" : "s"}, got ${u.length}`);
        if (opts.maxItems !== undefined && u.length > opts.maxItems) return t.failure(u, c, `expected at most ${opts.maxItems} items, got ${u.length}`);
        const out: A[] = [];
        for (let i = 0; i < u.length; i++) {
          const r = item.validate(u[i], t.appendContext(c, String(i), item, u[i]));
          if (r._tag === "Left") return r;
          out.push(r.right);
        }
        return t.success(out);
      },
      t.identity,
    ),
    { kind: "array", item, minItems: opts.minItems, maxItems: opts.maxItems, description: opts.description },
  );
}

/** A list of `minItems` to `items.length` values, each position its own codec (a filter's parameters). */
export function tuple(items: readonly t.Mixed[], minItems: number, description?: string): t.Type<unknown[]> {
  return shaped(
    new t.Type<unknown[]>(
      "tuple",
      (u): u is unknown[] => Array.isArray(u),
      (u, c) => {
        if (!Array.isArray(u)) return t.failure(u, c, `expected a list, got ${show(u)}`);
        if (u.length < minItems || u.length > items.length) {
          const expected = minItems === items.length ? `${minItems}` : `${minItems} to ${items.length}`;
          return t.failure(u, c, `expected ${expected} values, got ${u.length}`);
        }
        const out: unknown[] = [];
        for (let i = 0; i < u.length; i++) {
          const item = items[i] as t.Mixed;
          const r = item.validate(u[i], t.appendContext(c, String(i), item, u[i]));
          if (r._tag === "Left") return r;
          out.push(r.right);
        }
        return t.success(out);
      },
      t.identity,
    ),
    { kind: "tuple", items, minItems, description },
  );
}

type Decoded<P extends t.Props> = { [K in keyof P]: t.TypeOf<P[K]> };
export type ObjectOf<R extends t.Props, O extends t.Props> = Decoded<R> & Partial<Decoded<O>>;

/** A mapping with required and optional keys; any other key is refused, by name (a typo never passes silently). */
export function object<R extends t.Props, O extends t.Props>(name: string, required: R, optional: O, description?: string): t.Type<ObjectOf<R, O>> {
  const known = [...Object.keys(required), ...Object.keys(optional)];
  return shaped(
    new t.Type<ObjectOf<R, O>>(
      name,
      (u): u is ObjectOf<R, O> => isMapping(u),
      (u, c) => {
        if (!isMapping(u)) return t.failure(u, c, `expected a mapping, got ${show(u)}`);
        for (const key of Object.keys(u)) {
          if (!known.includes(key)) {
            return t.failure(u[key], t.appendContext(c, key, t.unknown, u[key]), `unknown key ${JSON.stringify(key)} (known here: ${known.join(", ")})`);
          }
        }
        for (const key of Object.keys(required)) {
          if (!(key in u)) return t.failure(u, c, `${JSON.stringify(key)} is required`);
        }
        const out: Record<string, unknown> = {};
        for (const [key, codec] of [...Object.entries(required), ...Object.entries(optional)]) {
          if (!(key in u)) continue;
          const r = codec.validate(u[key], t.appendContext(c, key, codec, u[key]));
          if (r._tag === "Left") return r;
          out[key] = r.right;
        }
        return t.success(out as ObjectOf<R, O>);
      },
      t.identity,
    ),
    { kind: "object", required, optional, description },
  );
}

/** A mapping of names (matching `keyPattern`) to values of one codec, in the file's order. */
export function map<A>(keyPattern: RegExp, keyText: string, value: t.Type<A>, description?: string): t.Type<[string, A][]> {
  return shaped(
    new t.Type<[string, A][]>(
      `Map<${value.name}>`,
      (u): u is [string, A][] => Array.isArray(u),
      (u, c) => {
        if (!isMapping(u)) return t.failure(u, c, `expected a mapping of ${keyText}, got ${show(u)}`);
        const out: [string, A][] = [];
        for (const [key, v] of Object.entries(u)) {
          if (!keyPattern.test(key)) return t.failure(v, t.appendContext(c, key, t.unknown, v), `${JSON.stringify(key)} is not ${keyText}`);
          const r = value.validate(v, t.appendContext(c, key, value, v));
          if (r._tag === "Left") return r;
          out.push([key, r.right]);
        }
        return t.success(out);
      },
      t.identity,
    ),
    { kind: "map", keyPattern, value, description },
  );
}

/**
 * The first branch that takes the value (a filter's `50` or `[50, 5]`). Branches must not overlap in
 * what they take (a number, a list), so the first fit is the only one; its failure is the one of the branch
 * whose type fits, else the expected types are listed.
 */
export function anyOf(branches: readonly t.Mixed[], what: string, description?: string): t.Type<unknown> {
  return shaped(
    new t.Type<unknown>(
      what,
      (u): u is unknown => branches.some((b) => b.is(u)),
      (u, c) => {
        for (const b of branches) {
          if (b.is(u)) return b.validate(u, c);
        }
        return t.failure(u, c, `expected ${what}, got ${show(u)}`);
      },
      t.identity,
    ),
    { kind: "anyOf", branches, description },
  );
}

/** Mappings told apart by the value of their `tag` key; each branch is an `object` whose `tag` key is a `constant`. */
export function tagged(tag: string, branches: Readonly<Record<string, t.Mixed>>, description?: string): t.Type<Record<string, unknown>> {
  const names = Object.keys(branches);
  return shaped(
    new t.Type<Record<string, unknown>>(
      `tagged<${tag}>`,
      (u): u is Record<string, unknown> => isMapping(u),
      (u, c) => {
        if (!isMapping(u)) return t.failure(u, c, `expected a mapping, got ${show(u)}`);
        if (!(tag in u)) return t.failure(u, c, `${JSON.stringify(tag)} is required (one of ${names.join(", ")})`);
        const value = u[tag];
        const branch = typeof value === "string" && Object.hasOwn(branches, value) ? branches[value] : undefined;
        if (branch === undefined) return t.failure(value, t.appendContext(c, tag, t.unknown, value), `${show(value)} is not one of ${names.join(", ")}`);
        return branch.validate(u, c) as t.Validation<Record<string, unknown>>;
      },
      t.identity,
    ),
    { kind: "tagged", tag, branches, description },
  );
}

type JsonSchema = Record<string, unknown>;

/**
 * The JSON Schema (draft 2020-12) a codec built here stands for; a codec named in `refs` (other than the one
 * asked for) is written as a `$ref` to `#/$defs/<name>`, so a part used in several places is written once.
 */
export function jsonSchemaOf(codec: t.Mixed, refs: ReadonlyMap<t.Mixed, string> = new Map()): JsonSchema {
  const s = shapeOf(codec);
  const of = (inner: t.Mixed): JsonSchema => {
    const name = refs.get(inner);
    return name === undefined ? jsonSchemaOf(inner, refs) : { $ref: `#/$defs/${name}` };
  };
  const described = (schema: JsonSchema): JsonSchema => ("description" in s && s.description !== undefined ? { description: s.description, ...schema } : schema);
  switch (s.kind) {
    case "string":
      return described({ type: "string", ...(s.minLength === undefined ? {} : { minLength: s.minLength }), ...(s.pattern === undefined ? {} : { pattern: s.pattern.source }) });
    case "integer":
    case "number":
      return described({ type: s.kind, ...(s.minimum === undefined ? {} : { minimum: s.minimum }), ...(s.maximum === undefined ? {} : { maximum: s.maximum }) });
    case "boolean":
      return described({ type: "boolean" });
    case "enum":
      return described({ enum: [...s.values] });
    case "const":
      return { const: s.value };
    case "array":
      return described({ type: "array", items: of(s.item), ...(s.minItems === undefined ? {} : { minItems: s.minItems }), ...(s.maxItems === undefined ? {} : { maxItems: s.maxItems }) });
    case "tuple":
      return described({ type: "array", prefixItems: s.items.map(of), items: false, minItems: s.minItems, maxItems: s.items.length });
    case "object":
      return described({
        type: "object",
        properties: Object.fromEntries([...Object.entries(s.required), ...Object.entries(s.optional)].map(([k, c]) => [k, of(c)])),
        ...(Object.keys(s.required).length === 0 ? {} : { required: Object.keys(s.required) }),
        additionalProperties: false,
      });
    case "map":
      return described({ type: "object", propertyNames: { pattern: s.keyPattern.source }, additionalProperties: of(s.value) });
    case "anyOf":
      return described({ anyOf: s.branches.map(of) });
    case "tagged":
      return described({
        type: "object",
        required: [s.tag],
        properties: { [s.tag]: { enum: Object.keys(s.branches) } },
        allOf: Object.entries(s.branches).map(([value, branch]) => ({ if: { properties: { [s.tag]: { const: value } } }, then: of(branch) })),
      });
  }
}
