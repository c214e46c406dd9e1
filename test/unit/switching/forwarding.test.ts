import { expect } from "chai";
import { EthernetSwitchFabric, egressList } from "../../../src/domain/switching/forwarding.js";
import { countersBalance } from "../../../src/domain/switching/port-counters.js";
import type { PortMode } from "../../../src/domain/switching/port.js";
import { AD, BROADCAST, Q, type Tag, X9100, X9200, access, dot1q, eth, hex, qinq } from "./support.js";

const H1 = 0x020000000001;
const H2 = 0x020000000002;
const H3 = 0x020000000003;

function fabricWith(ports: Record<number, PortMode>, options = {}): EthernetSwitchFabric {
  const f = new EthernetSwitchFabric(options);
  for (const [n, mode] of Object.entries(ports)) f.setPort(Number(n), mode);
  return f;
}

/** Egress as { port: hex of bytes } for compact comparisons. */
function egressOf(f: EthernetSwitchFabric, ingress: number, frame: Uint8Array, nowMs = 0): Record<number, string> {
  const out: Record<number, string> = {};
  for (const e of egressList(f.forward(ingress, frame, nowMs))) out[e.port] = hex(e.frame);
  return out;
}

describe("802.1Q learning switch: ingress classification and egress rewrite", () => {
  // One switch with every kind of port; a broadcast reaches every port that carries its VLAN, so
  // each row shows what every egress type makes of one ingress (type, tagging, VLAN).
  const PORTS: Record<number, PortMode> = {
    1: access(10),
    2: access(20),
    3: dot1q(1),
    4: dot1q(10),
    5: qinq(10, 0x88a8),
    6: qinq(20),
    7: dot1q(1),
    8: qinq(10, 0x9100),
    9: access(10),
  };

  interface Row {
    readonly name: string;
    readonly ingress: number;
    readonly tags: readonly Tag[];
    /** egress port → tags of the frame it receives; ports left out receive nothing */
    readonly egress?: Readonly<Record<number, readonly Tag[]>>;
    readonly drop?: string;
  }

  const ROWS: readonly Row[] = [
    // access ingress
    { name: "access, untagged", ingress: 1, tags: [], egress: { 3: [Q(10)], 4: [], 5: [], 7: [Q(10)], 8: [], 9: [] } },
    {
      name: "access, tagged with its own VLAN (carried opaquely in the access VLAN, as Dynamips does)",
      ingress: 1,
      tags: [Q(10, 5)],
      egress: { 3: [Q(10), Q(10, 5)], 4: [Q(10, 5)], 5: [Q(10, 5)], 7: [Q(10), Q(10, 5)], 8: [Q(10, 5)], 9: [Q(10, 5)] },
    },
    {
      name: "access, tagged with another VLAN (carried opaquely in the access VLAN, never into VLAN 20)",
      ingress: 1,
      tags: [Q(20)],
      egress: { 3: [Q(10), Q(20)], 4: [Q(20)], 5: [Q(20)], 7: [Q(10), Q(20)], 8: [Q(20)], 9: [Q(20)] },
    },
    {
      name: "access, priority-tagged VID 0 (carried opaquely)",
      ingress: 1,
      tags: [Q(0, 3)],
      egress: { 3: [Q(10), Q(0, 3)], 4: [Q(0, 3)], 5: [Q(0, 3)], 7: [Q(10), Q(0, 3)], 8: [Q(0, 3)], 9: [Q(0, 3)] },
    },
    {
      name: "access, 802.1ad S-tagged (not a C-tag: carried as is)",
      ingress: 1,
      tags: [AD(20)],
      egress: { 3: [Q(10), AD(20)], 4: [AD(20)], 5: [AD(20)], 7: [Q(10), AD(20)], 8: [AD(20)], 9: [AD(20)] },
    },
    {
      name: "access in another VLAN, untagged",
      ingress: 2,
      tags: [],
      egress: { 3: [Q(20)], 4: [Q(20)], 6: [], 7: [Q(20)] },
    },
    // dot1q ingress
    { name: "dot1q, untagged (native VLAN 1)", ingress: 3, tags: [], egress: { 4: [Q(1)], 7: [] } },
    {
      name: "dot1q, tagged with a non-native VLAN",
      ingress: 3,
      tags: [Q(10)],
      egress: { 1: [], 4: [], 5: [], 7: [Q(10)], 8: [], 9: [] },
    },
    {
      name: "dot1q, tagged with its native VLAN (untagged on a trunk with the same native)",
      ingress: 3,
      tags: [Q(1, 2)],
      egress: { 4: [Q(1, 2)], 7: [] },
    },
    { name: "dot1q, priority-tagged VID 0 (native VLAN)", ingress: 3, tags: [Q(0, 6)], egress: { 4: [Q(1, 6)], 7: [] } },
    {
      name: "dot1q, double-tagged 802.1ad S-VLAN 20 (TPID kept on trunks, inner tag exposed elsewhere)",
      ingress: 3,
      tags: [AD(20), Q(100)],
      egress: { 2: [Q(100)], 4: [AD(20), Q(100)], 6: [Q(100)], 7: [AD(20), Q(100)] },
    },
    {
      name: "dot1q, tagged with TPID 0x9200",
      ingress: 3,
      tags: [X9200(10)],
      egress: { 1: [], 4: [], 5: [], 7: [X9200(10)], 8: [], 9: [] },
    },
    { name: "dot1q, reserved VID 4095", ingress: 3, tags: [Q(4095)], drop: "vlan" },
    {
      name: "dot1q with native 10, untagged",
      ingress: 4,
      tags: [],
      egress: { 1: [], 3: [Q(10)], 5: [], 7: [Q(10)], 8: [], 9: [] },
    },
    // qinq ingress
    {
      name: "qinq 0x88A8, untagged customer frame",
      ingress: 5,
      tags: [],
      egress: { 1: [], 3: [AD(10)], 4: [], 7: [AD(10)], 8: [], 9: [] },
    },
    {
      name: "qinq 0x88A8, customer-tagged (customer tag intact everywhere, S-tag pushed on trunks)",
      ingress: 5,
      tags: [Q(100, 1)],
      egress: {
        1: [Q(100, 1)],
        3: [AD(10), Q(100, 1)],
        4: [Q(100, 1)],
        7: [AD(10), Q(100, 1)],
        8: [Q(100, 1)],
        9: [Q(100, 1)],
      },
    },
    {
      name: "qinq with the default 0x8100 ethertype, customer-tagged",
      ingress: 6,
      tags: [Q(100)],
      egress: { 2: [Q(100)], 3: [Q(20), Q(100)], 4: [Q(20), Q(100)], 7: [Q(20), Q(100)] },
    },
    {
      name: "qinq 0x9100, customer-tagged, towards the other tunnel port of its VLAN",
      ingress: 8,
      tags: [Q(100)],
      egress: { 1: [Q(100)], 3: [X9100(10), Q(100)], 4: [Q(100)], 5: [Q(100)], 7: [X9100(10), Q(100)], 9: [Q(100)] },
    },
  ];

  for (const row of ROWS) {
    const outcome =
      row.drop !== undefined
        ? `is dropped (${row.drop})`
        : `reaches exactly ports ${Object.keys(row.egress ?? {}).join(", ")}, with the exact bytes`;
    it(`a broadcast entering ${row.name} ${outcome}`, () => {
      const f = fabricWith(PORTS);
      const r = f.forward(row.ingress, eth(BROADCAST, H1, row.tags), 0);
      if (row.drop !== undefined) {
        expect(r.count).to.equal(0);
        expect(r.drop).to.equal(row.drop);
        expect(f.counters(row.ingress)?.snapshot().ingressDrops).to.deep.equal({ [row.drop]: 1 });
        return;
      }
      const expected: Record<number, string> = {};
      for (const [port, tags] of Object.entries(row.egress ?? {})) expected[Number(port)] = hex(eth(BROADCAST, H1, tags));
      const actual: Record<number, string> = {};
      for (const e of egressList(r)) actual[e.port] = hex(e.frame);
      expect(actual).to.deep.equal(expected);
    });
  }

  it("rewrites known unicast exactly as it rewrites a flood", () => {
    const f = fabricWith(PORTS);
    f.forward(3, eth(BROADCAST, H2, [Q(10)]), 0); // H2 lives behind trunk 3 in VLAN 10
    expect(egressOf(f, 1, eth(H2, H1))).to.deep.equal({ 3: hex(eth(H2, H1, [Q(10)])) });
    f.forward(5, eth(BROADCAST, H3, [Q(100)]), 0); // H3 lives behind tunnel port 5
    expect(egressOf(f, 3, eth(H3, H2, [AD(10), Q(100)]))).to.deep.equal({ 5: hex(eth(H3, H2, [Q(100)])) });
  });

  it("leaves the received frame untouched, whatever it sends", () => {
    const f = fabricWith(PORTS);
    const frame = eth(BROADCAST, H1, [Q(10)]);
    const before = hex(frame);
    f.forward(3, frame, 0);
    expect(hex(frame)).to.equal(before);
  });
});

describe("802.1Q learning switch: runts", () => {
  it("drops frames shorter than 14 bytes as runts, without learning", () => {
    const f = fabricWith({ 1: access(1), 2: access(1) });
    for (const len of [0, 1, 13]) expect(f.forward(1, new Uint8Array(len), 0).drop).to.equal("runt");
    expect(f.counters(1)?.snapshot().ingressDrops).to.deep.equal({ runt: 3 });
    expect(f.macTableSize).to.equal(0);
  });

  it("drops a frame whose tag is cut short (under 18 bytes) on a trunk, which reads tags", () => {
    const f = fabricWith({ 1: dot1q(1), 2: access(1), 3: access(1), 4: qinq(1) });
    const cut = eth(BROADCAST, H1, [Q(1)]).subarray(0, 16);
    expect(f.forward(1, cut, 0).drop).to.equal("runt");
    // access and tunnel ports do not read tags: 14 bytes are enough, the frame is carried as it is
    expect(egressOf(f, 2, cut)).to.deep.equal({ 1: hex(cut), 3: hex(cut), 4: hex(cut) });
    expect(f.forward(4, cut.subarray(0, 14), 0).count).to.be.greaterThan(0);
  });
});

describe("802.1Q learning switch: learning and forwarding", () => {
  it("floods unknown unicast within the VLAN, then sends known unicast to the learned port only", () => {
    const f = fabricWith({ 1: access(1), 2: access(1), 3: access(1), 4: access(2) });
    expect(Object.keys(egressOf(f, 1, eth(H2, H1)))).to.deep.equal(["2", "3"]);
    expect(Object.keys(egressOf(f, 2, eth(H1, H2)))).to.deep.equal(["1"]);
    expect(Object.keys(egressOf(f, 1, eth(H2, H1)))).to.deep.equal(["2"]);
  });

  it("floods multicast to every other port of the VLAN, whatever has been learned", () => {
    const f = fabricWith({ 1: access(1), 2: access(1), 3: access(1) });
    f.forward(2, eth(BROADCAST, H2), 0);
    expect(Object.keys(egressOf(f, 1, eth(0x01005e000001, H1)))).to.deep.equal(["2", "3"]);
  });

  it("does not learn multicast or broadcast source addresses", () => {
    const f = fabricWith({ 1: access(1), 2: access(1) });
    f.forward(1, eth(BROADCAST, 0x01005e000001), 0);
    f.forward(1, eth(BROADCAST, BROADCAST), 0);
    expect(f.macTable(0)).to.deep.equal([]);
  });

  it("keys the table by VLAN: the same MAC in two VLANs is two entries, and unknown in a third", () => {
    const f = fabricWith({ 1: dot1q(1), 2: access(10), 3: access(20), 4: dot1q(1), 5: access(30) });
    f.forward(1, eth(BROADCAST, H1, [Q(10)]), 0);
    f.forward(1, eth(BROADCAST, H1, [Q(20)]), 0);
    expect(f.macTable(0).map((e) => [e.vlan, e.mac, e.port])).to.deep.equal([
      [10, "02:00:00:00:00:01", 1],
      [20, "02:00:00:00:00:01", 1],
    ]);
    expect(Object.keys(egressOf(f, 2, eth(H1, H2)))).to.deep.equal(["1"]);
    expect(Object.keys(egressOf(f, 3, eth(H1, H2)))).to.deep.equal(["1"]);
    expect(Object.keys(egressOf(f, 5, eth(H1, H2)))).to.deep.equal(["1", "4"]);
  });

  it("moves a station that appears on another port", () => {
    const f = fabricWith({ 1: access(1), 2: access(1), 3: access(1) });
    f.forward(1, eth(BROADCAST, H1), 0);
    f.forward(2, eth(BROADCAST, H1), 1);
    expect(Object.keys(egressOf(f, 3, eth(H1, H3), 2))).to.deep.equal(["2"]);
  });

  it("never sends a frame back out of its ingress port: known unicast to it is dropped (no_route)", () => {
    const f = fabricWith({ 1: access(1), 2: access(1) });
    f.forward(1, eth(BROADCAST, H1), 0);
    const r = f.forward(1, eth(H1, H2), 0);
    expect(r.count).to.equal(0);
    expect(r.drop).to.equal("no_route");
  });

  it("drops a frame with no other port in its VLAN (no_route)", () => {
    const f = fabricWith({ 1: access(1), 2: access(2) });
    expect(f.forward(1, eth(BROADCAST, H1), 0).drop).to.equal("no_route");
  });

  it("floods again once the destination has aged out", () => {
    const f = fabricWith({ 1: access(1), 2: access(1), 3: access(1) }, { agingTimeMs: 1000 });
    f.forward(2, eth(BROADCAST, H2), 0);
    expect(Object.keys(egressOf(f, 1, eth(H2, H1), 999))).to.deep.equal(["2"]);
    expect(Object.keys(egressOf(f, 1, eth(H2, H1), 1999))).to.deep.equal(["2", "3"]);
  });

  it("evicts the oldest entry when the table is full", () => {
    const f = fabricWith({ 1: access(1), 2: access(1), 3: access(1) }, { capacity: 2 });
    f.forward(1, eth(BROADCAST, H1), 0);
    f.forward(2, eth(BROADCAST, H2), 1);
    f.forward(3, eth(BROADCAST, H3), 2);
    expect(f.macTable(2).map((e) => e.mac)).to.deep.equal(["02:00:00:00:00:02", "02:00:00:00:00:03"]);
  });

  it("forgets a port's addresses when the port is removed, and stops sending to it", () => {
    const f = fabricWith({ 1: access(1), 2: access(1), 3: access(1) });
    f.forward(2, eth(BROADCAST, H2), 0);
    f.forward(3, eth(BROADCAST, H3), 0);
    f.removePort(2);
    expect(f.macTable(0).map((e) => e.port)).to.deep.equal([3]);
    expect(Object.keys(egressOf(f, 1, eth(H2, H1)))).to.deep.equal(["3"]);
    expect(f.forward(2, eth(BROADCAST, H2), 0).drop).to.equal("unattached");
  });

  it("on a mapping change forgets the entries that no longer hold and keeps the others", () => {
    const f = fabricWith({ 1: dot1q(1), 2: access(10), 3: access(20), 4: access(1) });
    f.forward(1, eth(BROADCAST, H1, [Q(10)]), 0); // (10, H1) on 1
    f.forward(1, eth(BROADCAST, H2, [Q(20)]), 0); // (20, H2) on 1
    f.forward(1, eth(BROADCAST, H3), 0); // (1, H3) on 1, untagged
    f.forward(2, eth(BROADCAST, 0x020000000010), 0); // (10, ...) on 2
    f.updatePorts([
      { name: "Ethernet1", portNumber: 1, mode: access(10) },
      { name: "Ethernet2", portNumber: 2, mode: access(10) },
      { name: "Ethernet3", portNumber: 3, mode: access(20) },
    ]);
    expect(f.macTable(0).map((e) => [e.vlan, e.mac, e.port])).to.deep.equal([
      [10, "02:00:00:00:00:01", 1],
      [10, "02:00:00:00:00:10", 2],
    ]);
    expect(f.attachedPorts()).to.deep.equal([1, 2, 3]);
    expect(f.modeOf(1)).to.deep.equal(access(10));
  });

  it("forgets the old native VLAN's entries when a trunk's native VLAN changes", () => {
    const f = fabricWith({ 1: dot1q(1), 2: dot1q(5) });
    f.forward(1, eth(BROADCAST, H1), 0); // (1, H1)
    f.forward(1, eth(BROADCAST, H2, [Q(7)]), 0); // (7, H2)
    f.setPort(1, dot1q(3));
    expect(f.macTable(0).map((e) => e.vlan)).to.deep.equal([7]);
  });

  it("keeps a tunnel port's entries when only its ethertype changes, and forgets them when it becomes a trunk", () => {
    const f = fabricWith({ 1: qinq(10), 2: dot1q(1) });
    f.forward(1, eth(BROADCAST, H1, [Q(100)]), 0);
    f.setPort(1, qinq(10, 0x88a8));
    expect(f.macTableSize).to.equal(1);
    expect(egressOf(f, 1, eth(BROADCAST, H1))).to.deep.equal({ 2: hex(eth(BROADCAST, H1, [AD(10)])) });
    f.setPort(1, dot1q(10));
    expect(f.macTableSize).to.equal(0);
  });

  it("flushes the whole table on request", () => {
    const f = fabricWith({ 1: access(1), 2: access(1) });
    f.forward(1, eth(BROADCAST, H1), 0);
    f.flushMacTable();
    expect(f.macTable(0)).to.deep.equal([]);
  });
});

describe("802.1Q learning switch: counters", () => {
  it("counts frames and bytes in, forwarded, offered and dropped so that both balances hold", () => {
    const f = fabricWith({ 1: access(1), 2: access(1), 3: access(2) });
    f.forward(1, eth(BROADCAST, H1), 0); // forwarded to 2
    f.forward(1, new Uint8Array(5), 0); // runt
    f.forward(2, eth(H1, H2), 0); // to 1
    f.forward(1, eth(H1, H3), 0); // hairpin: no_route
    const one = f.counters(1)!;
    one.countOut(60); // the data plane sent the frame offered to port 1
    const s1 = one.snapshot();
    expect(s1).to.include({ framesIn: 3, bytesIn: 60 + 5 + 60, framesForwarded: 1, framesOffered: 1, framesOut: 1 });
    expect(s1.ingressDrops).to.deep.equal({ runt: 1, no_route: 1 });
    expect(countersBalance(s1)).to.deep.equal({ ingress: true, egress: true });
    const s2 = f.counters(2)!.snapshot();
    expect(s2).to.include({ framesIn: 1, framesForwarded: 1, framesOffered: 1 });
    expect(countersBalance(s2)).to.deep.equal({ ingress: true, egress: false }); // offered frame not sent yet
  });

  it("lets the data plane add its filter drops to the same balances", () => {
    const f = fabricWith({ 1: access(1), 2: access(1) });
    const c = f.counters(1)!;
    c.countInDropped(60, "packet_loss");
    c.countInDropped(60, "suspend");
    f.forward(2, eth(BROADCAST, H2), 0);
    c.countEgressDrop("bandwidth");
    const s = c.snapshot();
    expect(s.drops).to.deep.equal({ packet_loss: 1, suspend: 1, bandwidth: 1 });
    expect(countersBalance(s)).to.deep.equal({ ingress: true, egress: true });
  });

  it("counts several frames dropped at once with their bytes, as an in-process link's receive buffer reports them", () => {
    const f = fabricWith({ 1: access(1), 2: access(1) });
    const c = f.counters(1)!;
    c.countInDropped(10 * 60, "receive_buffer", 10);
    const s = c.snapshot();
    expect(s).to.include({ framesIn: 10, bytesIn: 600 });
    expect(s.drops).to.deep.equal({ receive_buffer: 10 });
    expect(countersBalance(s)).to.deep.equal({ ingress: true, egress: true });
  });
});
