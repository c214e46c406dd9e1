import { expect } from "chai";
import { compileProgram } from "../../../src/domain/bpf/index.js";
import { nestingMessage } from "../../../src/domain/bpf/limits.js";
import * as E from "fp-ts/lib/Either.js";
import { CONFIGURATION_LIMITS } from "../../../src/domain/configuration/limits.js";
import { readJsonValue } from "../../../src/domain/configuration/read.js";
import { ETHERTYPE_CHOICES, MAX_VLAN, MIN_VLAN, parseSwitchPorts } from "../../../src/domain/switching/port.js";
import { parseHubPorts } from "../../../src/domain/switching/ethernet-hub.js";
import { parseNio } from "../../../src/domain/switching/nio.js";
import { createEthernetSwitch } from "../../../src/domain/switching/ethernet-switch.js";
import { createEthernetHub } from "../../../src/domain/switching/ethernet-hub.js";
import { type ComputeNode, attachNio, parseComputeNode, parseNodeName } from "../../../src/domain/switching/compute-node.js";
import { parseFilterSettings } from "../../../src/domain/filters/filter-settings.js";
import { FILTER_KINDS, descriptorOf } from "../../../src/domain/filters/catalogue.js";

/**
 * Every bound of CONFIGURATION_LIMITS (and of the wire's own rules: VLANs, UDP ports, choices) as
 * the domain's one parse of each value applies it: accepted at the bound, refused one past it, the
 * refusal naming the field and the rule.
 */
const L = CONFIGURATION_LIMITS;

/** The refusal of a parse, or a failure saying what it answered instead. */
function refusal(result: E.Either<unknown, unknown>): any {
  if (E.isRight(result)) throw new Error(`expected a refusal, got ${JSON.stringify(result.right)?.slice(0, 200)}`);
  return result.left;
}

function accepted<A>(result: E.Either<unknown, A>): A {
  if (E.isLeft(result)) throw new Error(`expected it accepted, got ${JSON.stringify(result.left)?.slice(0, 300)}`);
  return result.right;
}

const switchEntry = (n: number, extra: Record<string, unknown> = {}): Record<string, unknown> => ({ name: `Ethernet${n}`, port_number: n, type: "access", vlan: 1, ...extra });
const hubEntry = (n: number, extra: Record<string, unknown> = {}): Record<string, unknown> => ({ name: `Ethernet${n}`, port_number: n, ...extra });
const udp = (extra: Record<string, unknown> = {}): Record<string, unknown> => ({ type: "nio_udp", lport: 20000, rhost: "127.0.0.1", rport: 20001, ...extra });

/** The names Object.prototype has: a parse that pollutes it adds one. */
const prototypeKeys = (): string => Object.getOwnPropertyNames(Object.prototype).sort().join(",");

/** `levels` arrays, each inside the next, without recursion. */
function nestedArrays(levels: number): unknown {
  let v: unknown = [];
  for (let i = 1; i < levels; i++) v = [v];
  return v;
}

function nestedObjects(levels: number): unknown {
  let v: unknown = {};
  for (let i = 1; i < levels; i++) v = { a: v };
  return v;
}

describe("configuration values: each limit accepted at its bound and refused one past it", () => {
  describe("ports per node", () => {
    const entries = (count: number, entry: (n: number) => Record<string, unknown>) => Array.from({ length: count }, (_, i) => entry(i));

    it(`takes a switch with ${L.portsPerNode} ports and refuses one with ${L.portsPerNode + 1}, at ports_mapping, max_items`, () => {
      expect(accepted(parseSwitchPorts(entries(L.portsPerNode, switchEntry)))).to.have.length(L.portsPerNode);
      expect(refusal(parseSwitchPorts(entries(L.portsPerNode + 1, switchEntry)))).to.deep.equal({
        _tag: "InvalidConfiguration",
        field: "ports_mapping",
        rule: { rule: "max_items", limit: L.portsPerNode },
        got: L.portsPerNode + 1,
      });
    });

    it(`takes a hub with ${L.portsPerNode} ports and refuses one with ${L.portsPerNode + 1}, at ports_mapping, max_items`, () => {
      expect(accepted(parseHubPorts(entries(L.portsPerNode, hubEntry)))).to.have.length(L.portsPerNode);
      expect(refusal(parseHubPorts(entries(L.portsPerNode + 1, hubEntry)))).to.deep.include({ field: "ports_mapping", rule: { rule: "max_items", limit: L.portsPerNode } });
    });

    it("refuses a ports_mapping that is not a list, and an entry that is not an object, naming the entry", () => {
      expect(refusal(parseSwitchPorts({ 0: switchEntry(0) }))).to.deep.include({ field: "ports_mapping", rule: { rule: "type", expected: "array" } });
      expect(refusal(parseSwitchPorts([switchEntry(0), null]))).to.deep.include({ field: "ports_mapping[1]", rule: { rule: "type", expected: "object" } });
      expect(refusal(parseHubPorts([["Ethernet0", 0]]))).to.deep.include({ field: "ports_mapping[0]", rule: { rule: "type", expected: "object" } });
      expect(refusal(parseHubPorts([new Map([["name", "E"]])]))).to.deep.include({ field: "ports_mapping[0]", rule: { rule: "type", expected: "object" } });
    });
  });

  describe("port numbers", () => {
    for (const [what, parse, entry] of [
      ["switch", parseSwitchPorts, switchEntry],
      ["hub", parseHubPorts, hubEntry],
    ] as const) {
      it(`takes a ${what} port numbered 0 and ${L.maxPortNumber}, and refuses -1, ${L.maxPortNumber + 1} and 1.5`, () => {
        expect(accepted(parse([entry(0), entry(L.maxPortNumber)])).map((p) => p.port_number)).to.deep.equal([0, L.maxPortNumber]);
        expect(refusal(parse([entry(-1)]))).to.deep.equal({ _tag: "InvalidConfiguration", field: "ports_mapping[0].port_number", rule: { rule: "minimum", limit: 0 }, got: -1 });
        expect(refusal(parse([entry(0), entry(L.maxPortNumber + 1)]))).to.deep.equal({
          _tag: "InvalidConfiguration",
          field: "ports_mapping[1].port_number",
          rule: { rule: "maximum", limit: L.maxPortNumber },
          got: L.maxPortNumber + 1,
        });
        expect(refusal(parse([{ ...entry(0), port_number: 1.5 }]))).to.deep.include({ field: "ports_mapping[0].port_number", rule: { rule: "type", expected: "integer" } });
        expect(refusal(parse([{ ...entry(0), port_number: "1" }]))).to.deep.include({ field: "ports_mapping[0].port_number", rule: { rule: "type", expected: "integer" } });
      });

      it(`refuses a ${what} port number given twice: the field of the second, rule duplicate naming the first's field`, () => {
        expect(refusal(parse([entry(3), { ...entry(3), name: "other" }]))).to.deep.equal({
          _tag: "InvalidConfiguration",
          field: "ports_mapping[1].port_number",
          rule: { rule: "duplicate", first: "ports_mapping[0].port_number" },
          got: 3,
        });
        expect(refusal(parse([entry(3), entry(4), entry(5), entry(4)]))).to.deep.include({
          field: "ports_mapping[3].port_number",
          rule: { rule: "duplicate", first: "ports_mapping[1].port_number" },
        });
      });
    }
  });

  describe("names", () => {
    const name = (length: number): string => "n".repeat(length);

    it(`takes a node name of 1 and ${L.nameLength} characters, refuses an empty one and one of ${L.nameLength + 1}`, () => {
      expect(accepted(parseNodeName(name(1)))).to.equal("n");
      expect(accepted(parseNodeName(name(L.nameLength)))).to.have.length(L.nameLength);
      expect(refusal(parseNodeName(""))).to.deep.equal({ _tag: "InvalidConfiguration", field: "name", rule: { rule: "min_length", limit: 1 }, got: "" });
      expect(refusal(parseNodeName(name(L.nameLength + 1)))).to.deep.include({ field: "name", rule: { rule: "max_length", limit: L.nameLength } });
      expect(refusal(parseNodeName(42))).to.deep.include({ field: "name", rule: { rule: "type", expected: "string" } });
    });

    for (const [what, parse, entry] of [
      ["switch", parseSwitchPorts, switchEntry],
      ["hub", parseHubPorts, hubEntry],
    ] as const) {
      it(`takes a ${what} port name of ${L.nameLength} characters and refuses one of ${L.nameLength + 1}, and an empty or missing one`, () => {
        expect(accepted(parse([{ ...entry(0), name: name(L.nameLength) }]))[0]?.name).to.have.length(L.nameLength);
        expect(refusal(parse([entry(0), { ...entry(1), name: name(L.nameLength + 1) }]))).to.deep.include({ field: "ports_mapping[1].name", rule: { rule: "max_length", limit: L.nameLength } });
        expect(refusal(parse([{ ...entry(0), name: "" }]))).to.deep.include({ field: "ports_mapping[0].name", rule: { rule: "min_length", limit: 1 } });
        const { name: _left, ...nameless } = entry(0);
        expect(refusal(parse([nameless]))).to.deep.include({ field: "ports_mapping[0].name", rule: { rule: "required" } });
      });
    }
  });

  describe("VLANs, port types and ethertypes of a switch port", () => {
    it(`takes VLAN ${MIN_VLAN} and ${MAX_VLAN}, refuses 0, 4095 and 5000 at the entry's vlan`, () => {
      expect(accepted(parseSwitchPorts([switchEntry(0, { vlan: MIN_VLAN }), switchEntry(1, { vlan: MAX_VLAN })])).map((p) => p.vlan)).to.deep.equal([1, 4094]);
      expect(refusal(parseSwitchPorts([switchEntry(0, { vlan: 0 })]))).to.deep.equal({ _tag: "InvalidConfiguration", field: "ports_mapping[0].vlan", rule: { rule: "minimum", limit: 1 }, got: 0 });
      expect(refusal(parseSwitchPorts([switchEntry(0, { vlan: 4095 })]))).to.deep.include({ field: "ports_mapping[0].vlan", rule: { rule: "maximum", limit: 4094 } });
      expect(refusal(parseSwitchPorts([switchEntry(0), switchEntry(1, { type: "dot1q", vlan: 5000 })]))).to.deep.equal({
        _tag: "InvalidConfiguration",
        field: "ports_mapping[1].vlan",
        rule: { rule: "maximum", limit: 4094 },
        got: 5000,
      });
    });

    it("takes a port without a VLAN and keeps it without one (GNS3 echoes the entry as sent)", () => {
      const { vlan: _none, ...entry } = switchEntry(0);
      expect(accepted(parseSwitchPorts([entry]))).to.deep.equal([{ name: "Ethernet0", port_number: 0, type: "access" }]);
    });

    it("takes each port type and refuses another, or none", () => {
      expect(accepted(parseSwitchPorts(["access", "dot1q", "qinq"].map((type, i) => switchEntry(i, { type })))).map((p) => p.type)).to.deep.equal(["access", "dot1q", "qinq"]);
      expect(refusal(parseSwitchPorts([switchEntry(0, { type: "trunk" })]))).to.deep.equal({
        _tag: "InvalidConfiguration",
        field: "ports_mapping[0].type",
        rule: { rule: "one_of", choices: ["access", "dot1q", "qinq"] },
        got: "trunk",
      });
      const { type: _none, ...typeless } = switchEntry(0);
      expect(refusal(parseSwitchPorts([typeless]))).to.deep.include({ field: "ports_mapping[0].type", rule: { rule: "required" } });
    });

    it("takes each ethertype GNS3's schema allows and refuses 0xBEEF and a lower-case 0x88a8", () => {
      const entries = ETHERTYPE_CHOICES.map((ethertype, i) => switchEntry(i, { type: "qinq", ethertype }));
      expect(accepted(parseSwitchPorts(entries)).map((p) => p.ethertype)).to.deep.equal([...ETHERTYPE_CHOICES]);
      for (const ethertype of ["0xBEEF", "0x88a8", 0x88a8]) {
        expect(refusal(parseSwitchPorts([switchEntry(0, { type: "qinq", ethertype })])), String(ethertype)).to.deep.equal({
          _tag: "InvalidConfiguration",
          field: "ports_mapping[0].ethertype",
          rule: { rule: "one_of", choices: ETHERTYPE_CHOICES },
          got: ethertype,
        });
      }
    });

    it("leaves keys it does not know out of the value, a switch's VLAN and type out of a hub's", () => {
      expect(accepted(parseSwitchPorts([switchEntry(0, { color: "red" })]))).to.deep.equal([{ name: "Ethernet0", port_number: 0, type: "access", vlan: 1 }]);
      expect(accepted(parseHubPorts([switchEntry(0, { type: "qinq", ethertype: "0x9100" })]))).to.deep.equal([{ name: "Ethernet0", port_number: 0 }]);
    });
  });

  describe("UDP NIOs", () => {
    for (const key of ["lport", "rport"] as const) {
      it(`takes ${key} 1 and 65535, refuses 0 and 65536 at ${key}`, () => {
        for (const ok of [1, 65_535]) expect(accepted(parseNio(udp({ [key]: ok })))).to.deep.include({ [key]: ok });
        expect(refusal(parseNio(udp({ [key]: 0 })))).to.deep.equal({ _tag: "InvalidConfiguration", field: key, rule: { rule: "minimum", limit: 1 }, got: 0 });
        expect(refusal(parseNio(udp({ [key]: 65_536 })))).to.deep.equal({ _tag: "InvalidConfiguration", field: key, rule: { rule: "maximum", limit: 65_535 }, got: 65_536 });
        expect(refusal(parseNio(udp({ [key]: "20000" })))).to.deep.include({ field: key, rule: { rule: "type", expected: "integer" } });
      });
    }

    it(`takes an rhost of 1 and ${L.hostLength} characters, refuses an empty one and one of ${L.hostLength + 1}`, () => {
      expect(accepted(parseNio(udp({ rhost: "h" })))).to.deep.include({ rhost: "h" });
      expect(accepted(parseNio(udp({ rhost: "h".repeat(L.hostLength) })))).to.deep.include({ rhost: "h".repeat(L.hostLength) });
      expect(refusal(parseNio(udp({ rhost: "" })))).to.deep.include({ field: "rhost", rule: { rule: "min_length", limit: 1 } });
      expect(refusal(parseNio(udp({ rhost: "h".repeat(L.hostLength + 1) })))).to.deep.include({ field: "rhost", rule: { rule: "max_length", limit: L.hostLength } });
    });

    it("names the field under where the NIO was (a record's nios[2]), and the wire's names of the direction filters", () => {
      expect(refusal(parseNio(udp({ rport: 0 }), "nios[2]"))).to.deep.include({ field: "nios[2].rport" });
      expect(refusal(parseNio(udp({ filtersIn: { jitter: [1] } })))).to.deep.equal({ _tag: "InvalidFilterSettings", problem: { problem: "unknown_kind", kind: "jitter" }, field: "filters_in" });
      expect(refusal(parseNio(udp({ filtersOut: { delay: [-1] } }), "nios[0]"))).to.deep.include({ _tag: "InvalidFilterSettings", field: "nios[0].filters_out" });
    });

    it("refuses a NIO without a type or with one it does not know, and says which known kinds it does not run", () => {
      expect(refusal(parseNio({ lport: 1 }))).to.deep.include({ field: "type", rule: { rule: "required" } });
      expect(refusal(parseNio({ type: "nio_foo" }))).to.deep.include({ field: "type", got: "nio_foo" });
      expect(refusal(parseNio({ type: "nio_vde", control_file: "c", local_file: "l" }))).to.deep.equal({ _tag: "NioTypeNotSupported", nioType: "nio_vde" });
      expect(refusal(parseNio("nio_udp"))).to.deep.include({ field: "nio", rule: { rule: "type", expected: "object" } });
      expect(refusal(parseNio(udp({ suspend: "yes" })))).to.deep.include({ field: "suspend", rule: { rule: "type", expected: "boolean" } });
    });

    it("makes the canonical value: direction filters only when they hold a filter, suspend false when not given", () => {
      expect(accepted(parseNio(udp({ filtersIn: {}, filtersOut: { packet_loss: [0] }, filters: { delay: [5] } })))).to.deep.equal({
        type: "nio_udp",
        lport: 20000,
        rhost: "127.0.0.1",
        rport: 20001,
        filters: { delay: [5] },
        suspend: false,
      });
    });
  });

  describe("filters", () => {
    const lines = (count: number): string => Array.from({ length: count }, (_, i) => `udp port ${i + 1}`).join("\n");

    for (const kind of ["bpf", "match"] as const) {
      it(`takes ${kind} of ${L.filterLines} lines and refuses ${L.filterLines + 1}, as one text or as items`, () => {
        expect(accepted(parseFilterSettings({ [kind]: [lines(L.filterLines)] }))).to.have.property(kind);
        const items = Array.from({ length: L.filterLines }, (_, i) => `tcp port ${i + 1}`);
        expect(accepted(parseFilterSettings({ [kind]: items }))).to.have.property(kind);
        expect(refusal(parseFilterSettings({ [kind]: [lines(L.filterLines + 1)] }))).to.deep.equal({
          _tag: "InvalidFilterSettings",
          problem: { problem: "too_many_lines", kind, limit: L.filterLines, got: L.filterLines + 1 },
        });
        expect(refusal(parseFilterSettings({ [kind]: [...items, "icmp"] }))).to.deep.equal({
          _tag: "InvalidFilterSettings",
          problem: { problem: "too_many_lines", kind, limit: L.filterLines, got: L.filterLines + 1 },
        });
      });

      it(`takes a ${kind} line of ${L.expressionLength} characters and refuses one of ${L.expressionLength + 1}, naming the line`, () => {
        const at = (length: number): string => "(".repeat((length - 3) / 2) + "tcp" + ")".repeat((length - 3) / 2);
        const longest = "t".repeat(L.expressionLength);
        expect(accepted(parseFilterSettings({ [kind]: [longest] }))).to.deep.equal({ [kind]: [longest] });
        expect(refusal(parseFilterSettings({ [kind]: [`icmp\n${"t".repeat(L.expressionLength + 1)}`] }))).to.deep.equal({
          _tag: "InvalidFilterSettings",
          problem: { problem: "line_too_long", kind, line: 2, limit: L.expressionLength, got: L.expressionLength + 1 },
        });
        // 3,000 parentheses around tcp: 6,003 characters, within the length; the compiler refuses its nesting (ADR 0052).
        expect(accepted(parseFilterSettings({ [kind]: [at(6003)] }))).to.deep.equal({ [kind]: [at(6003)] });
        expect(compileProgram([at(6003)])).to.deep.equal(E.left({ line: 1, message: nestingMessage }));
      });

      it(`refuses a single ${kind} line far past ${L.expressionLength} characters for its length, not as too many lines`, () => {
        const huge = "t".repeat(L.filterLines * (L.expressionLength + 1) + 1);
        expect(refusal(parseFilterSettings({ [kind]: [huge] }))).to.deep.include({
          problem: { problem: "line_too_long", kind, line: 1, limit: L.expressionLength, got: huge.length },
        });
      });

      it(`refuses ${kind} items that are not text`, () => {
        expect(refusal(parseFilterSettings({ [kind]: ["icmp", 7] }))).to.deep.equal({ _tag: "InvalidFilterSettings", problem: { problem: "bpf_not_text", kind, got: 7 } });
      });
    }

    it(`refuses more than ${L.filterLines} values of a number kind as a value count, before looking at them`, () => {
      expect(refusal(parseFilterSettings({ delay: Array.from({ length: L.filterLines + 1 }, () => "x") }))).to.deep.include({
        problem: { problem: "value_count", kind: "delay", parameters: descriptorOf("delay").parameters, minimum: 1, got: L.filterLines + 1 },
      });
      expect(refusal(parseFilterSettings({ delay: [1, 2, 3] })).problem).to.deep.include({ problem: "value_count", kind: "delay", got: 3 });
      expect(refusal(parseFilterSettings({ packet_loss: [1, 2] })).problem).to.deep.include({ problem: "value_count", kind: "packet_loss", minimum: 1, got: 2 });
    });

    it("refuses a kind it does not know, and a filters value that is not an object or whose entry is not a list", () => {
      expect(refusal(parseFilterSettings({ jitter: [5] }))).to.deep.equal({ _tag: "InvalidFilterSettings", problem: { problem: "unknown_kind", kind: "jitter" } });
      expect(refusal(parseFilterSettings([["delay", 5]]))).to.deep.include({ problem: { problem: "not_an_object", got: [["delay", 5]] } });
      expect(refusal(parseFilterSettings({ delay: 5 }))).to.deep.include({ problem: { problem: "not_a_list", kind: "delay", got: 5 } });
      expect(refusal(parseFilterSettings({ delay: [-1] }, "nodes[1].filters"))).to.deep.include({ field: "nodes[1].filters" });
    });

    it("is canonical: only the kinds that are on, in the catalogue's order", () => {
      const parsed = accepted(parseFilterSettings({ match: ["icmp"], packet_loss: [0], delay: [50, 5], bpf: [], frequency_drop: [3] }));
      expect(Object.keys(parsed)).to.deep.equal(["frequency_drop", "delay", "match"]);
      expect(FILTER_KINDS.indexOf("frequency_drop")).to.be.below(FILTER_KINDS.indexOf("delay"));
    });
  });

  describe("__proto__ and constructor keys", () => {
    it("refuses them in filters as any unknown kind, whether JSON made them own keys or not, and pollutes nothing", () => {
      const before = prototypeKeys();
      for (const key of ["__proto__", "constructor", "prototype", "toString", "hasOwnProperty"]) {
        expect(refusal(parseFilterSettings(JSON.parse(`{"${key}": [1]}`))), key).to.deep.equal({ _tag: "InvalidFilterSettings", problem: { problem: "unknown_kind", kind: key } });
      }
      expect(refusal(parseFilterSettings(JSON.parse('{"delay": [5], "__proto__": {"delay": [9]}}')))).to.deep.include({ problem: { problem: "unknown_kind", kind: "__proto__" } });
      expect(prototypeKeys()).to.equal(before);
      expect(({} as Record<string, unknown>)["delay"]).to.equal(undefined);
    });

    it("reads no filter a prototype holds: an object whose prototype says delay has no filters", () => {
      const inherited = Object.create({ delay: [50] }) as Record<string, unknown>;
      expect(accepted(parseFilterSettings(inherited))).to.deep.equal({});
      expect(accepted(parseNio(udp({ filters: inherited })))).to.deep.include({ filters: {} });
    });

    it("leaves them out of port entries as any unknown key, for switches and hubs alike, and pollutes nothing", () => {
      const before = prototypeKeys();
      const text = (extra: string) => `[{"name": "E", "port_number": 0, "type": "access", ${extra}}]`;
      for (const extra of ['"__proto__": {"vlan": 5000, "polluted": true}', '"constructor": {"prototype": {"polluted": true}}', '"prototype": 1']) {
        expect(accepted(parseSwitchPorts(JSON.parse(text(extra)))), extra).to.deep.equal([{ name: "E", port_number: 0, type: "access" }]);
        expect(accepted(parseHubPorts(JSON.parse(text(extra)))), extra).to.deep.equal([{ name: "E", port_number: 0 }]);
      }
      expect(prototypeKeys()).to.equal(before);
      expect(({} as Record<string, unknown>)["polluted"]).to.equal(undefined);
    });

    it("reads no port field a prototype holds: an entry whose name, number and VLAN are inherited is refused or has none", () => {
      const inherited = Object.create({ name: "E", port_number: 0, type: "access" }) as Record<string, unknown>;
      expect(refusal(parseSwitchPorts([inherited]))).to.deep.include({ field: "ports_mapping[0].name", rule: { rule: "required" } });
      const vlanInherited = Object.assign(Object.create({ vlan: 5000 }) as Record<string, unknown>, { name: "E", port_number: 0, type: "access" });
      expect(accepted(parseSwitchPorts([vlanInherited]))).to.deep.equal([{ name: "E", port_number: 0, type: "access" }]);
    });

    it("reads no NIO field a prototype holds", () => {
      const inherited = Object.create({ type: "nio_udp", lport: 1, rhost: "h", rport: 2 }) as Record<string, unknown>;
      expect(refusal(parseNio(inherited))).to.deep.include({ field: "type", rule: { rule: "required" } });
    });
  });

  describe("free-form JSON (a project's variables and supplier)", () => {
    it(`takes ${L.jsonDepth} levels of nesting and refuses ${L.jsonDepth + 1}, with the field and the depth reached`, () => {
      for (const nested of [nestedArrays, nestedObjects]) {
        expect(E.isRight(readJsonValue(nested(L.jsonDepth), "variables", L.jsonDepth)), nested.name).to.equal(true);
        expect(refusal(readJsonValue(nested(L.jsonDepth + 1), "variables", L.jsonDepth)), nested.name).to.deep.equal({
          _tag: "InvalidConfiguration",
          field: "variables",
          rule: { rule: "max_depth", limit: L.jsonDepth },
          got: L.jsonDepth + 1,
        });
      }
    });

    it("refuses a hundred thousand levels without overflowing the stack", () => {
      expect(refusal(readJsonValue(nestedArrays(100_000), "supplier", L.jsonDepth))).to.deep.include({ field: "supplier", rule: { rule: "max_depth", limit: L.jsonDepth } });
    });

    it("takes JSON's scalars and refuses what JSON cannot hold", () => {
      for (const ok of [null, "x", 1, true, [{ name: "a", value: "b" }]]) expect(E.isRight(readJsonValue(ok, "variables", L.jsonDepth)), JSON.stringify(ok)).to.equal(true);
      for (const bad of [undefined, Number.NaN, Number.POSITIVE_INFINITY, 1n, () => 1, new Map(), new Set(), [Symbol("s")]]) {
        expect(E.isLeft(readJsonValue(bad, "variables", L.jsonDepth)), String(typeof bad)).to.equal(true);
      }
    });
  });

  describe("node records (what crosses a worker's door or comes from an embedder's store)", () => {
    const udpNio = { type: "nio_udp" as const, lport: 20000, rhost: "127.0.0.1", rport: 20001, filters: {}, suspend: false };
    const sw = ((): ComputeNode => {
      const node = createEthernetSwitch({
        nodeId: "aaaaaaaa-0000-4000-8000-000000000001",
        projectId: "bbbbbbbb-0000-4000-8000-000000000001",
        name: "SW1",
        console: 5000,
        consoleType: "telnet",
        portsMapping: [switchEntry(0), switchEntry(1, { type: "qinq", vlan: 20, ethertype: "0x88A8" })] as never,
      });
      const attached = attachNio(node, 1, udpNio);
      if (E.isLeft(attached)) throw new Error(attached.left._tag);
      return attached.right;
    })();
    const hub = createEthernetHub({ nodeId: "aaaaaaaa-0000-4000-8000-000000000002", projectId: "bbbbbbbb-0000-4000-8000-000000000001", name: "HUB", portsMapping: [hubEntry(0), hubEntry(7)] as never });
    const record = (node: ComputeNode, change: Record<string, unknown>): unknown => ({ ...node, ...change });

    it("takes a switch's and a hub's record, and answers the same value", () => {
      expect(accepted(parseComputeNode(sw))).to.deep.equal(sw);
      expect(accepted(parseComputeNode(hub))).to.deep.equal(hub);
      expect(accepted(parseComputeNode(structuredClone(sw)))).to.deep.equal(sw);
    });

    it("refuses a NIO on a port the mapping does not have: nios[port], port_not_in_mapping", () => {
      const nios = new Map<number, unknown>([...sw.nios, [9, udpNio]]);
      expect(refusal(parseComputeNode(record(sw, { nios })))).to.deep.equal({ _tag: "InvalidConfiguration", field: "node.nios[9]", rule: { rule: "port_not_in_mapping" }, got: 9 });
      expect(refusal(parseComputeNode(record(hub, { nios: new Map([[1, { type: "nio_null" }]]) }), "record"))).to.deep.include({ field: "record.nios[1]", rule: { rule: "port_not_in_mapping" } });
    });

    it("refuses nios that are not a Map (a plain object, a list, none), and port keys that are not integers", () => {
      for (const nios of [{ 1: udpNio }, [[1, udpNio]], undefined, null]) {
        expect(refusal(parseComputeNode(record(sw, { nios }))), JSON.stringify(nios)).to.deep.include({ field: "node.nios", rule: { rule: "type", expected: "object" } });
      }
      expect(refusal(parseComputeNode(record(sw, { nios: new Map([["1", udpNio]]) })))).to.deep.include({ field: "node.nios[1]", rule: { rule: "type", expected: "integer" } });
      expect(refusal(parseComputeNode(record(sw, { nios: new Map([[0.5, udpNio]]) })))).to.deep.include({ field: "node.nios[0.5]", rule: { rule: "type", expected: "integer" } });
    });

    it(`refuses more than ${L.portsPerNode} NIOs before parsing any`, () => {
      const nios = new Map(Array.from({ length: L.portsPerNode + 1 }, (_, i) => [i, "not even a NIO"] as const));
      expect(refusal(parseComputeNode(record(sw, { nios })))).to.deep.include({ field: "node.nios", rule: { rule: "max_items", limit: L.portsPerNode }, got: L.portsPerNode + 1 });
    });

    it("refuses a malformed NIO in the record at its port, and a NIO kind netemu does not run as a wrong value", () => {
      expect(refusal(parseComputeNode(record(sw, { nios: new Map([[1, { ...udpNio, lport: 0 }]]) })))).to.deep.include({ field: "node.nios[1].lport", rule: { rule: "minimum", limit: 1 } });
      expect(refusal(parseComputeNode(record(sw, { nios: new Map([[1, { type: "nio_vde" }]]) })))).to.deep.equal({
        _tag: "InvalidConfiguration",
        field: "node.nios[1].type",
        rule: { rule: "one_of", choices: ["nio_udp", "nio_tap", "nio_ethernet", "nio_null"] },
        got: "nio_vde",
      });
      expect(refusal(parseComputeNode(record(sw, { nios: new Map([[1, { ...udpNio, filters: { bpf: [lines65()] } }]]) })))).to.deep.include({
        _tag: "InvalidFilterSettings",
        field: "node.nios[1].filters",
      });
    });

    it("refuses each field of the record out of its rule, naming it", () => {
      const cases: [Record<string, unknown>, string, unknown][] = [
        [{ status: "running" }, "node.status", { rule: "one_of", choices: ["started", "stopped", "suspended"] }],
        [{ status: undefined }, "node.status", { rule: "required" }],
        [{ nodeType: "router" }, "node.nodeType", { rule: "one_of", choices: ["ethernet_hub", "ethernet_switch", "vpcs", "cloud", "netemu_host"] }],
        [{ nodeId: "" }, "node.nodeId", { rule: "min_length", limit: 1 }],
        [{ nodeId: "n".repeat(65) }, "node.nodeId", { rule: "max_length", limit: 64 }],
        [{ projectId: 7 }, "node.projectId", { rule: "type", expected: "string" }],
        [{ name: "n".repeat(L.nameLength + 1) }, "node.name", { rule: "max_length", limit: L.nameLength }],
        [{ console: 0 }, "node.console", { rule: "minimum", limit: 1 }],
        [{ console: 65_536 }, "node.console", { rule: "maximum", limit: 65_535 }],
        [{ consoleType: "vnc" }, "node.consoleType", { rule: "one_of", choices: ["telnet", "none"] }],
        [{ portsMapping: undefined }, "node.portsMapping", { rule: "required" }],
        [{ portsMapping: [switchEntry(0), switchEntry(1, { vlan: 5000 })] }, "node.portsMapping[1].vlan", { rule: "maximum", limit: 4094 }],
        [{ portsMapping: [switchEntry(1), switchEntry(1)] }, "node.portsMapping[1].port_number", { rule: "duplicate", first: "node.portsMapping[0].port_number" }],
      ];
      for (const [change, field, rule] of cases) {
        expect(refusal(parseComputeNode(record(sw, change))), JSON.stringify(change).slice(0, 80)).to.deep.include({ field, rule });
      }
      expect(refusal(parseComputeNode("SW1"))).to.deep.include({ field: "node", rule: { rule: "type", expected: "object" } });
    });

    it("reads a hub record by the hub's parse: switch-only keys in its entries are left out", () => {
      const parsed = accepted(parseComputeNode(record(hub, { portsMapping: [switchEntry(0), switchEntry(7)] })));
      expect(parsed.portsMapping).to.deep.equal([hubEntry(0), hubEntry(7)]);
    });
  });
});

function lines65(): string {
  return Array.from({ length: CONFIGURATION_LIMITS.filterLines + 1 }, () => "icmp").join("\n");
}
