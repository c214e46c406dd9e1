import { expect } from "chai";
import type { Lab, LabCounters } from "../../../web/page/api.js";
import { layout } from "../../../web/page/layout.js";
import { humanRate, humanWait, ratesBetween } from "../../../web/page/rates.js";
import { KIND_FIELDS, textOf, valuesOf } from "../../../web/page/impairments.js";
import { peerAddress, withRemotePeers } from "../../../web/page/remote.js";
import { directionFields, scheduleNowText, scheduleText } from "../../../web/page/schedules.js";

const NO_QUEUE = { sum_ms: 0, frames: 0, max_ms: 0 };
const NO_QUEUES = { frames: 0, meanMs: 0, maxMs: 0, everQueued: false };
const reading = (atMs: number, framesIn: number, bytesIn: number, framesOut = 0, bytesOut = 0, out = NO_QUEUE): LabCounters => ({
  project_id: "p",
  at_ms: atMs,
  ports: [{ node_id: "sw", port_number: 0, frames_in: framesIn, bytes_in: bytesIn, frames_out: framesOut, bytes_out: bytesOut, drops: {}, queue_delay: { in: NO_QUEUE, out } }],
  mac_table_entries: [],
  unanswered: [],
});

describe("netemu's page: what it works out in the browser (ADR 0094)", () => {
  describe("rates between two readings", () => {
    it("divides each direction's frames and bits by the time between the readings", () => {
      const rates = ratesBetween(reading(1000, 10, 1000, 5, 500), reading(3000, 30, 3000, 9, 900));
      expect(rates.get("sw:0")).to.deep.equal({ framesInPerSecond: 10, framesOutPerSecond: 2, bitsInPerSecond: 8000, bitsOutPerSecond: 1600, queueIn: NO_QUEUES, queueOut: NO_QUEUES });
    });

    it("gives each direction's mean queue delay over the frames queued between the readings, and the recent maximum (ADR 0097)", () => {
      const rates = ratesBetween(reading(1000, 0, 0, 10, 10_000, { sum_ms: 500, frames: 10, max_ms: 90 }), reading(2000, 0, 0, 14, 14_000, { sum_ms: 1300, frames: 14, max_ms: 260 }));
      expect(rates.get("sw:0")?.queueOut).to.deep.equal({ frames: 4, meanMs: 200, maxMs: 260, everQueued: true });
      const idle = ratesBetween(reading(1000, 0, 0, 14, 14_000, { sum_ms: 1300, frames: 14, max_ms: 0 }), reading(2000, 0, 0, 14, 14_000, { sum_ms: 1300, frames: 14, max_ms: 0 }));
      expect(idle.get("sw:0")?.queueOut, "a queue nothing went through since").to.deep.equal({ frames: 0, meanMs: 0, maxMs: 0, everQueued: true });
      expect([humanWait(0), humanWait(4.25), humanWait(187.6), humanWait(1500)]).to.deep.equal(["0.0 ms", "4.3 ms", "188 ms", "1.5 s"]);
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
      const lab: Lab = { project_id: "p", name: "l", held_by_controller: true, nodes: [node("a", "vpcs", { x: 10, y: 20 }), node("b", "vpcs", { x: -5, y: 7 })], links: [], remote_links: [] };
      expect([...layout(lab)]).to.deep.equal([["a", { x: 10, y: 20 }], ["b", { x: -5, y: 7 }]]);
    });

    it("puts switches on a grid and each host around the switch it is linked to", () => {
      const link = (a: string, b: string) => ({ a: { node_id: a, port_number: 0 }, b: { node_id: b, port_number: 0 } });
      const lab: Lab = { project_id: "p", name: "l", held_by_controller: false, nodes: [node("s1", "ethernet_switch"), node("s2", "ethernet_switch"), node("h1", "vpcs"), node("h2", "vpcs")], links: [link("s1", "h1"), link("h2", "s2")], remote_links: [] };
      const places = layout(lab);
      const distance = (a: string, b: string) => Math.hypot(places.get(a)!.x - places.get(b)!.x, places.get(a)!.y - places.get(b)!.y);
      expect(distance("s1", "s2")).to.be.greaterThan(distance("s1", "h1"));
      expect(distance("h2", "s2")).to.be.lessThan(distance("h2", "s1"));
    });

    it("places 1,000 switches with a host each, every node somewhere distinct", () => {
      const nodes = Array.from({ length: 1000 }, (_, i) => [node(`s${i}`, "ethernet_switch"), node(`h${i}`, "netemu_host")]).flat();
      const links = Array.from({ length: 1000 }, (_, i) => ({ a: { node_id: `s${i}`, port_number: 0 }, b: { node_id: `h${i}`, port_number: 0 } }));
      const places = layout({ project_id: "p", name: "l", held_by_controller: false, nodes, links, remote_links: [] });
      expect(new Set([...places.values()].map((p) => `${p.x.toFixed(1)},${p.y.toFixed(1)}`)).size).to.equal(2000);
    });
  });

  describe("peers elsewhere (ADR 0098)", () => {
    const node = (id: string, type: Lab["nodes"][number]["node_type"], at?: { x: number; y: number }): Lab["nodes"][number] => ({ node_id: id, name: id, node_type: type, status: "started", ports: [], ...at });
    const remote = (nodeId: string, port: number, host: string, peerPort: number) => ({ a: { node_id: nodeId, port_number: port }, peer: { host, port: peerPort } });

    it("writes a peer's address as people do, an IPv6 host in brackets", () => {
      expect([peerAddress({ host: "127.0.0.1", port: 20001 }), peerAddress({ host: "::1", port: 20003 }), peerAddress({ host: "gns3-b.lan", port: 10000 })]).to.deep.equal(["127.0.0.1:20001", "[::1]:20003", "gns3-b.lan:10000"]);
    });

    it("draws each address a port sends to as a node of kind remote, linked from that port; ports sending to one address share its node", () => {
      const lab: Lab = { project_id: "p", name: "l", held_by_controller: false, nodes: [node("sw", "ethernet_switch")], links: [], remote_links: [remote("sw", 0, "127.0.0.1", 20001), remote("sw", 1, "127.0.0.1", 20003), remote("sw", 2, "127.0.0.1", 20001)] };
      const drawn = withRemotePeers(lab);
      expect(drawn.nodes.map((n) => [n.node_id, n.name, n.node_type, n.ports.length])).to.deep.equal([
        ["sw", "sw", "ethernet_switch", 0],
        ["remote:127.0.0.1:20001", "127.0.0.1:20001", "remote", 2],
        ["remote:127.0.0.1:20003", "127.0.0.1:20003", "remote", 1],
      ]);
      expect(drawn.links).to.deep.equal([
        { a: { node_id: "sw", port_number: 0 }, b: { node_id: "remote:127.0.0.1:20001", port_number: 0 } },
        { a: { node_id: "sw", port_number: 1 }, b: { node_id: "remote:127.0.0.1:20003", port_number: 0 } },
        { a: { node_id: "sw", port_number: 2 }, b: { node_id: "remote:127.0.0.1:20001", port_number: 1 } },
      ]);
    });

    it("leaves a lab without peers elsewhere as it is", () => {
      const lab: Lab = { project_id: "p", name: "l", held_by_controller: false, nodes: [node("sw", "ethernet_switch")], links: [], remote_links: [] };
      expect(withRemotePeers(lab)).to.equal(lab);
    });

    it("places each peer around the node linked to it, also in a lab that keeps its controller's places", () => {
      const given: Lab = { project_id: "p", name: "l", held_by_controller: true, nodes: [node("sw", "ethernet_switch", { x: 500, y: 300 }), node("pc", "vpcs", { x: 400, y: 300 })], links: [], remote_links: [remote("sw", 1, "192.0.2.1", 20001), remote("pc", 0, "192.0.2.1", 20002)] };
      const places = layout(withRemotePeers(given));
      expect([places.get("sw"), places.get("pc")]).to.deep.equal([{ x: 500, y: 300 }, { x: 400, y: 300 }]);
      const near = (id: string, to: string) => Math.hypot(places.get(id)!.x - places.get(to)!.x, places.get(id)!.y - places.get(to)!.y);
      expect(near("remote:192.0.2.1:20001", "sw")).to.be.within(50, 200);
      expect(near("remote:192.0.2.1:20002", "pc")).to.be.within(50, 200);
    });

    it("on the grid, rings a switch's peers elsewhere apart from its hosts: every node somewhere distinct", () => {
      const lab: Lab = {
        project_id: "p",
        name: "l",
        held_by_controller: false,
        nodes: [node("sw", "ethernet_switch"), node("h1", "vpcs"), node("h2", "vpcs")],
        links: [{ a: { node_id: "sw", port_number: 0 }, b: { node_id: "h1", port_number: 0 } }, { a: { node_id: "h2", port_number: 0 }, b: { node_id: "sw", port_number: 1 } }],
        remote_links: [remote("sw", 2, "127.0.0.1", 20001), remote("sw", 3, "127.0.0.1", 20003)],
      };
      const places = layout(withRemotePeers(lab));
      expect(places.size).to.equal(5);
      expect(new Set([...places.values()].map((p) => `${p.x.toFixed(1)},${p.y.toFixed(1)}`)).size).to.equal(5);
      // The switch stays a centre of the grid, not pulled into a ring by its peers.
      expect(places.get("sw")).to.deep.equal({ x: 0, y: 0 });
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

  describe("a direction's schedule (ADR 0102)", () => {
    it("sends the fixed filters when the schedule box is empty, and the schedule alone when it holds one", () => {
      expect(directionFields({ delay: [20] }, "  ")).to.deep.equal({ filters: { delay: [20] } });
      expect(directionFields({}, '{"period": 2, "windows": [{"at": 0, "for": 1, "filters": {"frequency_drop": [-1]}}]}')).to.deep.equal({ schedule: { period: 2, windows: [{ at: 0, for: 1, filters: { frequency_drop: [-1] } }] } });
    });

    it("says what is wrong with a schedule that is not a JSON object, and sends nothing", () => {
      expect(directionFields({}, "{period: 2")).to.have.property("problem").that.matches(/^the schedule is not JSON/);
      expect(directionFields({}, "[1, 2]")).to.deep.equal({ problem: "the schedule must be a JSON object, as `netemu impair --schedule-out` takes" });
      expect(directionFields({}, "null")).to.have.property("problem");
    });

    it("shows a schedule as indented JSON, and none as an empty box", () => {
      expect(scheduleText(undefined)).to.equal("");
      expect(scheduleText({ period: 2 })).to.equal('{\n  "period": 2\n}');
    });

    it("says the active step, its impairments and when the next begins", () => {
      const now = { step: 1, filters: { frequency_drop: [-1] }, started_at: "2026-11-26T19:00:00.000Z", next_step_at: "2026-11-26T19:00:01.000Z", next_step_in: 0.75 };
      expect(scheduleNowText(undefined)).to.equal("No schedule.");
      expect(scheduleNowText(now)).to.equal("Step 1 active (frequency_drop -1); the next step begins in 0.8 s.");
      expect(scheduleNowText({ ...now, step: 2, filters: {}, next_step_at: null, next_step_in: null })).to.equal("Step 2 active (no impairment), for good.");
      expect(scheduleNowText({ ...now, step: 0, filters: { delay: [20, 5] }, started_at: null, next_step_at: null, next_step_in: null })).to.equal("Step 0 active (delay 20, 5), until the first frame starts the schedule.");
    });
  });
});
