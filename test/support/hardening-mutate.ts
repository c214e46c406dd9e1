import fc from "fast-check";

/** Keys that have hurt JavaScript servers before, and keys the API knows. */
export const NASTY_KEYS = [
  "__proto__",
  "constructor",
  "prototype",
  "toString",
  "valueOf",
  "hasOwnProperty",
  "__defineGetter__",
  "polluted",
  "name",
  "type",
  "filters",
  "ports_mapping",
  "nodes",
  "lport",
  "",
] as const;

export const keyArb: fc.Arbitrary<string> = fc.oneof(
  { weight: 3, arbitrary: fc.constantFrom(...NASTY_KEYS) },
  { weight: 1, arbitrary: fc.string({ maxLength: 12 }) },
  { weight: 1, arbitrary: fc.string({ unit: "grapheme", maxLength: 8 }) },
);

/** A value nested `depth` levels deep in arrays or objects. */
export function nested(depth: number, asObject: boolean): unknown {
  let v: unknown = 1;
  for (let i = 0; i < depth; i++) v = asObject ? { a: v } : [v];
  return v;
}

/** An object whose own key `__proto__` holds `{polluted: ...}` (as JSON.parse makes it). */
export function protoCarrier(key: "__proto__" | "constructor" | "prototype"): Record<string, unknown> {
  const o: Record<string, unknown> = {};
  const payload: Record<string, unknown> = { polluted: "yes", isAdmin: true };
  if (key === "constructor") Object.defineProperty(o, key, { value: { prototype: payload }, enumerable: true, writable: true, configurable: true });
  else Object.defineProperty(o, key, { value: payload, enumerable: true, writable: true, configurable: true });
  return o;
}

export const weirdValueArb: fc.Arbitrary<unknown> = fc.oneof(
  { weight: 3, arbitrary: fc.jsonValue({ maxDepth: 3 }) },
  {
    weight: 2,
    arbitrary: fc.constantFrom<unknown>(
      1e308,
      -1e308,
      2 ** 53 + 1,
      -(2 ** 53) - 1,
      1e21,
      0.5,
      -1,
      0,
      65535,
      65536,
      4094,
      4095,
      4096,
      32768,
      -32769,
      2 ** 31,
      true,
      false,
      null,
      "",
      " ",
      "0",
      "1",
      "nio_udp",
      "nio_null",
      "127.0.0.1",
      "\u0000",
      "\ud800",
      "é\u0301",
      "👩‍👩‍👧",
      [],
      {},
      [[]],
      ["1"],
    ),
  },
  { weight: 1, arbitrary: fc.string({ unit: "grapheme", maxLength: 40 }) },
  { weight: 1, arbitrary: fc.integer({ min: 1000, max: 200_000 }).map((n) => "é".repeat(n)) },
  { weight: 1, arbitrary: fc.tuple(fc.integer({ min: 1, max: 400 }), fc.boolean()).map(([d, o]) => nested(d, o)) },
  { weight: 1, arbitrary: fc.constantFrom("__proto__", "constructor", "prototype").map((k) => protoCarrier(k as "__proto__")) },
);

export type Op =
  | { readonly kind: "drop"; readonly at: number; readonly pick: number }
  | { readonly kind: "add"; readonly at: number; readonly key: string; readonly value: unknown }
  | { readonly kind: "set"; readonly at: number; readonly pick: number; readonly value: unknown }
  | { readonly kind: "root"; readonly value: unknown };

export const opArb: fc.Arbitrary<Op> = fc.oneof(
  { weight: 3, arbitrary: fc.record({ kind: fc.constant("drop" as const), at: fc.nat(), pick: fc.nat() }) },
  { weight: 3, arbitrary: fc.record({ kind: fc.constant("add" as const), at: fc.nat(), key: keyArb, value: weirdValueArb }) },
  { weight: 4, arbitrary: fc.record({ kind: fc.constant("set" as const), at: fc.nat(), pick: fc.nat(), value: weirdValueArb }) },
  { weight: 1, arbitrary: fc.record({ kind: fc.constant("root" as const), value: weirdValueArb }) },
);

function define(o: object, key: string, value: unknown): void {
  Object.defineProperty(o, key, { value, enumerable: true, writable: true, configurable: true });
}

/** JSON-clones `v` keeping own `__proto__` keys as own keys (as JSON.parse does). */
export function cloneJson(v: unknown): unknown {
  return v === undefined ? undefined : JSON.parse(JSON.stringify(v));
}

function containers(root: unknown): object[] {
  const out: object[] = [];
  const walk = (v: unknown, depth: number): void => {
    if (typeof v !== "object" || v === null || depth > 6) return;
    out.push(v);
    for (const k of Object.keys(v)) walk((v as Record<string, unknown>)[k], depth + 1);
  };
  walk(root, 0);
  return out;
}

/** Applies the mutations to a clone of a valid body (`undefined` is taken as `{}`). */
export function mutate(valid: unknown, ops: readonly Op[]): unknown {
  let body = cloneJson(valid ?? {});
  for (const op of ops) {
    if (op.kind === "root") {
      body = cloneJson(op.value);
      continue;
    }
    const list = containers(body);
    if (list.length === 0) continue;
    const target = list[op.at % list.length]!;
    const keys = Object.keys(target);
    if (op.kind === "add") {
      if (Array.isArray(target)) target.push(op.value);
      else define(target, op.key, op.value);
    } else if (keys.length > 0) {
      const key = keys[op.pick % keys.length]!;
      if (op.kind === "drop") {
        if (Array.isArray(target)) target.splice(Number(key), 1);
        else delete (target as Record<string, unknown>)[key];
      } else define(target, key, op.value);
    }
  }
  return body;
}

/** The request body text: usually the mutated JSON, sometimes broken JSON. */
export const bodyTextArb = (valid: unknown): fc.Arbitrary<string | undefined> =>
  fc.oneof(
    { weight: 12, arbitrary: fc.array(opArb, { minLength: 0, maxLength: 3 }).map((ops) => JSON.stringify(mutate(valid, ops))) },
    { weight: 1, arbitrary: fc.constant(undefined) },
    { weight: 1, arbitrary: fc.string({ maxLength: 30 }) },
    {
      weight: 1,
      arbitrary: fc.nat().map((n) => {
        const text = JSON.stringify(valid ?? {});
        return text.slice(0, n % Math.max(1, text.length));
      }),
    },
    { weight: 1, arbitrary: fc.constantFrom("{", "[", '{"a":}', "nul", "1e99999", '"\\ud800"', '{"__proto__":{"polluted":1}}', "\u0000", "[]", "null", "0") },
  );

/** Path parameter values: mostly the valid one, else ids, digits, dots, encoded slashes, junk. */
export const paramArb = (valid: string): fc.Arbitrary<string> =>
  fc.oneof(
    { weight: 6, arbitrary: fc.constant(valid) },
    {
      weight: 3,
      arbitrary: fc.constantFrom(
        ".",
        "..",
        "%2e%2e",
        "%2F",
        "a%2Fb",
        "%",
        "%zz",
        "%E0%A4%A",
        "%C0%AF",
        "%00",
        "0",
        "00",
        "01",
        "-1",
        "1e3",
        "99999999999999999999999999",
        "%EF%BC%91",
        "__proto__",
        "constructor",
        encodeURIComponent(valid.toUpperCase()),
        `${valid}%20`,
        `${valid}.json`,
        "null",
        "undefined",
      ),
    },
    { weight: 1, arbitrary: fc.uuid().map((u) => u) },
    { weight: 1, arbitrary: fc.nat().map(String) },
    { weight: 1, arbitrary: fc.string({ unit: "grapheme", minLength: 1, maxLength: 20 }).map(encodeURIComponent) },
    { weight: 1, arbitrary: fc.integer({ min: 100, max: 6000 }).map((n) => "a".repeat(n)) },
  );

/**
 * A `{path}` parameter of the project files routes (several segments): mostly the valid one, else
 * what paramArb gives, or paths that try to leave the project directory or are not a file in it.
 */
export const filePathArb = (valid: string): fc.Arbitrary<string> =>
  fc.oneof(
    { weight: 3, arbitrary: paramArb(valid) },
    {
      weight: 2,
      arbitrary: fc.constantFrom(
        "..%2F..%2Fetc%2Fpasswd",
        "a/../../x",
        "%2Fetc%2Fpasswd",
        "/etc/passwd",
        "%2e%2e/%2e%2e/x",
        `${valid}/../../../x`,
        `./${valid}`,
        valid.replace("/", "//"),
        valid.replace("/", "/./"),
        valid.split("/")[0]!,
        `${valid.split("/")[0]!}/`,
        `${valid}/x`,
        `${valid}%00`,
        "a%5C..%5C..%5Cx",
        "project-files/captures/none.pcap",
      ),
    },
  );

/** A query string (with its "?"), or "". */
export const queryArb: fc.Arbitrary<string> = fc.oneof(
  { weight: 4, arbitrary: fc.constant("") },
  {
    weight: 2,
    arbitrary: fc
      .array(fc.tuple(keyArb, fc.oneof(fc.string({ maxLength: 10 }), fc.constantFrom("1", "true", "null", "[]", "{}"))), { minLength: 1, maxLength: 4 })
      .map((pairs) => "?" + pairs.map(([k, v]) => `${encodeURIComponent(k)}=${encodeURIComponent(v)}`).join("&")),
  },
  {
    weight: 1,
    arbitrary: fc.constantFrom(
      "?__proto__[polluted]=1",
      "?__proto__.polluted=1",
      "?constructor[prototype][polluted]=1",
      "?a=%",
      "?%zz=1",
      "?name=x&name=y",
      "?type=nio_null",
      "?filters=1",
      "?=",
      "?&&&",
    ),
  },
);
