import { expect } from "chai";
import { existsSync } from "node:fs";
import { join } from "node:path";
import * as E from "fp-ts/lib/Either.js";
import { startTestServer, type TestServer } from "../support/http-harness.js";
import { PortStatisticsAnswer } from "../../src/adapters/http/compute/answers.js";
import { presentCounters } from "../../src/adapters/http/compute/presenters.js";

/** The trace routes (ADR 0103): upload the raw text by name, list, read back, delete; clear 4xx. */
describe("HTTP: /v2/netemu/traces", function () {
  this.timeout(20_000);
  let s: TestServer;
  beforeEach(async () => {
    s = await startTestServer();
  });
  afterEach(() => s.close());

  it("takes a Mahimahi trace as raw text and answers its summary: lines, duration, mean capacity", async () => {
    const text = Array.from({ length: 1000 }, (_, i) => String(i + 1)).join("\n") + "\n";
    const r = await s.raw("PUT", "/v2/netemu/traces/twelve-mbit", text, { "content-type": "text/plain" });
    expect(r.status, r.text).to.equal(201);
    expect(r.json).to.deep.equal({ name: "twelve-mbit", kind: "capacity", lines: 1000, bytes: Buffer.byteLength(text), duration_ms: 1000, mean_capacity_kbps: 12000 });
    expect(existsSync(join(s.configDir, "traces", "twelve-mbit"))).to.equal(true);
    const listed = await s.request("GET", "/v2/netemu/traces");
    expect(listed.json).to.deep.equal([r.json]);
    const got = await s.request("GET", "/v2/netemu/traces/twelve-mbit");
    expect(got.status).to.equal(200);
    expect(got.headers.get("content-type")).to.match(/^text\/plain/);
    expect(got.text).to.equal(text);
  });

  it("takes a value trace and says whether it loops", async () => {
    const r = await s.raw("PUT", "/v2/netemu/traces/delays", "0 20\n5000 80\n10000\n");
    expect(r.status, r.text).to.equal(201);
    expect(r.json).to.deep.include({ kind: "values", lines: 3, duration_ms: 10000, loops: true });
  });

  it("refuses a trace that does not read with a 400 naming the line, and keeps nothing", async () => {
    const r = await s.raw("PUT", "/v2/netemu/traces/bad", "1\n5\n4\n");
    expect(r.status).to.equal(400);
    expect(r.json.message).to.equal('Trace "bad" does not read: line 3: 4 ms comes before the 5 ms of the line above (timestamps must not decrease)');
    expect((await s.request("GET", "/v2/netemu/traces")).json).to.deep.equal([]);
  });

  it("refuses a name that is not a safe file name with a 400", async () => {
    const r = await s.raw("PUT", "/v2/netemu/traces/.hidden", "1\n");
    expect(r.status).to.equal(400);
    expect(r.json.message).to.match(/^Invalid trace name "\.hidden"/);
  });

  it("answers 404 for a trace that was not uploaded, to a read and to a delete", async () => {
    expect((await s.request("GET", "/v2/netemu/traces/nowhere")).status).to.equal(404);
    const d = await s.request("DELETE", "/v2/netemu/traces/nowhere");
    expect(d.status).to.equal(404);
    expect(d.json.message).to.equal('Trace "nowhere" not found');
  });

  it("deletes a trace no filter names (204), and forgets its file", async () => {
    await s.raw("PUT", "/v2/netemu/traces/gone", "10\n");
    expect((await s.request("DELETE", "/v2/netemu/traces/gone")).status).to.equal(204);
    expect(existsSync(join(s.configDir, "traces", "gone"))).to.equal(false);
  });

  describe("named by an overlay on a GNS3 port (netemu impair)", () => {
    const PROJECT = "67676767-3333-4444-8555-777777777700";
    const SWITCH = "67676767-aaaa-4bbb-8ccc-000000000070";
    const PATH = "/v2/netemu/impairments";
    beforeEach(async () => {
      expect((await s.request("POST", "/v2/compute/projects", { name: "lab", project_id: PROJECT })).status).to.equal(201);
      expect((await s.request("POST", `/v2/compute/projects/${PROJECT}/ethernet_switch/nodes`, { name: "Switch1", node_id: SWITCH })).status).to.equal(201);
      const lport = (await s.request("POST", `/v2/compute/projects/${PROJECT}/ports/udp`)).json.udp_port as number;
      expect((await s.request("POST", `/v2/compute/projects/${PROJECT}/ethernet_switch/nodes/${SWITCH}/adapters/0/ports/1/nio`, { type: "nio_udp", lport, rhost: "127.0.0.1", rport: 9 })).status).to.equal(201);
    });

    it("refuses a trace that was not uploaded with a 400 naming it, and takes it once uploaded", async () => {
      const refused = await s.request("PUT", PATH, { project: "lab", node: "Switch1", port: "Ethernet1", filters_out: { capacity_trace: ["lte.down"] } });
      expect(refused.status).to.equal(400);
      expect(refused.json.message).to.equal('filters_out: Filter capacity_trace: no trace named "lte.down" was uploaded (PUT /v2/netemu/traces/lte.down)');
      // A schedule's step is checked when the schedule is set, not when the step comes.
      const step = await s.request("PUT", PATH, { project: "lab", node: "Switch1", port: "Ethernet1", schedule_out: { steps: [{ at: 0, filters: { delay: [5] } }, { at: 30, filters: { loss_trace: ["lte.loss"] } }] } });
      expect(step.status).to.equal(400);
      expect(step.json.message).to.equal('schedule_out.steps[1].filters: Filter loss_trace: no trace named "lte.loss" was uploaded (PUT /v2/netemu/traces/lte.loss)');
      expect((await s.request("GET", PATH)).json).to.deep.equal([]);
      expect((await s.raw("PUT", "/v2/netemu/traces/lte.down", "1\n2\n")).status).to.equal(201);
      const set = await s.request("PUT", PATH, { project: "lab", node: "Switch1", port: "Ethernet1", filters_out: { capacity_trace: ["lte.down", 200] } });
      expect(set.status, set.text).to.equal(200);
      expect(set.json.filters_out).to.deep.equal({ capacity_trace: ["lte.down", 200] });
      // Before its first frame the trace has not started: no position in the port's statistics yet.
      const node = await s.request("GET", `/v2/compute/projects/${PROJECT}/ethernet_switch/nodes/${SWITCH}`);
      expect(node.status).to.equal(200);
      expect(node.json.ports_statistics.find((p: { port_number: number }) => p.port_number === 1)).to.not.have.property("traces");
    });

    it("refuses to delete or replace a trace an overlay or a schedule's step names (409), and deletes it once cleared", async () => {
      await s.raw("PUT", "/v2/netemu/traces/lte.down", "1\n2\n");
      const scheduled = await s.request("PUT", PATH, { project: "lab", node: "Switch1", port: "Ethernet1", schedule_out: { steps: [{ at: 0, filters: { delay: [5] } }, { at: 30, filters: { capacity_trace: ["lte.down"] } }] } });
      expect(scheduled.status, scheduled.text).to.equal(200);
      const refused = await s.request("DELETE", "/v2/netemu/traces/lte.down");
      expect(refused.status).to.equal(409);
      expect(refused.json.message).to.equal('Trace "lte.down" is in use (impairment on Switch1 Ethernet1): take it out of those filters first');
      expect((await s.raw("PUT", "/v2/netemu/traces/lte.down", "5\n")).status).to.equal(409);
      expect((await s.request("DELETE", PATH)).status).to.equal(200);
      expect((await s.request("DELETE", "/v2/netemu/traces/lte.down")).status).to.equal(204);
    });

    // The trace link is tail drop only (ADR 0103, 2026-11-26): a discipline beside it would be ignored, so it is refused at every door.
    const QUEUE_ON_TRACE = (discipline: string): string =>
      `Filter queue_discipline ${discipline} and capacity_trace cannot be set together: a capacity trace's link is tail drop only, so ${discipline} would not run; drop queue_discipline, or use bandwidth instead of capacity_trace`;

    it("refuses codel or fq_codel beside capacity_trace with a 400 naming both, in one filters object or where a NIO's directions meet", async () => {
      expect((await s.raw("PUT", "/v2/netemu/traces/lte.down", "1\n2\n")).status).to.equal(201);
      const nio = `/v2/compute/projects/${PROJECT}/ethernet_switch/nodes/${SWITCH}/adapters/0/ports/2/nio`;
      const lport = (await s.request("POST", `/v2/compute/projects/${PROJECT}/ports/udp`)).json.udp_port as number;
      const together = await s.request("POST", nio, { type: "nio_udp", lport, rhost: "127.0.0.1", rport: 9, filters: { capacity_trace: ["lte.down"], queue_discipline: ["codel"] } });
      expect(together.status).to.equal(400);
      expect(together.json.message).to.equal(QUEUE_ON_TRACE("codel"));
      const apart = await s.request("POST", nio, { type: "nio_udp", lport, rhost: "127.0.0.1", rport: 9, filters: { capacity_trace: ["lte.down"] }, filters_out: { queue_discipline: ["fq_codel"] } });
      expect(apart.status).to.equal(400);
      expect(apart.json.message).to.equal(`filters_out: ${QUEUE_ON_TRACE("fq_codel")}`);
      // Two rates meet there the same way: the trace would be ignored beside bandwidth.
      const rates = await s.request("POST", nio, { type: "nio_udp", lport, rhost: "127.0.0.1", rport: 9, filters: { bandwidth: [1000] }, filters_in: { capacity_trace: ["lte.down"] } });
      expect(rates.status).to.equal(400);
      expect(rates.json.message).to.equal("filters_in: Filter capacity_trace and bandwidth are two rates for one direction: set one of them");
      const overlay = await s.request("PUT", PATH, { project: "lab", node: "Switch1", port: "Ethernet1", filters_out: { queue_discipline: ["fq_codel"], capacity_trace: ["lte.down"] } });
      expect(overlay.status).to.equal(400);
      expect(overlay.json.message).to.equal(`filters_out: ${QUEUE_ON_TRACE("fq_codel")}`);
      const step = await s.request("PUT", PATH, { project: "lab", node: "Switch1", port: "Ethernet1", schedule_in: { steps: [{ at: 0, filters: { delay: [5] } }, { at: 30, filters: { capacity_trace: ["lte.down"], queue_discipline: ["codel"] } }] } });
      expect(step.status).to.equal(400);
      expect(step.json.message).to.equal(`schedule_in.steps[1].filters: ${QUEUE_ON_TRACE("codel")}`);
      expect((await s.request("GET", PATH)).json).to.deep.equal([]);
    });

    it("refuses an overlay's capacity_trace over a port whose GNS3 filters run codel, as the data plane's 400, and keeps the port as it was", async () => {
      expect((await s.raw("PUT", "/v2/netemu/traces/lte.down", "1\n2\n")).status).to.equal(201);
      const lport = (await s.request("POST", `/v2/compute/projects/${PROJECT}/ports/udp`)).json.udp_port as number;
      const nio = await s.request("POST", `/v2/compute/projects/${PROJECT}/ethernet_switch/nodes/${SWITCH}/adapters/0/ports/2/nio`, { type: "nio_udp", lport, rhost: "127.0.0.1", rport: 9, filters: { queue_discipline: ["codel"] } });
      expect(nio.status, nio.text).to.equal(201);
      const refused = await s.request("PUT", PATH, { project: "lab", node: "Switch1", port: "Ethernet2", filters_out: { capacity_trace: ["lte.down"] } });
      expect(refused.status, refused.text).to.equal(400);
      expect(refused.json.message).to.equal(QUEUE_ON_TRACE("codel"));
      expect((await s.request("GET", PATH)).json).to.deep.equal([]);
    });
  });

  it("answers where a port's traces stand in its statistics, in the answer's documented shape", () => {
    const reading = { framesIn: 1, bytesIn: 60, framesOut: 1, bytesOut: 60, drops: {}, queueDelay: { ingress: { sumMs: 0, frames: 0, maxMs: 0 }, egress: { sumMs: 0, frames: 0, maxMs: 0 } } };
    const presented = presentCounters({
      ...(reading as unknown as Parameters<typeof presentCounters>[0]),
      traces: { egress: { capacity: { name: "lte.down", positionMs: 12.5, waitingFrames: 3 }, loss: { name: "l", positionMs: 10, value: 0.5 } } },
    });
    expect(presented.traces).to.deep.equal({ out: { capacity: { trace: "lte.down", position_ms: 12.5, waiting_frames: 3 }, loss: { trace: "l", position_ms: 10, loss_percent: 0.5 } } });
    const decoded = PortStatisticsAnswer.decode({ port_number: 1, ...presented });
    expect(E.isRight(decoded), JSON.stringify(presented)).to.equal(true);
  });
});
