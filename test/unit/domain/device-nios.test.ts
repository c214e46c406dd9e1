import { expect } from "chai";
import * as E from "fp-ts/lib/Either.js";
import { type Nio, nioEqual, parseNio, sameEndpoint, withFilters } from "../../../src/domain/switching/nio.js";
import { impairedNio } from "../../../src/domain/switching/impairment-overlay.js";
import { parseComputeNode } from "../../../src/domain/switching/compute-node.js";
import { NO_FILTERS } from "../../../src/domain/filters/filter-settings.js";

const accepted = <A>(e: E.Either<unknown, A>): A => {
  if (E.isLeft(e)) throw new Error(`refused: ${JSON.stringify(e.left)}`);
  return e.right;
};
const refusal = (e: E.Either<unknown, unknown>): unknown => {
  if (E.isRight(e)) throw new Error(`accepted: ${JSON.stringify(e.right)}`);
  return e.left;
};

describe("nio_tap and nio_ethernet as values (ADR 0083)", () => {
  it("parse to the device they name, with no filters and not suspended", () => {
    expect(accepted(parseNio({ type: "nio_tap", tapDevice: "tap0" }))).to.deep.equal({ type: "nio_tap", tapDevice: "tap0", filters: {}, suspend: false });
    expect(accepted(parseNio({ type: "nio_ethernet", ethernetDevice: "veth1a2b" }))).to.deep.equal({ type: "nio_ethernet", ethernetDevice: "veth1a2b", filters: {}, suspend: false });
  });

  it("take netemu's filters and suspend flag, as a UDP NIO does (an embedder's, or the impairments' overlay)", () => {
    const nio = accepted(parseNio({ type: "nio_tap", tapDevice: "tap0", filtersOut: { delay: [50] }, suspend: true }));
    expect(nio).to.deep.equal({ type: "nio_tap", tapDevice: "tap0", filters: {}, filtersOut: { delay: [50] }, suspend: true });
  });

  it("refuse a device name the kernel would refuse, naming the wire's field", () => {
    expect(refusal(parseNio({ type: "nio_tap" }))).to.deep.include({ field: "tap_device", rule: { rule: "required" } });
    expect(refusal(parseNio({ type: "nio_ethernet", ethernetDevice: "" }))).to.deep.include({ field: "ethernet_device", rule: { rule: "min_length", limit: 1 } });
    expect(refusal(parseNio({ type: "nio_ethernet", ethernetDevice: "a".repeat(16) }))).to.deep.include({ field: "ethernet_device", rule: { rule: "max_length", limit: 15 } });
    for (const name of ["a/b", "eth0:1", "my tap", ".", ".."]) {
      expect(refusal(parseNio({ type: "nio_tap", tapDevice: name })), name).to.deep.include({ field: "tap_device", rule: { rule: "interface_name" }, got: name });
    }
    expect(refusal(parseNio({ type: "nio_tap", tapDevice: 7 }, "nios[3]"))).to.deep.include({ field: "nios[3].tap_device", rule: { rule: "type", expected: "string" } });
  });

  it("are the same endpoint when they name the same device of the same kind, whatever their filters", () => {
    const tap = accepted(parseNio({ type: "nio_tap", tapDevice: "tap0" }));
    const delayed = withFilters(tap, { filters: NO_FILTERS, filtersIn: { delay: [5] }, filtersOut: NO_FILTERS }, false);
    expect(sameEndpoint(tap, delayed)).to.equal(true);
    expect(nioEqual(tap, delayed)).to.equal(false);
    expect(delayed).to.deep.equal({ type: "nio_tap", tapDevice: "tap0", filters: {}, filtersIn: { delay: [5] }, suspend: false });
    expect(sameEndpoint(tap, accepted(parseNio({ type: "nio_tap", tapDevice: "tap1" })))).to.equal(false);
    expect(sameEndpoint(tap, accepted(parseNio({ type: "nio_ethernet", ethernetDevice: "tap0" })))).to.equal(false);
  });

  it("get a port's impairments, as UDP NIOs do", () => {
    const eth: Nio = accepted(parseNio({ type: "nio_ethernet", ethernetDevice: "eth1" }));
    expect(impairedNio(eth, { in: NO_FILTERS, out: { delay: [100] } })).to.deep.equal({ type: "nio_ethernet", ethernetDevice: "eth1", filters: {}, filtersOut: { delay: [100] }, suspend: false });
  });

  it("are kept in a node's record and read back from it", () => {
    const record = {
      nodeType: "ethernet_switch",
      nodeId: "aaaaaaaa-0000-4000-8000-00000000f001",
      projectId: "11111111-2222-4333-8444-555555555555",
      name: "SW1",
      console: null,
      consoleType: "none",
      status: "started",
      portsMapping: [{ name: "Ethernet0", port_number: 0, type: "access", vlan: 1 }, { name: "Ethernet1", port_number: 1, type: "access", vlan: 1 }],
      nios: new Map<number, unknown>([[0, { type: "nio_tap", tapDevice: "tap0", filters: {}, suspend: false }], [1, { type: "nio_ethernet", ethernetDevice: "eth1", filters: {}, suspend: false }]]),
    };
    const node = accepted(parseComputeNode(record));
    expect([...node.nios.values()].map((n) => n.type)).to.deep.equal(["nio_tap", "nio_ethernet"]);
  });
});
