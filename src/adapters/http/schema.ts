import * as t from "io-ts";
import { pythonRepr } from "../shared/python-repr.js";

/**
 * io-ts codecs whose failures carry the message jsonschema (draft-04, as GNS3 2.2 uses it) would
 * give, so that a 400 reads like GNS3's. Each codec reports one failure: the best match, top
 * level first (a missing required key beats a wrong-typed nested value), as jsonschema does.
 */
const typeName = (u: unknown): string => pythonRepr(u);

/**
 * What a codec built here accepts, kept beside the codec so that the API's description derives its
 * JSON Schemas from the very codecs the routes decode with (ADR 0045).
 */
type CodecShape =
  | { readonly kind: "string"; readonly minLength?: number | undefined; readonly maxLength?: number | undefined; readonly pattern?: RegExp | undefined }
  | { readonly kind: "integer"; readonly minimum?: number | undefined; readonly maximum?: number | undefined }
  | { readonly kind: "nullable"; readonly of: t.Mixed }
  | { readonly kind: "number" }
  | { readonly kind: "boolean" }
  | { readonly kind: "enum"; readonly values: readonly string[] }
  | { readonly kind: "object" }
  | { readonly kind: "array"; readonly item: t.Mixed }
  | { readonly kind: "closedObject"; readonly name: string; readonly required: t.Props; readonly optional: t.Props; readonly additional: boolean }
  | { readonly kind: "oneOf"; readonly branches: readonly t.Mixed[] }
  | { readonly kind: "anyOf"; readonly branches: readonly t.Mixed[] }
  | { readonly kind: "openObject"; readonly name: string; readonly optional: t.Props };

const SHAPES = new WeakMap<t.Mixed, CodecShape>();

function shaped<C extends t.Mixed>(codec: C, shape: CodecShape): C {
  SHAPES.set(codec, shape);
  return codec;
}

/** The shape of a codec built here, or undefined for any other codec. */
export function shapeOf(codec: t.Mixed): CodecShape | undefined {
  return SHAPES.get(codec);
}

/**
 * Declares a codec written by hand as one of `branches` (exactly one fits, as JSON Schema's oneOf): its
 * own validation must agree, which the OpenAPI test checks on generated bodies.
 */
export function asOneOf<C extends t.Mixed>(codec: C, branches: readonly t.Mixed[]): C {
  return shaped(codec, { kind: "oneOf", branches });
}

export function jsonString(opts: { minLength?: number; maxLength?: number; pattern?: RegExp } = {}): t.Type<string, string, unknown> {
  return shaped(new t.Type<string, string, unknown>(
    "string",
    (u): u is string => typeof u === "string",
    (u, c) => {
      if (typeof u !== "string") return t.failure(u, c, `${typeName(u)} is not of type 'string'`);
      if (opts.minLength !== undefined && u.length < opts.minLength) {
        return t.failure(u, c, opts.minLength === 1 ? `${typeName(u)} should be non-empty` : `${typeName(u)} is too short`);
      }
      if (opts.maxLength !== undefined && u.length > opts.maxLength) return t.failure(u, c, `${typeName(u)} is too long`);
      if (opts.pattern !== undefined && !opts.pattern.test(u)) {
        return t.failure(u, c, `${typeName(u)} does not match '${opts.pattern.source}'`);
      }
      return t.success(u);
    },
    t.identity,
  ), { kind: "string", ...opts });
}

/** JSON integers; like draft-04, a boolean is not one (JS cannot see 5000.0, which parses as 5000). */
export function jsonInteger(opts: { minimum?: number; maximum?: number; nullable?: boolean } = {}): t.Type<number, number, unknown> {
  const expected = opts.nullable === true ? "'integer', 'null'" : "'integer'";
  return shaped(new t.Type<number, number, unknown>(
    "integer",
    (u): u is number => typeof u === "number" && Number.isInteger(u),
    (u, c) => {
      if (typeof u !== "number" || !Number.isInteger(u)) return t.failure(u, c, `${typeName(u)} is not of type ${expected}`);
      if (opts.minimum !== undefined && u < opts.minimum) return t.failure(u, c, `${u} is less than the minimum of ${opts.minimum}`);
      if (opts.maximum !== undefined && u > opts.maximum) return t.failure(u, c, `${u} is greater than the maximum of ${opts.maximum}`);
      return t.success(u);
    },
    t.identity,
  ), { kind: "integer", minimum: opts.minimum, maximum: opts.maximum });
}

export function nullable<A>(codec: t.Type<A, A, unknown>): t.Type<A | null, A | null, unknown> {
  return shaped(new t.Type<A | null, A | null, unknown>(
    `${codec.name} | null`,
    (u): u is A | null => u === null || codec.is(u),
    (u, c) => (u === null ? t.success(null) : codec.validate(u, c)),
    t.identity,
  ), { kind: "nullable", of: codec });
}

export const jsonBoolean = shaped(new t.Type<boolean, boolean, unknown>(
  "boolean",
  (u): u is boolean => typeof u === "boolean",
  (u, c) => (typeof u === "boolean" ? t.success(u) : t.failure(u, c, `${typeName(u)} is not of type 'boolean'`)),
  t.identity,
), { kind: "boolean" });

export function jsonEnum<T extends string>(values: readonly T[]): t.Type<T, T, unknown> {
  return shaped(new t.Type<T, T, unknown>(
    values.join(" | "),
    (u): u is T => typeof u === "string" && (values as readonly string[]).includes(u),
    (u, c) =>
      typeof u === "string" && (values as readonly string[]).includes(u)
        ? t.success(u as T)
        : t.failure(u, c, `${typeName(u)} is not one of [${values.map((v) => pythonRepr(v)).join(", ")}]`),
    t.identity,
  ), { kind: "enum", values });
}

const isPlainObject = (u: unknown): u is Record<string, unknown> => typeof u === "object" && u !== null && !Array.isArray(u);

/** Any JSON object (GNS3's `"type": "object"` with no further rule). */
export const jsonObject = shaped(new t.Type<Record<string, unknown>, Record<string, unknown>, unknown>(
  "object",
  isPlainObject,
  (u, c) => (isPlainObject(u) ? t.success(u) : t.failure(u, c, `${typeName(u)} is not of type 'object'`)),
  t.identity,
), { kind: "object" });

export function jsonArray<A>(item: t.Type<A, A, unknown>): t.Type<A[], A[], unknown> {
  return shaped(new t.Type<A[], A[], unknown>(
    `Array<${item.name}>`,
    (u): u is A[] => Array.isArray(u) && u.every(item.is),
    (u, c) => {
      if (!Array.isArray(u)) return t.failure(u, c, `${typeName(u)} is not of type 'array'`);
      const out: A[] = [];
      for (let i = 0; i < u.length; i++) {
        const r = item.validate(u[i], t.appendContext(c, String(i), item, u[i]));
        if (r._tag === "Left") return r;
        out.push(r.right);
      }
      return t.success(out);
    },
    t.identity,
  ), { kind: "array", item });
}

type Decoded<P extends t.Props> = { [K in keyof P]: t.TypeOf<P[K]> };
type ObjectOf<R extends t.Props, O extends t.Props> = Decoded<R> & Partial<Decoded<O>>;

/**
 * A JSON object with required and optional properties; unknown keys are refused unless
 * `additional` is set (GNS3's `additionalProperties: false`).
 */
export function jsonClosedObject<R extends t.Props, O extends t.Props>(
  name: string,
  required: R,
  optional: O,
  opts: { additional?: boolean; requireObjectType?: boolean } = {},
): t.Type<ObjectOf<R, O>, ObjectOf<R, O>, unknown> {
  const known = new Set([...Object.keys(required), ...Object.keys(optional)]);
  return shaped(new t.Type<ObjectOf<R, O>, ObjectOf<R, O>, unknown>(
    name,
    (u): u is ObjectOf<R, O> => isPlainObject(u),
    (u, c) => {
      if (!isPlainObject(u)) return t.failure(u, c, `${typeName(u)} is not of type 'object'`);
      for (const key of Object.keys(required)) {
        if (!(key in u)) return t.failure(u, c, `'${key}' is a required property`);
      }
      if (opts.additional !== true) {
        const extra = Object.keys(u).filter((k) => !known.has(k));
        if (extra.length > 0) {
          const list = extra.map((k) => pythonRepr(k)).join(", ");
          return t.failure(u, c, `Additional properties are not allowed (${list} ${extra.length === 1 ? "was" : "were"} unexpected)`);
        }
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
  ), { kind: "closedObject", name, required, optional, additional: opts.additional === true });
}

/**
 * Where in the body the (single) failure is, as `filters_out.delay[0]`: "" for the body itself. jsonschema's
 * messages name the value, not its place, so a short string could be any field's (issue 27).
 */
export function schemaPath(errors: t.Errors): string {
  const keys = (errors[0]?.context ?? []).map((entry) => entry.key).filter((key) => key !== "");
  return keys.reduce((path, key) => (/^\d+$/.test(key) ? `${path}[${key}]` : path === "" ? key : `${path}.${key}`), "");
}

/** The message of the (single) failure a codec above reports. */
export function schemaMessage(errors: t.Errors): string {
  const first = errors[0];
  if (first === undefined) return "invalid request";
  return first.message ?? `${typeName(first.value)} is not valid under any of the given schemas`;
}

/**
 * Exactly one of `branches` (JSON Schema's oneOf), for answers, which are described and never decoded
 * by the router: it decodes what exactly one branch takes, without GNS3's messages.
 */
export function jsonOneOf<Bs extends readonly [t.Mixed, t.Mixed, ...t.Mixed[]]>(name: string, branches: Bs): t.Type<t.TypeOf<Bs[number]>, t.TypeOf<Bs[number]>, unknown> {
  const fitting = (u: unknown) => branches.filter((b) => b.decode(u)._tag === "Right");
  return asOneOf(new t.Type<t.TypeOf<Bs[number]>, t.TypeOf<Bs[number]>, unknown>(
    name,
    (u): u is t.TypeOf<Bs[number]> => fitting(u).length === 1,
    (u, c) => (fitting(u).length === 1 ? t.success(u as t.TypeOf<Bs[number]>) : t.failure(u, c, `${typeName(u)} is not valid under exactly one of the given schemas`)),
    t.identity,
  ), branches);
}

/** Any JSON number (answers' percentages). */
export const jsonNumber = shaped(new t.Type<number, number, unknown>(
  "number",
  (u): u is number => typeof u === "number",
  (u, c) => (typeof u === "number" ? t.success(u) : t.failure(u, c, `${typeName(u)} is not of type 'number'`)),
  t.identity,
), { kind: "number" });

/**
 * At least one of `branches` (JSON Schema's anyOf), decoded as the first that fits. When none does,
 * the failure reported is the deepest of the branches' (jsonschema's best_match descends so into an
 * anyOf), so that a switch's entry with a VLAN out of range is told about its VLAN, not that it is
 * not a hub's entry.
 */
export function jsonAnyOf<Bs extends readonly [t.Mixed, t.Mixed, ...t.Mixed[]]>(name: string, branches: Bs): t.Type<t.TypeOf<Bs[number]>, t.TypeOf<Bs[number]>, unknown> {
  return shaped(new t.Type<t.TypeOf<Bs[number]>, t.TypeOf<Bs[number]>, unknown>(
    name,
    (u): u is t.TypeOf<Bs[number]> => branches.some((b) => b.is(u)),
    (u, c) => {
      let deepest: t.Errors | undefined;
      for (const branch of branches) {
        const r = branch.validate(u, c);
        if (r._tag === "Right") return t.success(r.right as t.TypeOf<Bs[number]>);
        const depth = r.left[0]?.context.length ?? 0;
        if (deepest === undefined || depth > (deepest[0]?.context.length ?? 0)) deepest = r.left;
      }
      return t.failures(deepest ?? []);
    },
    t.identity,
  ), { kind: "anyOf", branches });
}

/**
 * `codec`'s check, answering the value as it came: for a part whose keys belong to different readers
 * (a node's `properties`, checked here for a switch's or hub's ports and read again by the node's type),
 * where a branch's decoded value would drop a key another reader needs (a VPCS's `startup_script`).
 */
export function checkedAsGiven<C extends t.Mixed>(codec: C): C {
  const kept = new t.Type<t.TypeOf<C>, t.OutputOf<C>, unknown>(
    codec.name,
    codec.is,
    (u, c) => {
      const r = codec.validate(u, c);
      return r._tag === "Right" ? t.success(u as t.TypeOf<C>) : r;
    },
    codec.encode,
  ) as unknown as C;
  const shape = SHAPES.get(codec);
  return shape === undefined ? kept : shaped(kept, shape);
}

/**
 * A JSON object a client owns (GNS3 keeps it as given, e.g. a link's `link_style`): the properties
 * named here are checked when present, any other key is kept as it came.
 */
export function jsonOpenObject<O extends t.Props>(name: string, optional: O): t.Type<Partial<Decoded<O>> & Readonly<Record<string, unknown>>, Partial<Decoded<O>> & Readonly<Record<string, unknown>>, unknown> {
  type Open = Partial<Decoded<O>> & Readonly<Record<string, unknown>>;
  return shaped(new t.Type<Open, Open, unknown>(
    name,
    (u): u is Open => isPlainObject(u),
    (u, c) => {
      if (!isPlainObject(u)) return t.failure(u, c, `${typeName(u)} is not of type 'object'`);
      for (const [key, codec] of Object.entries(optional)) {
        if (!Object.hasOwn(u, key)) continue;
        const r = codec.validate(u[key], t.appendContext(c, key, codec, u[key]));
        if (r._tag === "Left") return r;
      }
      // The object itself, as jsonObject gives it: its keys are the client's.
      return t.success(u as Open);
    },
    t.identity,
  ), { kind: "openObject", name, optional });
}
