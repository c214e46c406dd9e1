import { expect } from "chai";
import * as E from "fp-ts/lib/Either.js";
import { attachNio, type ComputeNode } from "../../../src/domain/switching/compute-node.js";
import { createEthernetSwitch } from "../../../src/domain/switching/ethernet-switch.js";
import { defaultPortsMapping } from "../../../src/domain/switching/port.js";
import type { Nio, UdpNio } from "../../../src/domain/switching/nio.js";
import type { FilterSettings } from "../../../src/domain/filters/filter-settings.js";
import { type PortChange, hasCostlyFilters, portChange, portsGone } from "../../../src/application/dataplane/reconcile.js";

const udp = (lport: number, rport: number, filters: FilterSettings = {}, more: Partial<UdpNio> = {}): UdpNio => ({ type: "nio_udp", lport, rhost: "127.0.0.1", rport, filters, suspend: false, ...more });

/** A switch (eight ports 0-7) with these NIOs on its ports. */
function switchWith(nios: ReadonlyMap<number, Nio>): ComputeNode {
  let node: ComputeNode = createEthernetSwitch({ nodeId: "aaaaaaaa-0000-4000-8000-0000000000a1", projectId: "77777777-3333-4444-8555-77777777777c", name: "SW", console: null, consoleType: "none", portsMapping: defaultPortsMapping() });
  for (const [port, nio] of nios) {
    const attached: E.Either<{ _tag: string }, ComputeNode> = attachNio(node, port, nio);
    if (E.isLeft(attached)) throw new Error(attached.left._tag);
    node = attached.right;
  }
  return node;
}

describe("reconcile, decided by value (a record's NIOs against the live ports)", () => {
  it("asks nothing of a port whose NIO is the same value, even as another object", () => {
    const node = switchWith(new Map([[1, udp(20001, 30001, { delay: [50, 5] })]]));
    expect(portChange(node, 1, node.nios.get(1) as Nio, { nio: udp(20001, 30001, { delay: [50, 5] }) })).to.equal(undefined);
  });

  it("keeps the socket of a port whose NIO changed its filters only", () => {
    const node = switchWith(new Map([[1, udp(20001, 30001, { delay: [50, 5] })]]));
    const current = { nio: udp(20001, 30001) };
    const change: PortChange<typeof current> | undefined = portChange(node, 1, node.nios.get(1) as Nio, current);
    expect(change).to.deep.include({ portNumber: 1, current, onMapping: true, keepsSocket: true });
  });

  it("opens a socket for a NIO new on its port, or with another peer than the live one", () => {
    const node = switchWith(new Map([[1, udp(20001, 30009)]]));
    expect(portChange(node, 1, node.nios.get(1) as Nio, undefined)).to.deep.include({ current: undefined, keepsSocket: false });
    expect(portChange(node, 1, node.nios.get(1) as Nio, { nio: udp(20001, 30001) })).to.deep.include({ keepsSocket: false });
  });

  it("says a NIO on a port the node's mapping does not have is off the mapping (refused as PortNotFound)", () => {
    const node = switchWith(new Map());
    expect(portChange(node, 42, udp(20042, 30042), undefined)).to.deep.include({ portNumber: 42, onMapping: false });
  });

  it("names the live ports whose NIO the record no longer has, in their order", () => {
    const node = switchWith(new Map([[2, udp(20002, 30002)]]));
    const live = new Map<number, unknown>([
      [5, {}],
      [2, {}],
      [0, {}],
    ]);
    expect(portsGone(live, node)).to.deep.equal([5, 0]);
  });

  it("times a node's frames only when one of its NIOs runs a bpf or match program, in either direction", () => {
    expect(hasCostlyFilters([udp(1, 2, { delay: [50, 5] }), { type: "nio_null" }])).to.equal(false);
    expect(hasCostlyFilters([udp(1, 2), udp(3, 4, { bpf: ["ether proto 0x1234"] })])).to.equal(true);
    expect(hasCostlyFilters([udp(1, 2, {}, { filtersOut: { bpf: ["ether proto 0x1234"] } })])).to.equal(true);
  });
});
