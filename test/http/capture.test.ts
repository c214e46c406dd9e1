import { expect } from "chai";
import { startTestServer, type TestServer } from "../support/http-harness.js";
import { FakeDataPlane } from "../support/fake-data-plane.js";

const PROJECT = "44444444-3333-4444-8555-666666666666";

describe("HTTP: packet capture endpoints", () => {
  let s: TestServer;
  let dataPlane: FakeDataPlane;
  let port: string;
  let nodeId: string;

  beforeEach(async () => {
    dataPlane = new FakeDataPlane();
    s = await startTestServer({ overrides: { dataPlane } });
    await s.request("POST", "/v2/compute/projects", { name: "cap", project_id: PROJECT });
    nodeId = (await s.request("POST", `/v2/compute/projects/${PROJECT}/ethernet_switch/nodes`, { name: "SW1" })).json.node_id;
    port = `/v2/compute/projects/${PROJECT}/ethernet_switch/nodes/${nodeId}/adapters/0/ports/1`;
  });
  afterEach(async () => s.close());

  const capture = { capture_file_name: "one.pcap", data_link_type: "DLT_EN10MB" };

  it("starts a capture into the project's captures directory and answers 200 with its path", async () => {
    await s.request("POST", `${port}/nio`, { type: "nio_null" });
    const r = await s.request("POST", `${port}/start_capture`, capture);
    expect(r.status).to.equal(200);
    expect(r.json).to.deep.equal({ pcap_file_path: `${s.netemu.settings.projectsPath}/.netemu-compute/${PROJECT}/project-files/captures/one.pcap` });
    expect(dataPlane.isCapturing(nodeId, 1)).to.equal(true);
    const again = await s.request("POST", `${port}/start_capture`, capture);
    expect(again.json).to.deep.equal({ exception: "NodeError", message: "Port 1 has already a filter applied", status: 409 });
    expect((await s.request("POST", `${port}/stop_capture`)).status).to.equal(204);
    expect(dataPlane.isCapturing(nodeId, 1)).to.equal(false);
    expect((await s.request("POST", `${port}/stop_capture`)).status, "stopping twice is harmless").to.equal(204);
  });

  it("answers 409 Port N is not allocated on a port without NIO", async () => {
    for (const [method, path, body] of [["POST", "start_capture", capture], ["POST", "stop_capture", undefined], ["GET", "pcap", undefined]] as const) {
      const r = await s.request(method, `${port}/${path}`, body);
      expect(r.status, path).to.equal(409);
      expect(r.json.message).to.equal("Port 1 is not allocated");
    }
  });

  it("refuses a missing data_link_type with 400 (GNS3 answers 500)", async () => {
    await s.request("POST", `${port}/nio`, { type: "nio_null" });
    const r = await s.request("POST", `${port}/start_capture`, { capture_file_name: "x.pcap" });
    expect(r.status).to.equal(400);
    expect(r.json.message).to.include("'data_link_type' is a required property");
  });

  it("refuses file names that would leave the captures directory", async () => {
    await s.request("POST", `${port}/nio`, { type: "nio_null" });
    for (const name of ["../../etc/passwd", "a/b.pcap", "..", "x\u0000.pcap", "a\\b"]) {
      const r = await s.request("POST", `${port}/start_capture`, { capture_file_name: name, data_link_type: "DLT_EN10MB" });
      expect(r.status, name).to.equal(400);
      expect(r.json.message).to.include("capture_file_name must be a plain file name");
    }
    expect(dataPlane.captures.size).to.equal(0);
  });

  it("refuses link types other than Ethernet", async () => {
    await s.request("POST", `${port}/nio`, { type: "nio_null" });
    const r = await s.request("POST", `${port}/start_capture`, { capture_file_name: "x.pcap", data_link_type: "DLT_PPP_SERIAL" });
    expect(r.status).to.equal(400);
  });

  it("answers 409 for a pcap stream when nothing is captured", async () => {
    await s.request("POST", `${port}/nio`, { type: "nio_null" });
    const r = await s.request("GET", `${port}/pcap`);
    expect(r.json).to.deep.equal({ message: "Nothing to stream because there is no packet capture active", status: 409 });
  });

  it("captures on a link's first end, with GNS3's default file name, and stops", async () => {
    const projectId = (await s.request("POST", "/v2/projects", { name: "links" })).json.project_id;
    const a = (await s.request("POST", `/v2/projects/${projectId}/nodes`, { name: "Hello@", node_type: "ethernet_switch", compute_id: "local" })).json.node_id;
    const b = (await s.request("POST", `/v2/projects/${projectId}/nodes`, { name: "w0.rld", node_type: "ethernet_switch", compute_id: "local" })).json.node_id;
    const link = (await s.request("POST", `/v2/projects/${projectId}/links`, {
      nodes: [{ node_id: a, adapter_number: 0, port_number: 4 }, { node_id: b, adapter_number: 0, port_number: 3 }],
    })).json;
    const path = `/v2/projects/${projectId}/links/${link.link_id}`;
    expect((await s.request("GET", `${path}/pcap`)).json).to.deep.equal({ message: "This link has no active packet capture", status: 409 });
    const started = await s.request("POST", `${path}/start_capture`, {});
    expect(started.status).to.equal(201);
    expect(started.json).to.deep.include({ capturing: true, capture_file_name: "Hello_0-4_to_w0rld_0-3.pcap", capture_compute_id: "local" });
    expect(dataPlane.isCapturing(a, 4)).to.equal(true);
    const stopped = await s.request("POST", `${path}/stop_capture`, {});
    expect(stopped.status).to.equal(201);
    expect(stopped.json.capturing).to.equal(false);
    expect(dataPlane.isCapturing(a, 4)).to.equal(false);
  });
});
