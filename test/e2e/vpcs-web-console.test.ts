import { expect } from "chai";
import { existsSync } from "node:fs";
import { randomUUID } from "node:crypto";
import { startTestServer, type TestServer } from "../support/http-harness.js";
import { GNS3_PEER_VPCS } from "../support/vpcs-console.js";
import { WebConsole, connectionsTo, until } from "../support/web-console.js";

describe("end to end: a node's web console is its telnet console over GNS3's console/ws websocket (real VPCS)", function () {
  this.timeout(60_000);
  let s: TestServer;
  const consoles: WebConsole[] = [];

  before(function () {
    if (!existsSync(GNS3_PEER_VPCS)) this.skip();
  });

  beforeEach(async () => {
    s = await startTestServer({ settings: { vpcsPath: GNS3_PEER_VPCS } });
  });

  afterEach(async () => {
    for (const c of consoles.splice(0)) c.ws.terminate();
    await s?.close();
  });

  const wsUrl = (path: string): string => s.url.replace(/^http/, "ws") + path;

  async function computeVpcs(start: boolean): Promise<{ base: string; nodeId: string; console: number }> {
    const projectId = randomUUID();
    expect((await s.request("POST", "/v2/compute/projects", { name: "web-console", project_id: projectId })).status).to.equal(201);
    const base = `/v2/compute/projects/${projectId}`;
    const pc = (await s.request("POST", `${base}/vpcs/nodes`, { name: "PC1", startup_script: "ip 10.0.0.9/24\n" })).json;
    if (start) expect((await s.request("POST", `${base}/vpcs/nodes/${pc.node_id}/start`, {})).status).to.equal(204);
    return { base, nodeId: pc.node_id, console: pc.console };
  }

  async function refusal(path: string, headers: Record<string, string> = {}): Promise<{ status: number; body: string }> {
    try {
      consoles.push(await WebConsole.open(wsUrl(path), headers));
    } catch (e) {
      return e as { status: number; body: string };
    }
    throw new Error(`${path} was not refused`);
  }

  it("relays a started VPCS's console on the compute's path: `show ip` typed as text answers in binary frames", async () => {
    const pc = await computeVpcs(true);
    const c = await WebConsole.open(wsUrl(`${pc.base}/vpcs/nodes/${pc.nodeId}/console/ws`));
    consoles.push(c);
    const answer = await c.type("show ip", /IP\/MASK\s*:\s*10\.0\.0\.9\/24/);
    expect(answer).to.match(/NAME\s*:\s*VPCS/);
    expect(c.binary.every((b) => b)).to.equal(true);
  });

  it("relays the controller's node console directly: a ping typed in PC1's web console is answered by PC2 across a link", async () => {
    const projectId = (await s.request("POST", "/v2/projects", { name: "web-console" })).json.project_id as string;
    const p = `/v2/projects/${projectId}`;
    const ids: string[] = [];
    for (const i of [1, 2]) {
      const made = await s.request("POST", `${p}/nodes`, { name: `PC${i}`, node_type: "vpcs", compute_id: "local", properties: { startup_script: `ip 10.0.0.${i}/24\n` } });
      expect(made.status, made.text).to.equal(201);
      ids.push(made.json.node_id);
    }
    const link = await s.request("POST", `${p}/links`, { nodes: ids.map((node_id) => ({ node_id, adapter_number: 0, port_number: 0 })) });
    expect(link.status, link.text).to.equal(201);
    expect((await s.request("POST", `${p}/nodes/start`, {})).status).to.equal(204);
    const c = await WebConsole.open(wsUrl(`${p}/nodes/${ids[0]}/console/ws`));
    consoles.push(c);
    await c.type("ping 10.0.0.2 -c 3", /84 bytes from 10\.0\.0\.2/);
  });

  it("refuses a stopped VPCS with GNS3's 409 before any upgrade, on the compute's path and the controller's", async () => {
    const pc = await computeVpcs(false);
    const r = await refusal(`${pc.base}/vpcs/nodes/${pc.nodeId}/console/ws`);
    expect(r.status).to.equal(409);
    expect(JSON.parse(r.body).message).to.match(/PC1 is not started/);
    const projectId = (await s.request("POST", "/v2/projects", { name: "stopped" })).json.project_id as string;
    const node = (await s.request("POST", `/v2/projects/${projectId}/nodes`, { name: "PC9", node_type: "vpcs", compute_id: "local" })).json.node_id as string;
    expect((await refusal(`/v2/projects/${projectId}/nodes/${node}/console/ws`)).status).to.equal(409);
  });

  it("refuses a switch as GNS3 does: its compute path is not found (404), its controller node has no telnet console (409)", async () => {
    const pc = await computeVpcs(false);
    const sw = (await s.request("POST", `${pc.base}/ethernet_switch/nodes`, { name: "SW1" })).json.node_id as string;
    expect((await refusal(`${pc.base}/ethernet_switch/nodes/${sw}/console/ws`)).status).to.equal(404);
    const projectId = (await s.request("POST", "/v2/projects", { name: "switch" })).json.project_id as string;
    const node = (await s.request("POST", `/v2/projects/${projectId}/nodes`, { name: "SW1", node_type: "ethernet_switch", compute_id: "local" })).json.node_id as string;
    const r = await refusal(`/v2/projects/${projectId}/nodes/${node}/console/ws`);
    expect(r.status).to.equal(409);
    expect(JSON.parse(r.body).message).to.equal("Node SW1 console type is not telnet");
  });

  it("refuses an unknown node with 404", async () => {
    const pc = await computeVpcs(false);
    expect((await refusal(`${pc.base}/vpcs/nodes/${randomUUID()}/console/ws`)).status).to.equal(404);
    const projectId = (await s.request("POST", "/v2/projects", { name: "unknown" })).json.project_id as string;
    expect((await refusal(`/v2/projects/${projectId}/nodes/${randomUUID()}/console/ws`)).status).to.equal(404);
  });

  it("asks for the server's credentials when auth is on (401 without, relayed with them)", async () => {
    await s.close();
    s = await startTestServer({ settings: { vpcsPath: GNS3_PEER_VPCS, auth: { enabled: true, user: "admin", password: "secret" } } });
    const authorization = `Basic ${Buffer.from("admin:secret").toString("base64")}`;
    const projectId = randomUUID();
    const h = { Authorization: authorization };
    const created = await fetch(`${s.url}/v2/compute/projects`, { method: "POST", headers: h, body: JSON.stringify({ name: "auth", project_id: projectId }) });
    expect(created.status).to.equal(201);
    const pc = (await (await fetch(`${s.url}/v2/compute/projects/${projectId}/vpcs/nodes`, { method: "POST", headers: h, body: JSON.stringify({ name: "PC1" }) })).json()) as { node_id: string };
    expect((await fetch(`${s.url}/v2/compute/projects/${projectId}/vpcs/nodes/${pc.node_id}/start`, { method: "POST", headers: h, body: "{}" })).status).to.equal(204);
    const path = `/v2/compute/projects/${projectId}/vpcs/nodes/${pc.node_id}/console/ws`;
    expect((await refusal(path)).status).to.equal(401);
    expect((await refusal(path, { Authorization: `Basic ${Buffer.from("admin:wrong").toString("base64")}` })).status).to.equal(401);
    const c = await WebConsole.open(wsUrl(path), h);
    consoles.push(c);
    await c.type("show ip", /NAME\s*:\s*VPCS/);
  });

  it("closes the node's console socket when the websocket closes, and the websocket when the node stops", async () => {
    const pc = await computeVpcs(true);
    const path = `${pc.base}/vpcs/nodes/${pc.nodeId}/console/ws`;
    const before = connectionsTo(pc.console);
    const first = await WebConsole.open(wsUrl(path));
    await first.type("show ip", /NAME/);
    expect(connectionsTo(pc.console)).to.equal(before + 1);
    first.ws.close();
    await first.closed;
    await until("the console socket closed", () => connectionsTo(pc.console) === before);
    const second = await WebConsole.open(wsUrl(path));
    consoles.push(second);
    await second.type("show ip", /NAME/);
    expect((await s.request("POST", `${pc.base}/vpcs/nodes/${pc.nodeId}/stop`, {})).status).to.equal(204);
    expect(await second.closed).to.be.a("number");
  });
});
