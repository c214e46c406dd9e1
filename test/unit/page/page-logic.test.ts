import { expect } from "chai";
import type { Lab, LabCounters } from "../../../web/page/api.js";
import { layout } from "../../../web/page/layout.js";
import { humanRate, ratesBetween } from "../../../web/page/rates.js";
import { KIND_FIELDS, textOf, valuesOf } from "../../../web/page/impairments.js";

const reading = (atMs: number, framesIn: number, bytesIn: number, framesOut = 0, bytesOut = 0): LabCounters => ({
  project_id: "p",
  at_ms: atMs,
  ports: [{ node_id: "sw", port_number: 0, frames_in: framesIn, bytes_in: bytesIn, frames_out: framesOut, bytes_out: bytesOut, drops: {} }],
  mac_table_entries: [],
  unanswered: [],
});

describe("netemu's page: what it works out in the browser (ADR 0094)", () => {
  describe("rates between two readings", () => {
    it("divides each direction's frames and bits by the time between the readings", () => {
      const rates = ratesBetween(reading(1000, 10, 1000, 5, 500), reading(3000, 30, 3000, 9, 900));
      expect(rates.get("sw:0")).to.deep.equal({ framesInPerSecond: 10, framesOutPerSecond: 2, bitsInPerSecond: 8000, bitsOutPerSecond: 1600 });
    });

    it("has no rate from a first reading, from readings at the same moment, or for counts that went down (a node made again)", () => {
      expect(ratesBetween(undefined, reading(1000, 10, 1000)).size).to.equal(0);
      expect(ratesBetween(reading(1000, 10, 1000), reading(1000, 20, 2000)).size).to.equal(0);
      expect(ratesBetween(reading(1000, 10, 1000), reading(2000, 3, 300)).size).to.equal(0);
    });

    it("reads a rate as people do", () => {
      expect([humanRate(0, "b/s"), humanRate(1234, "b/s"), humanRate(2_500_000, "b/s"), humanRate(999, "f/s")]).to.deep.equal(["0 b/s", "1.2 kb/s", "2.5 Mb/s", "999 f/s"]);
    });
  });

  describe("layout", () => {
    const node = (id: string, type: Lab["nodes"][number]["node_type"], at?: { x: number; y: number }): Lab["nodes"][number] => ({ node_id: id, name: id, node_type: type, status: "started", ports: [], ...at });

    it("keeps the places netemu's controller gave its nodes", () => {
      const lab: Lab = { project_id: "p", name: "l", held_by_controller: true, nodes: [node("a", "vpcs", { x: 10, y: 20 }), node("b", "vpcs", { x: -5, y: 7 })], links: [] };
      expect([...layout(lab)]).to.deep.equal([["a", { x: 10, y: 20 }], ["b", { x: -5, y: 7 }]]);
    });

    it("puts switches on a grid and each host around the switch it is linked to", () => {
      const link = (a: string, b: string) => ({ a: { node_id: a, port_number: 0 }, b: { node_id: b, port_number: 0 } });
      const lab: Lab = { project_id: "p", name: "l", held_by_controller: false, nodes: [node("s1", "ethernet_switch"), node("s2", "ethernet_switch"), node("h1", "vpcs"), node("h2", "vpcs")], links: [link("s1", "h1"), link("h2", "s2")] };
      const places = layout(lab);
      const distance = (a: string, b: string) => Math.hypot(places.get(a)!.x - places.get(b)!.x, places.get(a)!.y - places.get(b)!.y);
      expect(distance("s1", "s2")).to.be.greaterThan(distance("s1", "h1"));
      expect(distance("h2", "s2")).to.be.lessThan(distance("h2", "s1"));
    });

    it("places 1,000 switches with a host each, every node somewhere distinct", () => {
      const nodes = Array.from({ length: 1000 }, (_, i) => [node(`s${i}`, "ethernet_switch"), node(`h${i}`, "netemu_host")]).flat();
      const links = Array.from({ length: 1000 }, (_, i) => ({ a: { node_id: `s${i}`, port_number: 0 }, b: { node_id: `h${i}`, port_number: 0 } }));
      const places = layout({ project_id: "p", name: "l", held_by_controller: false, nodes, links });
      expect(new Set([...places.values()].map((p) => `${p.x.toFixed(1)},${p.y.toFixed(1)}`)).size).to.equal(2000);
    });
  });

  describe("impairment inputs", () => {
    const field = (kind: string) => KIND_FIELDS.find((f) => f.kind === kind)!;

    it("offers every filter kind netemu has", async () => {
      const { FILTER_KINDS } = await import("../../../src/domain/filters/catalogue.js");
      expect(KIND_FIELDS.map((f) => f.kind).sort()).to.deep.equal([...FILTER_KINDS].sort());
    });

    it("reads numbers as a list, text whole, and an empty input as the kind left out", () => {
      expect(valuesOf(field("delay"), " 50, 5 ")).to.deep.equal([50, 5]);
      expect(valuesOf(field("bpf"), "udp and port 53")).to.deep.equal(["udp and port 53"]);
      expect(valuesOf(field("packet_loss"), "  ")).to.equal(undefined);
      expect(valuesOf(field("packet_loss"), "ten")).to.deep.equal(["ten"]);
      expect(textOf([50, 5])).to.equal("50, 5");
    });

    it("reads decimals as numbers and values with units as text, for netemu to read (ADR 0101)", () => {
      expect(valuesOf(field("packet_loss"), "0.5")).to.deep.equal([0.5]);
      expect(valuesOf(field("delay"), "0.25, 0.001")).to.deep.equal([0.25, 0.001]);
      expect(valuesOf(field("delay"), "500us, 1.5ms")).to.deep.equal(["500us", "1.5ms"]);
      expect(valuesOf(field("bandwidth"), "10mbit, 20")).to.deep.equal(["10mbit", 20]);
      expect(valuesOf(field("packet_loss"), "0.5%")).to.deep.equal(["0.5%"]);
      expect(textOf([0.5, 0.25])).to.equal("0.5, 0.25");
    });
  });
});
