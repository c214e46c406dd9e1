import { expect } from "chai";
import { createServer } from "node:http";
import type { AddressInfo } from "node:net";
import { createHttpApp } from "../../src/adapters/http/app.js";
import { InMemoryComputeNodeRepository } from "../../src/adapters/persistence/in-memory-repositories.js";
import { startTestServer, type TestServer } from "../support/http-harness.js";
import { RecordingLogger } from "../support/in-memory-data-plane.js";
import { parseExposition, type Exposition } from "../support/prometheus-text.js";

const PROJECT = "4c1b1e9a-1111-4222-8333-777788889999";
const SWITCHES = `/v2/compute/projects/${PROJECT}/ethernet_switch/nodes`;
const HUBS = `/v2/compute/projects/${PROJECT}/ethernet_hub/nodes`;

async function scrape(s: TestServer, headers: Record<string, string> = {}): Promise<Exposition> {
  const r = await s.request("GET", "/metrics", undefined, headers);
  expect(r.status, r.text).to.equal(200);
  return parseExposition(r.text);
}

describe("GET /metrics", () => {
  let s: TestServer;
  afterEach(async () => s?.close());

  it("tells which datagram path the UDP NIOs run on, as one series at 1 (ADR 0068)", async () => {
    s = await startTestServer();
    const m = await scrape(s);
    expect(m.types.get("netemu_datagram_path_info")).to.equal("gauge");
    expect(m.all("netemu_datagram_path_info").map((x) => [x.labels.path, x.value])).to.deep.equal([[s.netemu.datagramPath.kind, 1]]);
    expect(["batched", "dgram"]).to.include(s.netemu.datagramPath.kind);
  });

  it("answers the Prometheus text format 0.0.4, every family typed, with the process's and the event loop's figures", async () => {
    s = await startTestServer();
    const r = await s.request("GET", "/metrics");
    expect(r.status).to.equal(200);
    expect(r.headers.get("content-type")).to.equal("text/plain; version=0.0.4; charset=utf-8");
    expect(r.headers.get("x-route")).to.equal("/metrics");
    const m = parseExposition(r.text);
    expect(m.types.get("netemu_port_receive_frames_total")).to.equal("counter");
    expect(m.types.get("netemu_port_dropped_frames_total")).to.equal("counter");
    expect(m.types.get("netemu_mac_table_entries")).to.equal("gauge");
    expect(m.types.get("netemu_http_request_duration_seconds")).to.equal("histogram");
    expect(m.value("nodejs_eventloop_lag_p99_seconds")).to.be.at.least(0);
    expect(m.value("process_cpu_user_seconds_total")).to.be.above(0);
    expect(m.value("process_start_time_seconds")).to.be.above(0);
  });

  it("counts answered requests by route name and status, requests no route answered under route none", async () => {
    s = await startTestServer();
    await s.request("GET", "/v2/version");
    await s.request("GET", "/v2/version");
    await s.request("GET", `${SWITCHES}/aaaaaaaa-0000-4000-8000-000000000001`);
    await s.request("GET", "/v2/nowhere");
    await s.request("DELETE", "/v2/version");
    const m = await scrape(s);
    expect(m.value("netemu_http_requests_total", { route: "server.version", status: "200" })).to.equal(2);
    expect(m.value("netemu_http_requests_total", { route: "compute.ethernet_switch.get", status: "404" })).to.equal(1);
    expect(m.value("netemu_http_requests_total", { route: "none", status: "404" })).to.equal(1);
    expect(m.value("netemu_http_requests_total", { route: "none", status: "405" })).to.equal(1);
    expect(m.value("netemu_http_request_duration_seconds_count", { route: "server.version" })).to.equal(2);
    expect(m.value("netemu_http_request_duration_seconds_bucket", { route: "server.version", le: "+Inf" })).to.equal(2);
    expect(m.all("netemu_http_requests_total").every((x) => !x.labels.route?.includes("/")), "no raw URL as a label").to.equal(true);

    const next = await scrape(s);
    expect(next.value("netemu_http_requests_total", { route: "server.metrics", status: "200" }), "the scrape before counts too").to.equal(1);
  });

  it("counts the compute's switches and hubs by type and status, its NIOs by type, and the projects", async () => {
    s = await startTestServer();
    await s.request("POST", "/v2/compute/projects", { name: "counted", project_id: PROJECT });
    const sw = (await s.request("POST", SWITCHES, { name: "SW1" })).json;
    await s.request("POST", SWITCHES, { name: "SW2" });
    const hub = (await s.request("POST", HUBS, { name: "HUB1" })).json;
    await s.request("POST", `${HUBS}/${hub.node_id}/stop`);
    expect((await s.request("POST", `${SWITCHES}/${sw.node_id}/adapters/0/ports/3/nio`, { type: "nio_null" })).status).to.equal(201);
    await s.request("POST", "/v2/projects", { name: "controller side" });

    const m = await scrape(s);
    expect(m.value("netemu_nodes", { node_type: "ethernet_switch", status: "started" })).to.equal(2);
    expect(m.value("netemu_nodes", { node_type: "ethernet_hub", status: "stopped" })).to.equal(1);
    expect(m.value("netemu_nodes", { node_type: "ethernet_hub", status: "started" })).to.equal(0);
    expect(m.value("netemu_nios", { type: "nio_null" })).to.equal(1);
    expect(m.value("netemu_nios", { type: "nio_udp" })).to.equal(0);
    expect(m.value("netemu_compute_projects")).to.equal(1);
    expect(m.value("netemu_controller_projects", { status: "opened" })).to.equal(1);
    expect(m.value("netemu_links")).to.equal(0);
    expect(m.value("netemu_unanswered_nodes")).to.equal(0);
    expect(m.value("netemu_mac_table_entries", { node_id: sw.node_id, node_name: "SW1", project_id: PROJECT })).to.equal(0);
    expect(m.all("netemu_mac_table_entries", { node_id: hub.node_id }), "a hub has no MAC table").to.deep.equal([]);
    expect(m.all("netemu_port_receive_frames_total", { node_id: sw.node_id, port_number: "3" }).map((x) => x.value)).to.deep.equal([0]);

    await s.request("DELETE", `${SWITCHES}/${sw.node_id}`);
    const after = await scrape(s);
    expect(after.all("netemu_port_receive_frames_total", { node_id: sw.node_id }), "a deleted switch's series are gone").to.deep.equal([]);
    expect(after.value("netemu_nodes", { node_type: "ethernet_switch", status: "started" })).to.equal(1);
  });

  it("labels each port's series with the project, node and port names users know, beside the ids and numbers", async () => {
    s = await startTestServer();
    await s.request("POST", "/v2/compute/projects", { name: "wan-lab", project_id: PROJECT });
    const sw = (await s.request("POST", SWITCHES, { name: "Core", ports_mapping: [{ name: "uplink", port_number: 7, type: "access", vlan: 1 }] })).json;
    expect((await s.request("POST", `${SWITCHES}/${sw.node_id}/adapters/0/ports/7/nio`, { type: "nio_null" })).status).to.equal(201);
    const m = await scrape(s);
    const port = { project_id: PROJECT, project_name: "wan-lab", node_id: sw.node_id, node_name: "Core", port_number: "7", port_name: "uplink" };
    for (const name of ["netemu_port_receive_frames_total", "netemu_port_receive_bytes_total", "netemu_port_transmit_frames_total", "netemu_port_transmit_bytes_total"]) {
      expect(m.all(name, { node_id: sw.node_id }).map((x) => x.labels), name).to.deep.equal([port]);
    }
    expect(m.all("netemu_mac_table_entries", { node_id: sw.node_id }).map((x) => x.labels)).to.deep.equal([{ project_id: PROJECT, project_name: "wan-lab", node_id: sw.node_id, node_name: "Core" }]);
  });

  it("carries any node name as a label value, quotes, backslashes and newlines escaped", async () => {
    s = await startTestServer();
    await s.request("POST", "/v2/compute/projects", { name: "names", project_id: PROJECT });
    const name = 'lab "A" \\ b\nc é';
    const sw = (await s.request("POST", SWITCHES, { name })).json;
    expect(sw.name).to.equal(name);
    expect((await scrape(s)).value("netemu_mac_table_entries", { node_id: sw.node_id, node_name: name })).to.equal(0);
  });

  it("keeps each netemu instance's figures apart", async () => {
    s = await startTestServer();
    const other = await startTestServer();
    try {
      await other.request("GET", "/v2/version");
      await other.request("POST", "/v2/compute/projects", { name: "other", project_id: PROJECT });
      const m = await scrape(s);
      expect(m.all("netemu_http_requests_total", { route: "server.version" })).to.deep.equal([]);
      expect(m.value("netemu_compute_projects")).to.equal(0);
      expect((await scrape(other)).value("netemu_compute_projects")).to.equal(1);
    } finally {
      await other.close();
    }
  });

  it("sits behind --auth like every route: 401 without the credentials, counted under route none", async () => {
    s = await startTestServer({ settings: { auth: { enabled: true, user: "prom", password: "scrape" } } });
    const refused = await s.request("GET", "/metrics");
    expect(refused.status).to.equal(401);
    expect(refused.text).to.equal("");
    expect(refused.headers.get("www-authenticate")).to.equal('Basic realm="GNS3 server"');
    const wrong = await s.request("GET", "/metrics", undefined, { Authorization: `Basic ${Buffer.from("prom:guess").toString("base64")}` });
    expect(wrong.status).to.equal(401);
    const m = await scrape(s, { Authorization: `Basic ${Buffer.from("prom:scrape").toString("base64")}` });
    expect(m.value("netemu_http_requests_total", { route: "none", status: "401" })).to.equal(2);
  });

  it("is not served by an app a host builds without metrics", async () => {
    s = await startTestServer();
    const app = createHttpApp({ useCases: s.netemu.useCases, settings: s.netemu.settings, logger: new RecordingLogger(), packageVersion: "0.0.0" });
    const server = createServer(app.callback());
    await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
    try {
      const r = await fetch(`http://127.0.0.1:${(server.address() as AddressInfo).port}/metrics`);
      expect(r.status).to.equal(404);
      expect(await r.json()).to.deep.equal({ message: "404: Not Found", status: 404 });
    } finally {
      await new Promise((resolve) => server.close(resolve));
    }
  });

  it("answers a scrape whose figures cannot be read with the logged JSON 500, and the next scrape reads them again", async () => {
    let failing = true;
    const nodes = new InMemoryComputeNodeRepository();
    const list = nodes.list.bind(nodes);
    nodes.list = async () => {
      if (failing) throw new Error("store unreachable");
      return list();
    };
    const logger = new RecordingLogger();
    s = await startTestServer({ overrides: { logger, computeNodeRepository: nodes } });
    const r = await s.request("GET", "/metrics");
    expect(r.status).to.equal(500);
    expect(r.json).to.deep.equal({ message: "Internal server error: the failure was logged", status: 500 });
    expect(logger.lines.some((l) => l.msg === "request failed" && String(l.fields?.err).includes("store unreachable"))).to.equal(true);
    failing = false;
    expect((await scrape(s)).value("netemu_http_requests_total", { route: "server.metrics", status: "500" })).to.equal(1);
  });
});
