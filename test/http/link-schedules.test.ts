import { expect } from "chai";
import { startTestServer, type TestServer } from "../support/http-harness.js";
import { FakeDataPlane } from "../support/fake-data-plane.js";
import { FakeClock } from "../support/fake-clock.js";

const DOWN = { frequency_drop: [-1] };
const FLAP = { period: 10, windows: [{ at: 0, for: 2, filters: DOWN }] };

/** A controller link end's schedule (ADR 0102): what that end's node sends, as a function of time, as `nodes[i].filters` is fixed. */
describe("schedules on controller link ends (ADR 0102)", () => {
  let s: TestServer;
  let dataPlane: FakeDataPlane;
  let clock: FakeClock;
  let projectId: string;
  let a: string;
  let b: string;
  beforeEach(async () => {
    dataPlane = new FakeDataPlane();
    clock = new FakeClock();
    s = await startTestServer({ overrides: { dataPlane, clock, timers: clock } });
    projectId = (await s.request("POST", "/v2/projects", { name: "flaps" })).json.project_id;
    a = (await s.request("POST", `/v2/projects/${projectId}/nodes`, { name: "A", node_type: "ethernet_switch", compute_id: "local" })).json.node_id;
    b = (await s.request("POST", `/v2/projects/${projectId}/nodes`, { name: "B", node_type: "ethernet_switch", compute_id: "local" })).json.node_id;
  });
  afterEach(() => s.close());

  const ends = (first: Record<string, unknown> = {}, second: Record<string, unknown> = {}) => [
    { node_id: a, adapter_number: 0, port_number: 1, ...first },
    { node_id: b, adapter_number: 0, port_number: 1, ...second },
  ];
  const sentBy = (nodeId: string) => dataPlane.attached.get(`${nodeId}/1`);

  it("runs a flap on what one end sends: its NIO's outgoing direction steps with the schedule, the other end's is untouched", async () => {
    const r = await s.request("POST", `/v2/projects/${projectId}/links`, { nodes: ends({ schedule: FLAP }) });
    expect(r.status, r.text).to.equal(201);
    expect(r.json.nodes[0].schedule).to.deep.equal({ start: "set", period: 10, windows: [{ at: 0, for: 2, filters: DOWN }], base: {} });
    expect(r.json.nodes[0].schedule_set_at).to.equal(new Date(clock.nowMs()).toISOString());
    expect(r.json.nodes[1]).to.not.have.property("schedule");
    expect(sentBy(a)).to.deep.include({ filtersOut: DOWN });
    expect(sentBy(a)).to.not.have.property("scheduleOut");
    await clock.advance(2_000);
    expect(sentBy(a)).to.not.have.property("filtersOut");
    await clock.advance(8_000);
    expect(sentBy(a)).to.deep.include({ filtersOut: DOWN });
    expect(sentBy(b)).to.not.have.property("filtersOut");
    const metric = (await s.request("GET", "/metrics")).text.split("\n").find((l) => l.startsWith("netemu_schedule_step{"));
    expect(metric, "the end's step in /metrics, by the names users know").to.match(/project_name="flaps".*node_name="A".*port_number="1".*direction="out"\} 1$/);
  });

  it("sets, replaces and ends an end's schedule with PUT: fixed filters end it", async () => {
    const link = (await s.request("POST", `/v2/projects/${projectId}/links`, { nodes: ends() })).json;
    const path = `/v2/projects/${projectId}/links/${link.link_id}`;
    const put = await s.request("PUT", path, { nodes: [{ node_id: b, adapter_number: 0, port_number: 1, schedule: { steps: [{ at: 0, filters: { delay: [20] } }, { at: 5, filters: { delay: [200] } }] } }] });
    expect(put.status, put.text).to.equal(201);
    expect(sentBy(b)).to.deep.include({ filtersOut: { delay: [20] } });
    await clock.advance(5_000);
    expect(sentBy(b)).to.deep.include({ filtersOut: { delay: [200] } });
    const fixed = await s.request("PUT", path, { nodes: [{ node_id: b, adapter_number: 0, port_number: 1, filters: { delay: [7] } }] });
    expect(fixed.json.nodes[1]).to.not.have.property("schedule");
    expect(sentBy(b)).to.deep.include({ filtersOut: { delay: [7] } });
    expect(clock.waiting).to.equal(0);
  });

  it("answers a GET of the link with each scheduled end's active step and when the next begins, as the impairment routes answer a port's (schedule_now)", async () => {
    const link = (await s.request("POST", `/v2/projects/${projectId}/links`, { nodes: ends({ schedule: FLAP }, { schedule: { start: "first_frame", steps: [{ at: 0, filters: { delay: [20] } }, { at: 5, filters: { delay: [200] } }] } }) })).json;
    const path = `/v2/projects/${projectId}/links/${link.link_id}`;
    const setAt = new Date(clock.nowMs()).toISOString();
    await clock.advance(500);
    const down = await s.request("GET", path);
    expect(down.status, down.text).to.equal(200);
    expect(down.json.nodes[0].schedule_now).to.deep.equal({ step: 1, filters: DOWN, started_at: setAt, next_step_at: new Date(clock.nowMs() + 1_500).toISOString(), next_step_in: 1.5 });
    // A schedule waiting for its port's first frame runs its step 0, with no next step yet.
    expect(down.json.nodes[1].schedule_now).to.deep.equal({ step: 0, filters: { delay: [20] }, started_at: null, next_step_at: null, next_step_in: null });
    await clock.advance(2_000);
    const up = (await s.request("GET", path)).json;
    expect(up.nodes[0].schedule_now).to.deep.include({ step: 2, filters: {}, next_step_in: 7.5 });
    // An end given fixed filters has no schedule, and so no step now.
    await s.request("PUT", path, { nodes: [{ node_id: a, adapter_number: 0, port_number: 1, filters: { delay: [7] } }] });
    expect((await s.request("GET", path)).json.nodes[0]).to.not.have.property("schedule_now");
  });

  it("takes back the whole link as a GET answered it, as the GNS3 web UI's filters dialog PUTs it: schedule_set_at and schedule_now are read-only, and an unchanged schedule runs on from when it was set", async () => {
    const link = (await s.request("POST", `/v2/projects/${projectId}/links`, { nodes: ends({ schedule: FLAP }) })).json;
    const path = `/v2/projects/${projectId}/links/${link.link_id}`;
    await clock.advance(3_000);
    const read = (await s.request("GET", path)).json;
    expect(read.nodes[0]).to.include.keys("schedule", "schedule_set_at", "schedule_now");
    const put = await s.request("PUT", path, { ...read, filters: { delay: [50] } });
    expect(put.status, put.text).to.equal(201);
    expect(put.json.nodes[0].schedule_set_at).to.equal(read.nodes[0].schedule_set_at);
    expect((await s.request("GET", path)).json.nodes[0].schedule_now).to.deep.equal(read.nodes[0].schedule_now);
  });

  it("keeps the schedule and the time it was set in the project file: opened again, time has gone on", async () => {
    await s.request("POST", `/v2/projects/${projectId}/links`, { nodes: ends({ schedule: { period: 60, steps: [{ at: 0, filters: { delay: [20] } }, { at: 30, filters: { delay: [300] } }] } }) });
    await clock.advance(10_000);
    expect((await s.request("POST", `/v2/projects/${projectId}/close`)).status).to.equal(204);
    await clock.advance(25_000);
    expect((await s.request("POST", `/v2/projects/${projectId}/open`)).status).to.equal(201);
    expect(sentBy(a)).to.deep.include({ filtersOut: { delay: [300] } });
    const links = (await s.request("GET", `/v2/projects/${projectId}/links`)).json;
    expect(links[0].nodes[0].schedule.steps).to.have.length(2);
  });

  it("answers 400 naming the field for a bad schedule or one given with filters, and makes no link", async () => {
    const cases: [unknown, string][] = [
      [ends({ schedule: { steps: [{ at: 0 }, { at: 10 }, { at: 5 }] } }), "nodes[0].schedule.steps[2].at"],
      [ends({}, { schedule: { period: 10, windows: [{ at: 9, for: 2 }] } }), "nodes[1].schedule.windows[0]"],
      [ends({ schedule: FLAP, filters: { delay: [5] } }), "nodes[0].schedule: cannot be given together with nodes[0].filters"],
      [ends({ schedule: { steps: [{ at: 0, filters: { bpf: ["tcp port ((("] } }] } }), "nodes[0].schedule.steps[0].filters"],
      [ends({ schedule: [1] }), "schedule"],
    ];
    for (const [nodes, says] of cases) {
      const r = await s.request("POST", `/v2/projects/${projectId}/links`, { nodes });
      expect(r.status, JSON.stringify(nodes)).to.equal(400);
      expect(r.json.message, JSON.stringify(nodes)).to.contain(says);
    }
    expect((await s.request("GET", `/v2/projects/${projectId}/links`)).json).to.deep.equal([]);
    expect(sentBy(a)).to.equal(undefined);
  });
});
