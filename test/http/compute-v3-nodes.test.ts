import { expect } from "chai";
import { randomUUID } from "node:crypto";
import { startTestServer, type TestServer } from "../support/http-harness.js";

/**
 * /v3/compute's projects, switches, hubs and NIOs where 3.0.6 differs from 2.2: unknown keys
 * ignored, 3.x's ethertype rule, 422 for what does not validate, `{"message"}` for the rest, and
 * nothing changed by a refusal. The v2 routes keep refusing unknown keys.
 */
describe("/v3/compute projects, switches, hubs and NIOs", () => {
  let s: TestServer;
  let P: string;
  let SW: string;
  const v3 = (method: string, path: string, body?: unknown) => s.request(method, `/v3/compute${path}`, body);

  beforeEach(async () => {
    s = await startTestServer({ settings: { v3: { gns3Version: "3.0.6", noAuth: true } } });
    P = randomUUID();
    SW = randomUUID();
    expect((await v3("POST", "/projects", { name: "p", project_id: P })).status).to.equal(201);
    expect((await v3("POST", `/projects/${P}/ethernet_switch/nodes`, { builtin: true, name: "SW1", node_id: SW })).status).to.equal(201);
  });
  afterEach(async () => s.close());

  const SWITCH = () => `/projects/${P}/ethernet_switch/nodes/${SW}`;

  it("ignores keys it does not know on /v3 while /v2 still refuses them as GNS3 2.2 does", async () => {
    const r = await v3("POST", `/projects/${P}/ethernet_hub/nodes`, { builtin: true, name: "Hub1", symbol: ":/x.svg", template_id: "t" });
    expect(r.status).to.equal(201);
    const v2 = await s.request("POST", `/v2/compute/projects/${P}/ethernet_hub/nodes`, { builtin: true, name: "Hub2" });
    expect(v2.status).to.equal(400);
    expect(v2.json.message).to.include("Additional properties are not allowed ('builtin' was unexpected)");
  });

  it("fills 3.x's default ethertype and takes another one on a qinq port", async () => {
    const r = await v3("PUT", SWITCH(), { ports_mapping: [{ name: "e0", port_number: 0, type: "access", vlan: 10 }, { name: "e1", port_number: 1, type: "qinq", vlan: 20, ethertype: "0x88A8" }] });
    expect(r.status, r.text).to.equal(200);
    expect(r.json.ports_mapping).to.deep.equal([
      { name: "Ethernet0", port_number: 0, type: "access", vlan: 10, ethertype: "0x8100" },
      { name: "Ethernet1", port_number: 1, type: "qinq", vlan: 20, ethertype: "0x88A8" },
    ]);
  });

  it("answers a switch created without ports_mapping with 3.x's default ethertype on every port", async () => {
    const r = await v3("GET", SWITCH());
    expect(r.json.ports_mapping).to.have.length(8);
    for (const port of r.json.ports_mapping) expect(port.ethertype).to.equal("0x8100");
  });

  it("refuses 2.2's empty ethertype with a 422, changing nothing", async () => {
    const before = (await v3("GET", SWITCH())).json;
    const r = await v3("PUT", SWITCH(), { ports_mapping: [{ name: "e0", port_number: 0, type: "qinq", vlan: 1, ethertype: "" }] });
    expect(r.status).to.equal(422);
    expect(r.json.detail[0].loc).to.deep.equal(["body", "ports_mapping", 0, "ethertype"]);
    expect((await v3("GET", SWITCH())).json).to.deep.equal(before);
  });

  it("answers a path id that is not a UUID with FastAPI's 422 naming the parameter", async () => {
    const r = await v3("GET", "/projects/not-a-uuid");
    expect(r.status).to.equal(422);
    expect(r.json.detail[0]).to.include({ type: "uuid_parsing", input: "not-a-uuid" });
    expect(r.json.detail[0].loc).to.deep.equal(["path", "project_id"]);
  });

  it("answers a body that is not JSON with a 422 json_invalid, creating nothing", async () => {
    const r = await s.raw("POST", "/v3/compute/projects", "{not json");
    expect(r.status).to.equal(422);
    expect(r.json.detail[0].type).to.equal("json_invalid");
    expect((await v3("GET", "/projects")).json).to.have.length(1);
  });

  it("answers a missing resource with 3.x's message alone, no status key", async () => {
    const r = await v3("GET", `/projects/${randomUUID()}`);
    expect(r.status).to.equal(404);
    expect(Object.keys(r.json)).to.deep.equal(["message"]);
  });

  it("takes adapter 0 only on NIO and capture routes, with a 422 for any other", async () => {
    for (const [method, path, body] of [
      ["POST", "nio", { type: "nio_udp", lport: 20001, rhost: "127.0.0.1", rport: 9 }],
      ["DELETE", "nio", undefined],
      ["POST", "capture/start", { capture_file_name: "x.pcap", data_link_type: "DLT_EN10MB" }],
      ["POST", "capture/stop", undefined],
      ["GET", "capture/stream", undefined],
    ] as const) {
      const r = await v3(method, `${SWITCH()}/adapters/1/ports/0/${path}`, body);
      expect(r.status, `${method} ${path}`).to.equal(422);
      expect(r.json.detail[0].loc).to.deep.equal(["path", "adapter_number"]);
    }
  });

  it("takes UDP NIOs only, with 3.0.6's integer suspend, and says which port is taken with the exception name", async () => {
    expect((await v3("POST", `${SWITCH()}/adapters/0/ports/0/nio`, { type: "nio_null" })).status).to.equal(422);
    const lport = (await v3("POST", `/projects/${P}/ports/udp`)).json.udp_port;
    const nio = { type: "nio_udp", lport, rhost: "127.0.0.1", rport: 9, suspend: 0, filters: {} };
    expect((await v3("POST", `${SWITCH()}/adapters/0/ports/0/nio`, nio)).status).to.equal(201);
    const again = await v3("POST", `${SWITCH()}/adapters/0/ports/0/nio`, nio);
    expect(again.status).to.equal(409);
    expect(again.json).to.have.keys("message", "exception");
  });

  it("has no reload on a hub, as 3.0.6 has none", async () => {
    const HUB = randomUUID();
    await v3("POST", `/projects/${P}/ethernet_hub/nodes`, { name: "Hub1", node_id: HUB });
    const r = await v3("POST", `/projects/${P}/ethernet_hub/nodes/${HUB}/reload`);
    expect(r.status).to.equal(404);
    expect(r.json).to.deep.equal({ message: "404: Not Found" });
  });

  it("refuses a file path outside the project with a 403 message, writing nothing", async () => {
    const r = await s.raw("POST", `/v3/compute/projects/${P}/files/..%2F..%2Fescape.txt`, "x");
    expect(r.status).to.be.oneOf([403, 404]);
    expect(r.json).to.have.key("message");
    expect((await v3("GET", `/projects/${P}/files`)).json).to.deep.equal([]);
  });

  it("answers a capture stream on a port without a NIO with a 409 naming the port, in 3.x's shape", async () => {
    const r = await v3("GET", `${SWITCH()}/adapters/0/ports/0/capture/stream`);
    expect(r.status).to.equal(409);
    expect(r.json).to.deep.equal({ exception: "NodeError", message: "Port 0 is not allocated" });
  });

  describe("VPCS (ADR 0088), where 3.0.6 refuses", () => {
    let PC: string;
    const VPCS = () => `/projects/${P}/vpcs/nodes/${PC}`;

    beforeEach(async () => {
      const r = await v3("POST", `/projects/${P}/vpcs/nodes`, { name: "PC1", usage: "", builtin: true, startup_script: null });
      expect(r.status, r.text).to.equal(201);
      PC = r.json.node_id;
    });

    it("answers a VPCS in 3.0.6's shape: 2.2's keys, usage and the model's startup_script", async () => {
      const r = await v3("GET", VPCS());
      expect(Object.keys(r.json).sort()).to.deep.equal(["command_line", "console", "console_type", "name", "node_directory", "node_id", "project_id", "startup_script", "status", "usage"]);
      expect(r.json).to.include({ name: "PC1", usage: "", startup_script: null, status: "stopped", console_type: "telnet" });
    });

    it("refuses a console type 3.0.6 does not know and a console port out of range with a 422, making nothing", async () => {
      for (const body of [{ name: "PC2", console_type: "vnc" }, { name: "PC2", console: 0 }, { console_type: "telnet" }]) {
        const r = await v3("POST", `/projects/${P}/vpcs/nodes`, body);
        expect(r.status, JSON.stringify(body)).to.equal(422);
        expect(r.json).to.have.key("detail");
      }
      expect((await s.request("GET", `/v2/compute/projects/${P}/vpcs/nodes/${PC}`)).status).to.equal(200);
    });

    it("takes adapter 0 only on its NIO and capture routes, NIO update included, with a 422 for any other", async () => {
      for (const [method, path, body] of [
        ["POST", "nio", { type: "nio_udp", lport: 20001, rhost: "127.0.0.1", rport: 9 }],
        ["PUT", "nio", { type: "nio_udp", lport: 20001, rhost: "127.0.0.1", rport: 9, filters: {} }],
        ["DELETE", "nio", undefined],
        ["POST", "capture/start", { capture_file_name: "x.pcap", data_link_type: "DLT_EN10MB" }],
      ] as const) {
        const r = await v3(method, `${VPCS()}/adapters/1/ports/0/${path}`, body);
        expect(r.status, `${method} ${path}`).to.equal(422);
        expect(r.json.detail[0].loc).to.deep.equal(["path", "adapter_number"]);
      }
    });

    it("resets the console of a VPCS that exists (204) and answers 3.x's 404 for one that does not", async () => {
      expect((await v3("POST", `${VPCS()}/console/reset`)).status).to.equal(204);
      const r = await v3("POST", `/projects/${P}/vpcs/nodes/${randomUUID()}/console/reset`);
      expect(r.status).to.equal(404);
      expect(Object.keys(r.json)).to.deep.equal(["message"]);
    });

    it("does not answer a switch on a VPCS route, nor a VPCS on a switch route", async () => {
      expect((await v3("GET", `/projects/${P}/vpcs/nodes/${SW}`)).status).to.equal(404);
      expect((await v3("GET", `/projects/${P}/ethernet_switch/nodes/${PC}`)).status).to.equal(404);
    });
  });
});
