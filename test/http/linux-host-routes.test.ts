import { expect } from "chai";
import { randomUUID } from "node:crypto";
import { startTestServer, type TestServer } from "../support/http-harness.js";
import { FakeHostProcesses } from "../support/fake-host-processes.js";

/**
 * netemu's Linux host routes (ADR 0087) where nothing needs root: what a stopped host answers, and every
 * refusal a request can meet before a namespace is made (the e2e tests start hosts for real, as root).
 */
describe("HTTP: netemu's Linux host nodes, stopped, and the refusals of their routes", () => {
  let s: TestServer;
  let projectId: string;
  const base = () => `/v2/compute/projects/${projectId}/netemu_host/nodes`;

  beforeEach(async () => {
    s = await startTestServer({ overrides: { hostProcesses: new FakeHostProcesses() } });
    projectId = randomUUID();
    await s.request("POST", "/v2/compute/projects", { name: "p", project_id: projectId });
  });
  afterEach(async () => s.close());

  it("makes a host stopped, one port per interface named as it, and changes its interfaces and gateway while stopped", async () => {
    const made = await s.request("POST", base(), { name: "h1", interfaces: [{ name: "eth0", address: "10.0.0.1/24" }, { name: "eth1", mac: "02:00:00:00:00:09" }], gateway: "10.0.0.254" });
    expect(made.status, made.text).to.equal(201);
    expect(made.json).to.deep.include({
      name: "h1",
      status: "stopped",
      ports_mapping: [{ name: "eth0", port_number: 0 }, { name: "eth1", port_number: 1 }],
      interfaces: [{ name: "eth0", address: "10.0.0.1/24" }, { name: "eth1", mac: "02:00:00:00:00:09" }],
      gateway: "10.0.0.254",
    });
    const changed = await s.request("PUT", `${base()}/${made.json.node_id}`, { interfaces: [{ name: "lan" }], gateway: null });
    expect(changed.status, changed.text).to.equal(200);
    expect(changed.json).to.deep.include({ ports_mapping: [{ name: "lan", port_number: 0 }], interfaces: [{ name: "lan" }], gateway: null });
  });

  it("refuses interfaces and gateways that cannot be, with a 400 naming the field", async () => {
    const cases: [Record<string, unknown>, string][] = [
      [{ name: "h", interfaces: [{ name: "eth0", address: "10.0.0.1" }] }, "interfaces[0].address: '10.0.0.1' is not an IPv4 or IPv6 address with its prefix length (10.0.0.1/24, fd00::1/64)"],
      [{ name: "h", interfaces: [{ name: "e 0" }] }, "interfaces[0].name: 'e 0' is not a network interface name (no '/', ':' or white space, not '.' or '..')"],
      [{ name: "h", interfaces: [{ name: "eth0" }, { name: "eth0" }] }, "interfaces[1].name: 'eth0' is already given by interfaces[0].name"],
      [{ name: "h", gateway: "gw" }, "gateway: 'gw' is not an IPv4 or IPv6 address"],
      [{ name: "h", interfaces: [{ name: "eth0", mac: "ff:ff:ff:ff:ff:ff" }] }, "interfaces[0].mac: 'ff:ff:ff:ff:ff:ff' is not a unicast MAC address (02:00:00:00:00:01)"],
    ];
    for (const [body, message] of cases) {
      const r = await s.request("POST", base(), body);
      expect([r.status, r.json.message], JSON.stringify(body)).to.deep.equal([400, message]);
    }
    expect((await s.request("GET", `/v2/compute/projects/${projectId}`)).status).to.equal(200);
  });

  it("refuses exec in a stopped host, and bodies out of exec's bounds", async () => {
    const made = (await s.request("POST", base(), { name: "h1" })).json;
    const exec = (body: unknown) => s.request("POST", `${base()}/${made.node_id}/exec`, body);
    const stopped = await exec({ argv: ["true"] });
    expect([stopped.status, stopped.json.message]).to.deep.equal([409, "Linux host h1 is not started: start it first"]);
    expect((await exec({ argv: [] })).json).to.deep.include({ status: 400, message: "argv: an array should be non-empty" });
    expect((await exec({ argv: ["true"], timeout: 601 })).status).to.equal(400);
    expect((await exec({ argv: ["true"], max_output_bytes: 0 })).status).to.equal(400);
    expect((await exec({ argv: "true" })).status).to.equal(400);
  });

  it("answers exec on the controller for Linux hosts only, saying where a VPCS takes commands", async () => {
    const project = (await s.request("POST", "/v2/projects", { name: "exec" })).json.project_id as string;
    const pc = (await s.request("POST", `/v2/projects/${project}/nodes`, { name: "PC1", node_type: "vpcs", compute_id: "local" })).json.node_id as string;
    const sw = (await s.request("POST", `/v2/projects/${project}/nodes`, { name: "SW1", node_type: "ethernet_switch", compute_id: "local" })).json.node_id as string;
    const host = await s.request("POST", `/v2/projects/${project}/nodes`, { name: "H1", node_type: "netemu_host", compute_id: "local", properties: { interfaces: [{ name: "eth0", address: "10.0.0.1/24" }] } });
    expect(host.status, host.text).to.equal(201);
    expect(host.json.properties).to.deep.equal({ ports_mapping: [{ name: "eth0", port_number: 0 }], interfaces: [{ name: "eth0", address: "10.0.0.1/24" }], gateway: null });
    const exec = (node: string) => s.request("POST", `/v2/projects/${project}/nodes/${node}/netemu/exec`, { argv: ["true"] });
    expect((await exec(pc)).json).to.deep.equal({ status: 409, message: "PC1 is a node of type vpcs: commands run inside Linux hosts (netemu_host) only (a VPCS takes commands on its console: netemu lab exec types them there)" });
    expect((await exec(sw)).json).to.deep.equal({ status: 409, message: "SW1 is a node of type ethernet_switch: commands run inside Linux hosts (netemu_host) only" });
    expect((await exec(host.json.node_id)).json).to.deep.equal({ status: 409, message: "Linux host H1 is not started: start it first" });
    const bad = await s.request("PUT", `/v2/projects/${project}/nodes/${host.json.node_id}`, { properties: { gateway: "nowhere" } });
    expect([bad.status, bad.json.message]).to.deep.equal([400, "gateway: 'nowhere' is not an IPv4 or IPv6 address"]);
  });
});
