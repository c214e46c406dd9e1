import { expect } from "chai";
import { egressList } from "../../../src/domain/switching/forwarding.js";
import { HubFabric } from "../../../src/domain/switching/hub-fabric.js";
import { countersBalance } from "../../../src/domain/switching/port-counters.js";
import { BROADCAST, Q, eth, hex } from "./support.js";

const H1 = 0x020000000001;
const H2 = 0x020000000002;

function hubWith(...ports: number[]): HubFabric {
  const hub = new HubFabric();
  for (const p of ports) hub.setPort(p);
  return hub;
}

/** Egress as [port, hex of bytes] in the order the hub answered them. */
function egressOf(hub: HubFabric, ingress: number, frame: Uint8Array): [number, string][] {
  return egressList(hub.forward(ingress, frame)).map((e) => [e.port, hex(e.frame)]);
}

describe("Ethernet hub fabric", () => {
  it("repeats a frame to every other attached port in ascending port order, byte for byte", () => {
    const hub = hubWith(7, 2, 0, 5, 3);
    const frame = eth(BROADCAST, H1);
    expect(egressOf(hub, 3, frame)).to.deep.equal([
      [0, hex(frame)],
      [2, hex(frame)],
      [5, hex(frame)],
      [7, hex(frame)],
    ]);
  });

  it("never sends a frame back out of the port it came in on", () => {
    const hub = hubWith(0, 1, 2);
    for (const ingress of [0, 1, 2]) {
      const ports = egressOf(hub, ingress, eth(BROADCAST, H1)).map(([p]) => p);
      expect(ports, `from port ${ingress}`).to.not.include(ingress);
      expect(ports).to.have.length(2);
    }
  });

  it("leaves 802.1Q tags exactly as they came: a hub knows no VLANs", () => {
    const hub = hubWith(1, 2);
    const tagged = eth(H2, H1, [Q(100, 5), Q(7)]);
    const untagged = eth(H2, H1);
    expect(egressOf(hub, 1, tagged)).to.deep.equal([[2, hex(tagged)]]);
    expect(egressOf(hub, 1, untagged)).to.deep.equal([[2, hex(untagged)]]);
  });

  it("does not alter the frame it was handed", () => {
    const hub = hubWith(1, 2, 3);
    const frame = eth(BROADCAST, H1, [Q(10)]);
    const before = hex(frame);
    hub.forward(1, frame);
    expect(hex(frame)).to.equal(before);
  });

  it("learns nothing: unicast to a host it has seen still goes out of every other port", () => {
    const hub = hubWith(1, 2, 3);
    // H2 speaks on port 2; a learning switch would now send frames for H2 to port 2 only.
    egressOf(hub, 2, eth(BROADCAST, H2));
    egressOf(hub, 2, eth(H1, H2));
    expect(egressOf(hub, 1, eth(H2, H1)).map(([p]) => p)).to.deep.equal([2, 3]);
    // Even a frame addressed to the host behind its own ingress port is repeated.
    expect(egressOf(hub, 2, eth(H2, H1)).map(([p]) => p)).to.deep.equal([1, 3]);
  });

  it("drops a frame with no_route when the ingress port is the only one attached", () => {
    const hub = hubWith(4);
    const r = hub.forward(4, eth(BROADCAST, H1));
    expect(r.count).to.equal(0);
    expect(r.drop).to.equal("no_route");
    expect(hub.counters(4)!.snapshot().ingressDrops).to.deep.equal({ no_route: 1 });
  });

  it("drops anything shorter than an Ethernet header (14 bytes) as a runt", () => {
    const hub = hubWith(1, 2);
    for (const length of [0, 1, 13]) {
      const r = hub.forward(1, new Uint8Array(length));
      expect(r.count, `${length} bytes`).to.equal(0);
      expect(r.drop, `${length} bytes`).to.equal("runt");
    }
    const fourteen = hub.forward(1, new Uint8Array(14));
    expect(fourteen.count, "a bare 14-byte header is repeated").to.equal(1);
    const s = hub.counters(1)!.snapshot();
    expect(s).to.include({ framesIn: 4, bytesIn: 0 + 1 + 13 + 14, framesForwarded: 1 });
    expect(s.ingressDrops).to.deep.equal({ runt: 3 });
  });

  it("answers unattached for a frame on a port that is not attached, and counts it nowhere", () => {
    const hub = hubWith(1, 2);
    const r = hub.forward(9, eth(BROADCAST, H1));
    expect(r.count).to.equal(0);
    expect(r.drop).to.equal("unattached");
    expect(hub.counters(9)).to.equal(undefined);
    for (const p of [1, 2]) expect(hub.counters(p)!.snapshot()).to.include({ framesIn: 0, framesOffered: 0, framesForwarded: 0 });
  });

  it("clears the previous answer's drop reason: one result object is reused", () => {
    const hub = hubWith(1, 2);
    expect(hub.forward(1, new Uint8Array(3)).drop).to.equal("runt");
    const r = hub.forward(1, eth(BROADCAST, H1));
    expect(r.drop).to.equal(undefined);
    expect(r.count).to.equal(1);
  });

  it("keeps both counter balances on every port once the data plane has sent what was offered", () => {
    const hub = hubWith(0, 1, 2, 3);
    const frames: [number, Uint8Array][] = [
      [0, eth(BROADCAST, H1)],
      [1, eth(H1, H2)],
      [2, new Uint8Array(5)],
      [3, eth(H2, H1, [Q(20)])],
      [0, eth(H2, H1, [], 200)],
      [9, eth(BROADCAST, H2)],
    ];
    let offered = 0;
    for (const [ingress, frame] of frames) {
      const r = hub.forward(ingress, frame);
      for (const e of egressList(r)) {
        hub.counters(e.port)!.countOut(e.frame.length);
        offered++;
      }
    }
    let totalOffered = 0;
    let totalIn = 0;
    for (const p of [0, 1, 2, 3]) {
      const s = hub.counters(p)!.snapshot();
      expect(countersBalance(s), `port ${p}`).to.deep.equal({ ingress: true, egress: true });
      totalOffered += s.framesOffered;
      totalIn += s.framesIn;
    }
    expect(totalOffered).to.equal(offered);
    expect(offered).to.equal(4 * 3);
    expect(totalIn, "the frame on unattached port 9 is not counted").to.equal(5);
    expect(hub.counters(0)!.snapshot()).to.include({ framesIn: 2, bytesIn: 60 + 214, framesForwarded: 2, framesOffered: 2 });
  });

  it("stops repeating to a removed port, and forgets its counters", () => {
    const hub = hubWith(1, 2, 3);
    hub.removePort(2);
    expect(hub.hasPort(2)).to.equal(false);
    expect(hub.counters(2)).to.equal(undefined);
    expect(egressOf(hub, 1, eth(BROADCAST, H1)).map(([p]) => p)).to.deep.equal([3]);
    expect(hub.forward(2, eth(BROADCAST, H1)).drop).to.equal("unattached");
    hub.removePort(3);
    expect(hub.forward(1, eth(BROADCAST, H1)).drop).to.equal("no_route");
    hub.removePort(42); // removing a port that is not there is harmless
    expect(hub.hasPort(1)).to.equal(true);
  });

  it("takes a port back with fresh counters after it was removed, and ignores attaching it twice", () => {
    const hub = hubWith(1, 2);
    hub.forward(2, eth(BROADCAST, H1));
    hub.removePort(2);
    hub.setPort(2);
    expect(hub.counters(2)!.snapshot()).to.include({ framesIn: 0, framesOffered: 0 });
    const before = hub.counters(1);
    hub.setPort(1);
    expect(hub.counters(1), "attaching again keeps the port's counters").to.equal(before);
    expect(egressOf(hub, 1, eth(BROADCAST, H1)).map(([p]) => p)).to.deep.equal([2]);
  });
});
