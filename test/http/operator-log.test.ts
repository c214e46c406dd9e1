import { expect } from "chai";
import { startTestServer, type TestServer } from "../support/http-harness.js";
import { RecordingLogger } from "../support/in-memory-data-plane.js";

const PROJECT = "5d2c2f0b-2222-4333-8444-555566667777";

describe("the operator's log", () => {
  let s: TestServer;
  let logger: RecordingLogger;
  let node: string;
  let port: string;

  beforeEach(async () => {
    logger = new RecordingLogger();
    s = await startTestServer({ overrides: { logger } });
    await s.request("POST", "/v2/compute/projects", { name: "log", project_id: PROJECT });
    node = (await s.request("POST", `/v2/compute/projects/${PROJECT}/ethernet_switch/nodes`, { name: "SW1" })).json.node_id;
    port = `/v2/compute/projects/${PROJECT}/ethernet_switch/nodes/${node}/adapters/0/ports/1`;
    logger.lines.length = 0;
  });
  afterEach(async () => s.close());

  const lines = (msg: string) => logger.lines.filter((l) => l.msg === msg);
  const requestLine = (url: string) => logger.lines.find((l) => l.msg === "request" && l.fields?.["url"] === url);

  describe("request lines", () => {
    it("log a refusal at warn with the message the client got", async () => {
      const missing = `/v2/compute/projects/${PROJECT}/ethernet_switch/nodes/aaaaaaaa-0000-4000-8000-000000000001`;
      const r = await s.request("GET", missing);
      expect(r.status).to.equal(404);
      expect(requestLine(missing)).to.deep.include({ level: "warn" });
      expect(requestLine(missing)?.fields).to.deep.include({ status: 404, route: "compute.ethernet_switch.get", message: r.json.message });
    });

    it("log a 409 at warn with its reason", async () => {
      await s.request("POST", `${port}/nio`, { type: "nio_null" });
      const r = await s.request("POST", `${port}/nio`, { type: "nio_null" });
      expect(r.status).to.equal(409);
      const line = logger.lines.filter((l) => l.msg === "request").at(-1);
      expect(line).to.deep.include({ level: "warn" });
      expect(line?.fields).to.deep.include({ status: 409, message: r.json.message });
    });

    it("log an unrouted path's 404 and a wrong method's 405 with their messages", async () => {
      await s.request("GET", "/v2/nowhere");
      await s.request("DELETE", "/v2/version");
      expect(requestLine("/v2/nowhere")?.fields).to.deep.include({ status: 404, message: "404: Not Found" });
      expect(requestLine("/v2/version")?.fields).to.deep.include({ status: 405, message: "405: Method Not Allowed" });
    });

    it("log a body refused by its schema without the body, which may hold a password", async () => {
      const r = await s.request("POST", "/v2/compute/projects", { name: "x", password: "hunter2" });
      expect(r.status).to.equal(400);
      expect(r.text, "the client still gets GNS3's message with its data").to.contain("hunter2");
      const line = requestLine("/v2/compute/projects");
      expect(line).to.deep.include({ level: "warn" });
      expect(line?.fields?.["message"]).to.equal("JSON schema error with API request '/v2/compute/projects': Additional properties are not allowed ('password' was unexpected)");
      expect(JSON.stringify(logger.lines)).not.to.contain("hunter2");
    });

    it("log a body that is not JSON without quoting it", async () => {
      const r = await s.raw("POST", "/v2/compute/projects", '{"password": "hunter2"');
      expect(r.status).to.equal(400);
      expect(requestLine("/v2/compute/projects")?.fields).to.deep.include({ status: 400, message: "Invalid JSON (the body is left out of the log)" });
      expect(JSON.stringify(logger.lines)).not.to.contain("hunter2");
    });

    it("log a successful read at debug and a change at info", async () => {
      await s.request("GET", "/v2/version");
      await s.request("POST", `${port}/nio`, { type: "nio_null" });
      expect(requestLine("/v2/version")).to.deep.include({ level: "debug" });
      expect(requestLine(`${port}/nio`)).to.deep.include({ level: "info" });
    });
  });

  it("says nothing of the credentials a refused client sent", async () => {
    const guarded = await startTestServer({ overrides: { logger }, settings: { auth: { enabled: true, user: "admin", password: "s3cret" } } });
    try {
      const r = await guarded.request("GET", "/v2/version", undefined, { Authorization: `Basic ${Buffer.from("admin:wrong-guess").toString("base64")}` });
      expect(r.status).to.equal(401);
      // The throttle's warn line names the address; the request line is at debug (ADR 0061).
      const line = requestLine("/v2/version");
      expect(line).to.deep.include({ level: "debug" });
      expect(line?.fields).to.deep.include({ status: 401, message: "Unauthorized", address: "127.0.0.1" });
      expect(lines("login failed")[0]).to.deep.include({ level: "warn" });
      expect(lines("login failed")[0]?.fields).to.deep.equal({ address: "127.0.0.1", failures: 1 });
      const all = JSON.stringify(logger.lines);
      expect(all).not.to.contain("wrong-guess");
      expect(all).not.to.contain(Buffer.from("admin:wrong-guess").toString("base64"));
    } finally {
      await guarded.close();
    }
  });

  it("logs a NIO added, its filters changed and removed, with its socket, peer and filters", async () => {
    const lport = s.netemu.settings.udpPortRange.start;
    await s.request("POST", `${port}/nio`, { type: "nio_udp", lport, rhost: "127.0.0.1", rport: 9, filters: { delay: [10, 2] } });
    await s.request("PUT", `${port}/nio`, { type: "nio_udp", lport, rhost: "127.0.0.1", rport: 9, filters: { packet_loss: [25] }, suspend: true });
    await s.request("DELETE", `${port}/nio`);
    const where = { projectId: PROJECT, nodeId: node, adapter: 0, port: 1, type: "nio_udp", lport, peer: "127.0.0.1:9" };
    expect(lines("NIO added")).to.have.length(1);
    expect(lines("NIO added")[0]).to.deep.include({ level: "info" });
    expect(lines("NIO added")[0]?.fields).to.deep.include({ ...where, filters: { delay: [10, 2] }, suspend: false });
    expect(lines("NIO filters changed")[0]?.fields).to.deep.include({ ...where, filters: { packet_loss: [25] }, suspend: true, before: { filters: { delay: [10, 2] }, suspend: false } });
    expect(lines("NIO removed")[0]?.fields).to.deep.include(where);
  });

  it("logs nothing of a NIO that was refused", async () => {
    await s.request("POST", `${port}/nio`, { type: "nio_udp", lport: 1, rhost: "127.0.0.1", rport: 9, filters: { packet_loss: [101] } });
    expect(lines("NIO added")).to.deep.equal([]);
  });

  it("logs a capture's start and stop with its file, and not a stop when none ran", async () => {
    await s.request("POST", `${port}/nio`, { type: "nio_null" });
    await s.request("POST", `${port}/stop_capture`);
    expect(lines("capture stopped")).to.deep.equal([]);
    const started = await s.request("POST", `${port}/start_capture`, { capture_file_name: "log.pcap", data_link_type: "DLT_EN10MB" });
    await s.request("POST", `${port}/stop_capture`);
    const file = started.json.pcap_file_path as string;
    expect(file).to.match(/log\.pcap$/);
    expect(lines("capture started").map((l) => l.fields)).to.deep.equal([{ projectId: PROJECT, nodeId: node, adapter: 0, port: 1, file }]);
    expect(lines("capture stopped").map((l) => l.fields)).to.deep.equal([{ projectId: PROJECT, nodeId: node, adapter: 0, port: 1, file }]);
  });

  it("logs a node's status changes, and not a start of a node already started", async () => {
    const nodeUrl = `/v2/compute/projects/${PROJECT}/ethernet_switch/nodes/${node}`;
    await s.request("POST", `${nodeUrl}/stop`);
    await s.request("POST", `${nodeUrl}/start`);
    await s.request("POST", `${nodeUrl}/start`);
    expect(lines("node status changed").map((l) => l.fields)).to.deep.equal([
      { projectId: PROJECT, nodeId: node, name: "SW1", from: "started", to: "stopped" },
      { projectId: PROJECT, nodeId: node, name: "SW1", from: "stopped", to: "started" },
    ]);
  });

  it("logs each step of a shutdown, in order", async () => {
    await s.netemu.shutdown();
    const steps = logger.lines.filter((l) => l.msg === "shutting down" || l.msg.startsWith("shutdown: ") || l.msg === "stopped");
    expect(steps.map((l) => [l.level, l.msg, l.fields?.["count"]])).to.deep.equal([
      ["info", "shutting down", undefined],
      ["info", "shutdown: notification websockets closed", undefined],
      ["info", "shutdown: closing controller projects", 0],
      ["info", "shutdown: closing compute projects", 1],
      ["info", "shutdown: data plane closed", undefined],
      ["info", "stopped", undefined],
    ]);
  });
});
