import { expect } from "chai";
import fc from "fast-check";
import * as E from "fp-ts/lib/Either.js";
import { CONFIGURATION_LIMITS } from "../../../src/domain/configuration/limits.js";
import { readJsonValue } from "../../../src/domain/configuration/read.js";
import { DELAY_DISTRIBUTIONS, FILTER_KINDS, type FilterKind, type IntParameter, descriptorOf } from "../../../src/domain/filters/catalogue.js";
import { type FilterSettings, filterSettingsEqual, parseFilterSettings, directionConflict, renderFilterSettings } from "../../../src/domain/filters/filter-settings.js";
import { ETHERTYPE_CHOICES, type PortMappingEntry, parseSwitchPorts, portsMappingEqual } from "../../../src/domain/switching/port.js";
import { type HubPortEntry, parseHubPorts } from "../../../src/domain/switching/ethernet-hub.js";
import { type Nio, nioEqual, parseNio } from "../../../src/domain/switching/nio.js";
import { type ComputeNode, parseComputeNode, parseComputeNodeFields, parseNodeName } from "../../../src/domain/switching/compute-node.js";
import { applyNodeChange, decodeWorkerRequest, nodeChange } from "../../../src/adapters/threads/data-plane/protocol.js";
import { FC_SEED } from "../../support/hardening-kit.js";

/**
 * Configuration as values (ADR 0053), as properties: a valid value read back from its wire form is
 * itself, by deep equality and by the domain's own equality; that equality is an equivalence that
 * ignores key order and copies and sees any one changed field; and junk never makes a parse throw.
 */
const RUNS = Number.parseInt(process.env["FC_RUNS"] ?? "200", 10);
// eslint-disable-next-line @typescript-eslint/no-explicit-any
const run = (property: fc.IRawProperty<any, false>): void => fc.assert(property, { numRuns: RUNS, seed: FC_SEED, endOnFailure: true });

// ---- valid values -------------------------------------------------------------------------------

/** The fewest values of a number kind (trailing parameters with a default may be left out). */
const MINIMUM_VALUES: Partial<Record<FilterKind, number>> = { delay: 1, bandwidth: 1, burst_loss: 2 };

function intEntry(kind: FilterKind): fc.Arbitrary<number[]> {
  const params = descriptorOf(kind).parameters as readonly IntParameter[];
  const count = fc.integer({ min: MINIMUM_VALUES[kind] ?? params.length, max: params.length });
  // A first value of 0 turns the filter off (GNS3's normalisation): an "on" value never starts with it.
  return count.chain((n) => fc.tuple(...params.slice(0, n).map((p, i) => fc.integer({ min: p.minimum, max: p.maximum }).filter((v) => i > 0 || v !== 0))));
}

/** Text items of a bpf or match filter as a client reads them back: no spaces or newlines at their ends, the first not empty. */
const expressionItem = fc.oneof(
  fc.constantFrom("icmp", "tcp port 80", "udp and not port 53", "arp", "vlan 10", "ether host 00:50:79:66:68:01", "icmp\ntcp"),
  fc.string({ maxLength: 18 }).map((s) => `(${s})`),
);
const textEntry = fc.tuple(expressionItem, fc.array(fc.oneof(expressionItem, fc.constant("")), { maxLength: 2 })).map(([first, rest]) => [first, ...rest]);

/** A queue discipline as tc writes it (ADR 0100), in one item or two. */
const disciplineEntry: fc.Arbitrary<unknown[]> = fc.constantFrom<string[]>(["tail_drop"], ["codel"], ["fq_codel"], ["codel", "target 2ms interval 50ms ecn"], ["fq_codel flows 64 quantum 300 noecn"], ["fq_codel", "memory_limit 4mb"]);

/** A trace's name (ADR 0103), with capacity_trace's queue bound in frames or not. */
const traceName = fc.stringMatching(/^[A-Za-z0-9_-][A-Za-z0-9._-]{0,20}$/);
const traceEntry = (kind: FilterKind): fc.Arbitrary<unknown[]> => (kind === "capacity_trace" ? fc.oneof(traceName.map((n) => [n]), fc.tuple(traceName, fc.integer({ min: 1, max: 100_000 }))) : traceName.map((n) => [n]));

const entryOf = (kind: FilterKind): fc.Arbitrary<unknown[]> =>
  kind === "capacity_trace" || kind === "delay_trace" || kind === "loss_trace" ? traceEntry(kind) :
  kind === "bpf" || kind === "match" ? textEntry : kind === "delay_distribution" ? fc.constantFrom(...DELAY_DISTRIBUTIONS).map((d) => [d]) : kind === "queue_discipline" ? disciplineEntry : intEntry(kind);

/** Valid, canonical filter settings: kinds in the catalogue's order, each "on". */
const filterSettings: fc.Arbitrary<FilterSettings> = fc.record(Object.fromEntries(FILTER_KINDS.map((k) => [k, entryOf(k)])) as Record<FilterKind, fc.Arbitrary<unknown[]>>, { requiredKeys: [], noNullPrototype: true })
  // capacity_trace and bandwidth are two rates: a direction takes one (ADR 0103).
  .map((s) => (s.capacity_trace !== undefined && s.bandwidth !== undefined ? { ...s, capacity_trace: undefined } : s))
  // and its link is tail drop only: codel or fq_codel beside it is refused (ADR 0103, 2026-11-26).
  .map((s) => (s.capacity_trace !== undefined && s.queue_discipline !== undefined ? { ...s, capacity_trace: undefined } : s))
  .map((s) => Object.fromEntries(Object.entries(s).filter(([, v]) => v !== undefined))) as fc.Arbitrary<FilterSettings>;
const someFilters = filterSettings.filter((f) => Object.keys(f).length > 0);

const portName = fc.oneof({ weight: 5, arbitrary: fc.string({ minLength: 1, maxLength: 12 }) }, { weight: 1, arbitrary: fc.string({ minLength: CONFIGURATION_LIMITS.nameLength - 3, maxLength: CONFIGURATION_LIMITS.nameLength }) });
const portNumber = fc.integer({ min: 0, max: CONFIGURATION_LIMITS.maxPortNumber });

const switchEntry: fc.Arbitrary<PortMappingEntry> = fc.record(
  {
    name: portName,
    port_number: portNumber,
    type: fc.constantFrom("access", "dot1q", "qinq"),
    vlan: fc.integer({ min: 1, max: 4094 }),
    ethertype: fc.constantFrom(...ETHERTYPE_CHOICES),
  },
  { requiredKeys: ["name", "port_number", "type"], noNullPrototype: true },
) as fc.Arbitrary<PortMappingEntry>;
const switchPorts = fc.uniqueArray(switchEntry, { maxLength: 24, selector: (p) => p.port_number });
const hubPorts: fc.Arbitrary<HubPortEntry[]> = fc.uniqueArray(fc.record({ name: portName, port_number: portNumber }, { noNullPrototype: true }), { maxLength: 24, selector: (p) => p.port_number });

const udpPort = fc.integer({ min: 1, max: 65_535 });
const udpNio = fc.record(
  {
    type: fc.constant("nio_udp" as const),
    lport: udpPort,
    rhost: fc.oneof(fc.constantFrom("127.0.0.1", "::1", "gns3.example"), fc.string({ minLength: 1, maxLength: CONFIGURATION_LIMITS.hostLength })),
    rport: udpPort,
    filters: filterSettings,
    // Canonical: direction filters only when they hold one.
    filtersIn: someFilters,
    filtersOut: someFilters,
    suspend: fc.boolean(),
  },
  { requiredKeys: ["type", "lport", "rhost", "rport", "filters", "suspend"], noNullPrototype: true },
  // A direction runs `filters` with its own over them: a rate or discipline in one beside a capacity trace in the other is refused (ADR 0103, 2026-11-26).
).filter((n) => [n.filtersIn, n.filtersOut].every((d) => d === undefined || directionConflict({ ...n.filters, ...d }) === undefined));
const nio: fc.Arbitrary<Nio> = fc.oneof({ weight: 5, arbitrary: udpNio }, { weight: 1, arbitrary: fc.constant({ type: "nio_null" as const }) }) as fc.Arbitrary<Nio>;

const NODE_ID = "aaaaaaaa-0000-4000-8000-000000000001";
const PROJECT_ID = "bbbbbbbb-0000-4000-8000-000000000001";

/** A switch or hub record of the given type, with NIOs on some of its ports. */
function computeNode(nodeType: ComputeNode["nodeType"]): fc.Arbitrary<ComputeNode> {
  const ports: fc.Arbitrary<readonly HubPortEntry[]> = nodeType === "ethernet_switch" ? switchPorts : hubPorts;
  return fc
    .record({ ports: ports.filter((p) => p.length > 0), name: portName, status: fc.constantFrom("started", "stopped", "suspended"), console: fc.option(udpPort), consoleType: fc.constantFrom("telnet", "none") })
    .chain(({ ports, name, status, console, consoleType }) =>
      fc.subarray(ports.map((p) => p.port_number)).chain((wired) =>
        fc.tuple(...wired.map(() => nio)).map((nios) => {
          const common = { nodeId: NODE_ID, projectId: PROJECT_ID, name, status, portsMapping: ports, nios: new Map(wired.map((port, i) => [port, nios[i] as Nio])) };
          return (nodeType === "ethernet_switch" ? { nodeType, ...common, console, consoleType } : { nodeType, ...common }) as ComputeNode;
        }),
      ),
    );
}
const anyNode = fc.constantFrom("ethernet_switch" as const, "ethernet_hub" as const).chain(computeNode);

// ---- copies, key orders and mutations ------------------------------------------------------------

/** The same value with every object's keys in reverse order (arrays and Maps keep theirs). */
function reversedKeys<T>(v: T): T {
  if (Array.isArray(v)) return v.map(reversedKeys) as T;
  if (v instanceof Map) return new Map([...v].map(([k, x]) => [k, reversedKeys(x)])) as T;
  if (typeof v !== "object" || v === null) return v;
  const out: Record<string, unknown> = {};
  for (const key of Object.keys(v).reverse()) out[key] = reversedKeys((v as Record<string, unknown>)[key]);
  return out as T;
}

/** Every place in a value: the keys (or Map keys) leading to it from the top. */
function pathsOf(v: unknown): unknown[][] {
  const out: unknown[][] = [[]];
  const stack: [unknown, unknown[]][] = [[v, []]];
  while (stack.length > 0 && out.length < 2000) {
    const [x, path] = stack.pop() as [unknown, unknown[]];
    const children: [unknown, unknown][] = x instanceof Map ? [...x] : typeof x === "object" && x !== null ? Object.entries(x) : [];
    for (const [key, child] of children) {
      out.push([...path, key]);
      stack.push([child, [...path, key]]);
    }
  }
  return out;
}

const REMOVE = Symbol("remove");

/** A structured copy of `v` with the place at `path` replaced by `by` (or removed). */
function mutated(v: unknown, path: readonly unknown[], by: unknown): unknown {
  if (path.length === 0) return by === REMOVE ? undefined : by;
  const copy = structuredClone(v) as Record<string, unknown> | Map<unknown, unknown>;
  let at: unknown = copy;
  for (const key of path.slice(0, -1)) at = at instanceof Map ? at.get(key) : (at as Record<string, unknown>)[key as string];
  const last = path[path.length - 1];
  if (at instanceof Map) {
    if (by === REMOVE) at.delete(last);
    else at.set(last, by);
  } else if (Array.isArray(at) && by === REMOVE) at.splice(last as number, 1);
  else if (by === REMOVE) delete (at as Record<string, unknown>)[last as string];
  else (at as Record<string, unknown>)[last as string] = by;
  return copy;
}

const junk = fc.anything({
  withBigInt: true,
  withMap: true,
  withSet: true,
  withNullPrototype: true,
  withObjectString: true,
  withBoxedValues: true,
  withDate: true,
  withTypedArray: true,
  withSparseArray: true,
  maxDepth: 4,
  key: fc.oneof(fc.string(), fc.constantFrom("__proto__", "constructor", "prototype", "type", "bpf", "match", "delay", "vlan", "name", "port_number", "lport", "nios", "fields", "base")),
});

/** A valid value with one place in it replaced by junk, or removed. */
function mutationsOf(valid: fc.Arbitrary<unknown>): fc.Arbitrary<unknown> {
  return fc.tuple(valid, fc.nat(), fc.oneof({ weight: 4, arbitrary: junk }, { weight: 1, arbitrary: fc.constant(REMOVE) })).map(([v, pick, by]) => {
    const paths = pathsOf(v);
    return mutated(v, paths[pick % paths.length] as unknown[], by);
  });
}

// ---- the properties ------------------------------------------------------------------------------

describe("configuration values: properties (fast-check, seeded)", function () {
  this.timeout(60_000);

  describe("a valid value read back from its wire form is itself", () => {
    it("filter settings: parse(render(v)) deep-equals v and filterSettingsEqual says so", () => {
      run(
        fc.property(filterSettings, (v) => {
          const back = parseFilterSettings(renderFilterSettings(v));
          if (E.isLeft(back)) throw new Error(JSON.stringify(back.left));
          expect(back.right).to.deep.equal(v);
          expect(Object.keys(back.right)).to.deep.equal(Object.keys(v));
          expect(filterSettingsEqual(back.right, v)).to.equal(true);
        }),
      );
    });

    it("a switch's ports_mapping: parse(structuredClone(v)) deep-equals v and portsMappingEqual says so", () => {
      run(
        fc.property(switchPorts, (v) => {
          const back = parseSwitchPorts(structuredClone(v));
          if (E.isLeft(back)) throw new Error(JSON.stringify(back.left));
          expect(back.right).to.deep.equal(v);
          expect(portsMappingEqual(back.right, v)).to.equal(true);
        }),
      );
    });

    it("a hub's ports_mapping: parse(structuredClone(v)) deep-equals v and portsMappingEqual says so", () => {
      run(
        fc.property(hubPorts, (v) => {
          const back = parseHubPorts(structuredClone(v));
          if (E.isLeft(back)) throw new Error(JSON.stringify(back.left));
          expect(back.right).to.deep.equal(v);
          expect(portsMappingEqual(back.right, v)).to.equal(true);
        }),
      );
    });

    it("a NIO: parse(structuredClone(v)) deep-equals v and nioEqual says so", () => {
      run(
        fc.property(nio, (v) => {
          const back = parseNio(structuredClone(v));
          if (E.isLeft(back)) throw new Error(JSON.stringify(back.left));
          expect(back.right).to.deep.equal(v);
          expect(nioEqual(back.right, v)).to.equal(true);
        }),
      );
    });

    it("a node record: parseComputeNode(structuredClone(v)) deep-equals v", () => {
      run(
        fc.property(anyNode, (v) => {
          const back = parseComputeNode(structuredClone(v));
          if (E.isLeft(back)) throw new Error(JSON.stringify(back.left));
          expect(back.right).to.deep.equal(v);
        }),
      );
    });

    it("a worker sync: the change from any record to any other, copied across, makes the other", () => {
      const pair = fc.constantFrom("ethernet_switch" as const, "ethernet_hub" as const).chain((t) => fc.tuple(fc.option(computeNode(t), { nil: undefined }), computeNode(t)));
      run(
        fc.property(pair, ([last, next]) => {
          const made = applyNodeChange(last, structuredClone(nodeChange(last, next)));
          if (E.isLeft(made)) throw new Error(JSON.stringify(made.left));
          expect(made.right).to.deep.equal(next);
        }),
      );
    });
  });

  describe("the domain's equality is an equivalence over values, whatever their key order or copy", () => {
    const cases = [
      ["filterSettingsEqual", filterSettings, filterSettingsEqual],
      ["portsMappingEqual (switch)", switchPorts, portsMappingEqual],
      ["portsMappingEqual (hub)", hubPorts, portsMappingEqual],
      ["nioEqual", nio, nioEqual],
    ] as const;
    for (const [name, arb, equal] of cases) {
      const eq = equal as (a: unknown, b: unknown) => boolean;
      it(`${name} is reflexive, and holds between a value, its structured copy and its keys reversed`, () => {
        run(
          fc.property(arb as fc.Arbitrary<unknown>, (v) => {
            expect(eq(v, v)).to.equal(true);
            expect(eq(v, structuredClone(v))).to.equal(true);
            expect(eq(v, reversedKeys(v))).to.equal(true);
            expect(eq(reversedKeys(v), v)).to.equal(true);
          }),
        );
      });

      it(`${name} is symmetric`, () => {
        run(
          fc.property(arb as fc.Arbitrary<unknown>, arb as fc.Arbitrary<unknown>, (a, b) => {
            expect(eq(a, b)).to.equal(eq(b, a));
            expect(eq(a, b)).to.equal(eq(structuredClone(b), reversedKeys(a)));
          }),
        );
      });
    }
  });

  describe("a single changed field makes the values unequal", () => {
    /** Any value but `old` (equality compares with ===, so -0 and 0 are the same value). */
    const otherThan = (old: unknown) => junk.filter((x) => x !== old);

    it("filter settings: one value of a kind changed, an item more or less, a kind on or off", () => {
      const changed = filterSettings.chain((v) =>
        fc.constantFrom(...FILTER_KINDS).chain((kind): fc.Arbitrary<[FilterSettings, FilterSettings]> => {
          const values = v[kind] as readonly unknown[] | undefined;
          const without = (): FilterSettings => {
            const { [kind]: _off, ...rest } = v as Record<string, unknown>;
            return rest as FilterSettings;
          };
          if (values === undefined) return entryOf(kind).map((entry) => [v, { ...v, [kind]: entry }]);
          return fc.oneof(
            fc.constant<[FilterSettings, FilterSettings]>([v, without()]),
            fc.constant<[FilterSettings, FilterSettings]>([v, { ...v, [kind]: [...values, values[0]] }]),
            fc.nat({ max: values.length - 1 }).chain((i) => otherThan(values[i]).map((x): [FilterSettings, FilterSettings] => [v, { ...v, [kind]: values.map((y, j) => (j === i ? x : y)) }])),
          );
        }),
      );
      run(
        fc.property(changed, ([a, b]) => {
          expect(filterSettingsEqual(a, b)).to.equal(false);
          expect(filterSettingsEqual(b, a)).to.equal(false);
        }),
      );
    });

    const entryChanged = <P extends { port_number: number }>(ports: fc.Arbitrary<P[]>, fields: readonly string[], entry: fc.Arbitrary<P>) =>
      ports.chain((v): fc.Arbitrary<[P[], P[]]> => {
        const added = entry.filter((e) => !v.some((p) => p.port_number === e.port_number)).map((e): [P[], P[]] => [v, [...v, e]]);
        if (v.length === 0) return added;
        return fc.oneof(
          added,
          fc.nat({ max: v.length - 1 }).map((i): [P[], P[]] => [v, v.filter((_, j) => j !== i)]),
          fc.tuple(fc.nat({ max: v.length - 1 }), fc.constantFrom(...fields)).chain(([i, field]) => {
            const old = (v[i] as Record<string, unknown>)[field];
            return fc.oneof(otherThan(old), ...(old === undefined ? [] : [fc.constant(REMOVE)])).map((x): [P[], P[]] => [v, mutated(v, [i, field], x) as P[]]);
          }),
        );
      });

    it("a switch's ports_mapping: any field of any entry (name, number, type, VLAN, ethertype) to any other value, an entry more or less", () => {
      run(
        fc.property(entryChanged(switchPorts, ["name", "port_number", "type", "vlan", "ethertype"], switchEntry), ([a, b]) => {
          expect(portsMappingEqual(a, b)).to.equal(false);
          expect(portsMappingEqual(b, a)).to.equal(false);
        }),
      );
    });

    it("a hub's ports_mapping: the name or number of any entry to any other value, an entry more or less", () => {
      run(
        fc.property(entryChanged(hubPorts, ["name", "port_number"], fc.record({ name: portName, port_number: portNumber }, { noNullPrototype: true })), ([a, b]) => {
          expect(portsMappingEqual(a, b)).to.equal(false);
          expect(portsMappingEqual(b, a)).to.equal(false);
        }),
      );
    });

    it("a NIO: its kind, ports, peer or suspend flag to any other value, or other filters on any of its three sets", () => {
      const changed = udpNio.chain((v) =>
        fc.constantFrom("type", "lport", "rhost", "rport", "suspend", "filters", "filtersIn", "filtersOut").chain((field): fc.Arbitrary<[Nio, Nio]> => {
          const old = (v as Record<string, unknown>)[field];
          if (field === "filters" || field === "filtersIn" || field === "filtersOut") {
            const others = someFilters.filter((f) => old === undefined || !filterSettingsEqual(f, old as FilterSettings)).map((f): [Nio, Nio] => [v as Nio, { ...v, [field]: f } as Nio]);
            // A direction's set taken away (the NIO then has none there) is a change too.
            return field === "filters" || old === undefined ? others : fc.oneof(others, fc.constant<[Nio, Nio]>([v as Nio, mutated(v, [field], REMOVE) as Nio]));
          }
          return otherThan(old).map((x): [Nio, Nio] => [v as Nio, { ...v, [field]: x } as Nio]);
        }),
      );
      run(
        fc.property(changed, ([a, b]) => {
          expect(nioEqual(a, b)).to.equal(false);
          expect(nioEqual(b, a)).to.equal(false);
        }),
      );
    });
  });

  describe("junk never makes a parse throw: each answers Left or Right", () => {
    const isEither = (r: unknown): boolean => E.isLeft(r as E.Either<unknown, unknown>) || E.isRight(r as E.Either<unknown, unknown>);
    const someNode = fc.sample(computeNode("ethernet_switch"), { numRuns: 1, seed: FC_SEED })[0] as ComputeNode;
    const parses: readonly [string, (raw: unknown) => unknown][] = [
      ["parseFilterSettings", (raw) => parseFilterSettings(raw, "filters")],
      ["parseSwitchPorts", (raw) => parseSwitchPorts(raw)],
      ["parseHubPorts", (raw) => parseHubPorts(raw)],
      ["parseNio", (raw) => parseNio(raw, "nio")],
      ["parseNodeName", (raw) => parseNodeName(raw)],
      ["parseComputeNodeFields", (raw) => parseComputeNodeFields(raw)],
      ["parseComputeNode", (raw) => parseComputeNode(raw)],
      ["readJsonValue", (raw) => readJsonValue(raw, "variables", CONFIGURATION_LIMITS.jsonDepth)],
      ["applyNodeChange (no record kept)", (raw) => applyNodeChange(undefined, raw)],
      ["applyNodeChange (a record kept)", (raw) => applyNodeChange(someNode, raw)],
      ["decodeWorkerRequest", (raw) => decodeWorkerRequest(raw)],
      ["decodeWorkerRequest (a sync's arguments)", (raw) => decodeWorkerRequest({ id: 1, op: "sync", args: raw })],
    ];
    const valids: readonly [string, fc.Arbitrary<unknown>][] = [
      ["filter settings", filterSettings.map(renderFilterSettings)],
      ["a switch's ports_mapping", switchPorts],
      ["a hub's ports_mapping", hubPorts],
      ["a NIO", nio],
      ["a node record", anyNode],
      ["a worker sync's change", anyNode.map((n) => nodeChange(undefined, n))],
    ];

    for (const [name, parse] of parses) {
      it(`${name}: on fc.anything()`, () => {
        run(fc.property(junk, (raw) => void expect(isEither(parse(raw))).to.equal(true)));
      });
    }

    for (const [what, valid] of valids) {
      it(`every parse, on ${what} with one place replaced by junk or removed`, () => {
        run(
          fc.property(mutationsOf(valid), (raw) => {
            for (const [name, parse] of parses) expect(isEither(parse(raw)), name).to.equal(true);
          }),
        );
      });
    }

    it("a mutated valid value is refused or read as a valid value again (never half-read)", () => {
      run(
        fc.property(mutationsOf(nio), (raw) => {
          const once = parseNio(raw);
          if (E.isLeft(once)) return;
          const again = parseNio(structuredClone(once.right));
          expect(E.isRight(again) && nioEqual(again.right, once.right)).to.equal(true);
        }),
      );
    });
  });
});
