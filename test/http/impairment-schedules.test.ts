import { expect } from "chai";
import { startTestServer, type TestServer } from "../support/http-harness.js";

const PROJECT = "68686868-1111-4222-8333-444444444445";
const PATH = "/v2/netemu/impairments";
const port = { project: "lab", node: "Switch1", port: "Ethernet2" };
const FLAP = { period: 10, windows: [{ at: 0, for: 2, filters: { frequency_drop: [-1] } }] };

describe("/v2/netemu/impairments with schedules (ADR 0102)", () => {
  let s: TestServer;
  let switchId: string;
  beforeEach(async () => {
    s = await startTestServer();
    await s.request("POST", "/v2/compute/projects", { name: "lab", project_id: PROJECT });
    switchId = (await s.request("POST", `/v2/compute/projects/${PROJECT}/ethernet_switch/nodes`, { name: "Switch1" })).json.node_id as string;
  });
  afterEach(() => s.close());

  it("sets a schedule on a direction and answers it as set, with its active step and when the next begins", async () => {
    const before = Date.now();
    const r = await s.request("PUT", PATH, { ...port, schedule_out: FLAP });
    expect(r.status, r.text).to.equal(200);
    expect(r.json.schedule_out).to.deep.equal({ start: "set", period: 10, windows: [{ at: 0, for: 2, filters: { frequency_drop: [-1] } }], base: {} });
    expect(r.json.filters_out).to.deep.equal({});
    expect(r.json.schedule_out_now).to.deep.include({ step: 1, filters: { frequency_drop: [-1] } });
    expect(Date.parse(r.json.schedule_out_now.started_at)).to.be.within(before, Date.now());
    expect(r.json.schedule_out_now.next_step_in).to.be.within(1.5, 2);
    expect(Date.parse(r.json.schedule_out_now.next_step_at) - Date.parse(r.json.schedule_out_now.started_at)).to.equal(2_000);
    expect(r.json).to.not.have.property("schedule_in");
    const listed = await s.request("GET", PATH);
    expect(listed.json[0].schedule_out).to.deep.equal(r.json.schedule_out);
  });

  it("answers a schedule waiting for its first frame with no start and no next step", async () => {
    const r = await s.request("PUT", PATH, { ...port, schedule_in: { start: "first_frame", steps: [{ at: 0, filters: { delay: [20] } }, { at: 30, filters: {} }] } });
    expect(r.status, r.text).to.equal(200);
    expect(r.json.schedule_in_now).to.deep.equal({ step: 0, filters: { delay: [20] }, started_at: null, next_step_at: null, next_step_in: null });
  });

  it("answers 400 naming the field for every bad schedule, and changes nothing", async () => {
    await s.request("PUT", PATH, { ...port, filters_out: { delay: [50] } });
    const before = (await s.request("GET", PATH)).json;
    const cases: [unknown, string][] = [
      [{ ...port, schedule_out: 3 }, "schedule_out"],
      [{ ...port, schedule_out: { steps: [{ at: 0 }, { at: 10 }, { at: 5 }] } }, "schedule_out.steps[2].at: 5 is not after schedule_out.steps[1].at"],
      [{ ...port, schedule_out: { steps: [{ at: 2 }] } }, "schedule_out.steps[0].at: 2: the first step must be at 0"],
      [{ ...port, schedule_out: { steps: [{ at: 0 }, { at: -1 }] } }, "schedule_out.steps[1].at: -1 is less than the minimum of 0"],
      [{ ...port, schedule_out: { period: 10, windows: [{ at: 9, for: 2 }] } }, "schedule_out.windows[0]"],
      [{ ...port, schedule_out: { period: 10, windows: [{ at: 1, for: 3 }, { at: 2, for: 1 }] } }, "must not overlap"],
      [{ ...port, schedule_out: { windows: [{ for: 1 }] } }, "schedule_out.period: is required"],
      [{ ...port, schedule_out: { ...FLAP, start: "later" } }, "schedule_out.start"],
      [{ ...port, schedule_out: { steps: [{ at: 0, filters: { packet_loss: [101] } }] } }, "schedule_out.steps[0].filters"],
      [{ ...port, schedule_out: { steps: [{ at: 0, filters: { bpf: ["tcp port ((("] } }] } }, "schedule_out.steps[0].filters"],
      [{ ...port, schedule_out: FLAP, filters_out: {} }, "schedule_out: cannot be given together with filters_out"],
      [{ ...port, schedule_in: { ...FLAP, colour: "red" } }, "schedule_in.colour: is not a field here"],
    ];
    for (const [body, says] of cases) {
      const r = await s.request("PUT", PATH, body);
      expect(r.status, JSON.stringify(body)).to.equal(400);
      expect(r.json.message, JSON.stringify(body)).to.contain(says);
    }
    expect((await s.request("GET", PATH)).json).to.deep.equal(before);
  });

  it("takes a schedule off when the direction is given fixed filters", async () => {
    await s.request("PUT", PATH, { ...port, schedule_out: FLAP });
    const r = await s.request("PUT", PATH, { ...port, filters_out: { delay: [5] } });
    expect(r.json).to.not.have.property("schedule_out");
    expect(r.json.filters_out).to.deep.equal({ delay: [5] });
  });

  it("shows each live scheduled direction's active step in /metrics, and none once the schedule is off", async () => {
    const lport = (await s.request("POST", `/v2/compute/projects/${PROJECT}/ports/udp`)).json.udp_port as number;
    const nio = await s.request("POST", `/v2/compute/projects/${PROJECT}/ethernet_switch/nodes/${switchId}/adapters/0/ports/2/nio`, { type: "nio_udp", lport, rhost: "127.0.0.1", rport: 9 });
    expect(nio.status, nio.text).to.equal(201);
    await s.request("PUT", PATH, { ...port, schedule_out: FLAP });
    const text = (await s.request("GET", "/metrics")).text;
    const line = text.split("\n").find((l) => l.startsWith("netemu_schedule_step{"));
    expect(line).to.match(/node_name="Switch1".*port_name="Ethernet2".*direction="out"\} 1$/);
    await s.request("PUT", PATH, { ...port, filters_out: {} });
    expect((await s.request("GET", "/metrics")).text).to.not.match(/^netemu_schedule_step\{/m);
  });

  it("answers 404 for a port it does not find, setting no schedule", async () => {
    const r = await s.request("PUT", PATH, { ...port, port: "Ethernet99", schedule_out: FLAP });
    expect(r.status).to.equal(404);
    expect((await s.request("GET", PATH)).json).to.deep.equal([]);
  });
});
