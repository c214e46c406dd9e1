import { expect } from "chai";
import { startTestServer, type TestServer } from "../support/http-harness.js";
import { FakeDataPlane } from "../support/fake-data-plane.js";
import { FakeClock } from "../support/fake-clock.js";

const PROJECT = "6a6a6a6a-1111-4222-8333-444444444446";
const DOWN = { frequency_drop: [-1] };
const FLAP = { period: 10, windows: [{ at: 0, for: 2, filters: DOWN }] };

/** A compute NIO's schedules (ADR 0102): `schedule_in` / `schedule_out` beside netemu's one-way filters. */
describe("schedules on compute NIOs (ADR 0102)", () => {
  let s: TestServer;
  let dataPlane: FakeDataPlane;
  let clock: FakeClock;
  let nioPath: string;
  let nodeId: string;
  beforeEach(async () => {
    dataPlane = new FakeDataPlane();
    clock = new FakeClock();
    s = await startTestServer({ overrides: { dataPlane, clock, timers: clock } });
    await s.request("POST", "/v2/compute/projects", { name: "lab", project_id: PROJECT });
    nodeId = (await s.request("POST", `/v2/compute/projects/${PROJECT}/ethernet_switch/nodes`, { name: "Switch1" })).json.node_id as string;
    nioPath = `/v2/compute/projects/${PROJECT}/ethernet_switch/nodes/${nodeId}/adapters/0/ports/1/nio`;
  });
  afterEach(() => s.close());
  const live = () => dataPlane.attached.get(`${nodeId}/1`);

  it("runs a NIO's schedule on its direction, keeps it through a PUT of its suspend flag, and ends it with fixed filters on that direction", async () => {
    const r = await s.request("POST", nioPath, { type: "nio_udp", lport: 20000, rhost: "127.0.0.1", rport: 20001, schedule_out: FLAP });
    expect(r.status, r.text).to.equal(201);
    expect(live()).to.deep.include({ filtersOut: DOWN });
    await clock.advance(2_000);
    expect(live()).to.not.have.property("filtersOut");
    const suspended = await s.request("PUT", nioPath, { type: "nio_udp", lport: 20000, rhost: "127.0.0.1", rport: 20001, suspend: false, filters_in: { delay: [5] } });
    expect(suspended.status, suspended.text).to.equal(201);
    expect(suspended.json.schedule_out).to.deep.include({ period: 10 });
    await clock.advance(8_000);
    expect(live()).to.deep.include({ filtersOut: DOWN, filtersIn: { delay: [5] } });
    const fixed = await s.request("PUT", nioPath, { type: "nio_udp", lport: 20000, rhost: "127.0.0.1", rport: 20001, filters_out: { delay: [9] } });
    expect(fixed.json).to.not.have.property("schedule_out");
    expect(live()).to.deep.include({ filtersOut: { delay: [9] } });
    expect(clock.waiting).to.equal(0);
  });

  it("answers 400 naming the field, and adds no NIO", async () => {
    const cases: [unknown, string][] = [
      [{ schedule_out: { steps: [{ at: 0 }, { at: 10 }, { at: 5 }] } }, "schedule_out.steps[2].at"],
      [{ schedule_in: FLAP, filters_in: { delay: [5] } }, "schedule_in: cannot be given together with filters_in"],
      [{ schedule_in: { period: 10, windows: [{ at: 9, for: 2 }] } }, "schedule_in.windows[0]"],
    ];
    for (const [extra, says] of cases) {
      const r = await s.request("POST", nioPath, { type: "nio_udp", lport: 20000, rhost: "127.0.0.1", rport: 20001, ...(extra as object) });
      expect(r.status, JSON.stringify(extra)).to.equal(400);
      expect(r.json.message).to.contain(says);
    }
    expect(live()).to.equal(undefined);
  });
});
