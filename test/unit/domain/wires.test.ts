import { expect } from "chai";
import { remoteWires, wiresBetween, type WiredPort } from "../../../src/domain/topology/wires.js";
import { NO_FILTERS } from "../../../src/domain/filters/filter-settings.js";

const udp = (nodeId: string, portNumber: number, lport: number, rport: number, rhost = "127.0.0.1"): WiredPort => ({ nodeId, portNumber, nio: { type: "nio_udp", lport, rhost, rport, filters: NO_FILTERS, suspend: false } });

describe("wiresBetween: the links of a host's ports, read from their UDP NIOs (ADR 0094)", () => {
  it("pairs two ports whose NIOs send to each other's local port, once", () => {
    expect(wiresBetween([udp("sw", 0, 10001, 10002), udp("pc", 0, 10002, 10001)])).to.deep.equal([{ a: { nodeId: "sw", portNumber: 0 }, b: { nodeId: "pc", portNumber: 0 } }]);
  });

  it("leaves out a port whose peer is elsewhere, and one whose peer sends to a third port", () => {
    expect(wiresBetween([udp("sw", 0, 10001, 20000), udp("sw", 1, 10003, 10004), udp("pc", 0, 10004, 10009)])).to.deep.equal([]);
  });

  it("leaves out NIOs that carry no UDP (TAP, null) and a NIO sending to itself", () => {
    const tap: WiredPort = { nodeId: "sw", portNumber: 2, nio: { type: "nio_tap", tapDevice: "tap0", filters: NO_FILTERS, suspend: false } };
    const none: WiredPort = { nodeId: "sw", portNumber: 3, nio: { type: "nio_null" } };
    expect(wiresBetween([tap, none, udp("sw", 4, 10010, 10010)])).to.deep.equal([]);
  });

  it("finds every link of a thousand switch-to-host pairs", () => {
    const ports = Array.from({ length: 1000 }, (_, i) => [udp(`sw${i}`, 0, 30000 + 2 * i, 30001 + 2 * i), udp(`pc${i}`, 0, 30001 + 2 * i, 30000 + 2 * i)]).flat();
    expect(wiresBetween(ports)).to.have.length(1000);
  });
});

describe("remoteWires: the ports of a host's lab linked to a node elsewhere, by the address they send to (ADR 0098)", () => {
  it("gives each UDP port that pairs with no port here, with its peer's host and port", () => {
    const ports = [udp("sw", 0, 10001, 10002), udp("pc", 0, 10002, 10001), udp("sw", 1, 10003, 20001, "192.0.2.7"), udp("sw", 2, 10005, 20003, "::1")];
    expect(remoteWires(ports)).to.deep.equal([
      { a: { nodeId: "sw", portNumber: 1 }, peer: { host: "192.0.2.7", port: 20001 } },
      { a: { nodeId: "sw", portNumber: 2 }, peer: { host: "::1", port: 20003 } },
    ]);
  });

  it("counts a port whose peer port is here but sends to a third port, and a NIO sending to its own port number, as linked elsewhere", () => {
    expect(remoteWires([udp("sw", 1, 10003, 10004), udp("pc", 0, 10004, 10009), udp("sw", 4, 10010, 10010, "198.51.100.1")]).map((r) => [r.a.nodeId, r.a.portNumber, r.peer.port])).to.deep.equal([
      ["sw", 1, 10004],
      ["pc", 0, 10009],
      ["sw", 4, 10010],
    ]);
  });

  it("leaves out NIOs that carry no UDP: a TAP or a host interface has no peer address, a null NIO no peer", () => {
    const tap: WiredPort = { nodeId: "sw", portNumber: 2, nio: { type: "nio_tap", tapDevice: "tap0", filters: NO_FILTERS, suspend: false } };
    const none: WiredPort = { nodeId: "sw", portNumber: 3, nio: { type: "nio_null" } };
    expect(remoteWires([tap, none])).to.deep.equal([]);
  });

  it("finds every remote end of a thousand ports in one pass, none for a thousand paired links", () => {
    const paired = Array.from({ length: 1000 }, (_, i) => [udp(`sw${i}`, 0, 30000 + 2 * i, 30001 + 2 * i), udp(`pc${i}`, 0, 30001 + 2 * i, 30000 + 2 * i)]).flat();
    const outside = Array.from({ length: 1000 }, (_, i) => udp(`sw${i}`, 1, 40000 + i, 50000 + i));
    expect(remoteWires(paired)).to.deep.equal([]);
    expect(remoteWires([...paired, ...outside])).to.have.length(1000);
  });
});
