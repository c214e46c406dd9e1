import { expect } from "chai";
import { wiresBetween, type WiredPort } from "../../../src/domain/topology/wires.js";
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
