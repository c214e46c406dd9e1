import { expect } from "chai";
import { existsSync } from "node:fs";
import { randomUUID } from "node:crypto";
import { connect, type Socket } from "node:net";
import * as E from "fp-ts/lib/Either.js";
import type { ConsoleClients } from "../../src/application/ports/console-clients.js";
import { startTestServer, type TestServer } from "../support/http-harness.js";
import { GNS3_PEER_VPCS } from "../support/vpcs-console.js";
import { TelnetLine } from "../../src/adapters/shared/telnet.js";
import { WebConsole, connectionsTo, until } from "../support/web-console.js";

/**
 * A telnet client of a VPCS's console (VPCS serves one at a time, and queues the next): it answers the
 * node's telnet options as the web console's relay does, and tells whether it was dropped.
 */
class TelnetClient {
  read = "";
  readonly ended: Promise<void>;
  private readonly line = new TelnetLine();
  private constructor(readonly socket: Socket) {
    socket.on("data", (d: Buffer) => {
      const { text, answers } = this.line.receive(d);
      if (answers.length > 0) socket.write(answers);
      this.read += text.toString("latin1");
    });
    socket.on("error", () => undefined);
    this.ended = new Promise((resolve) => socket.once("close", () => resolve()));
  }

  static async open(port: number): Promise<TelnetClient> {
    const socket = connect({ host: "127.0.0.1", port });
    await new Promise<void>((resolve, reject) => socket.once("connect", resolve).once("error", reject));
    return new TelnetClient(socket);
  }

  /** Waits for the prompt (the node is done with its startup script), types a line, waits for `expected` after it. */
  async type(line: string, expected: RegExp): Promise<void> {
    await until("the prompt", () => /VPCS> $/.test(this.read), 15_000).catch((e: Error) => {
      throw new Error(`${e.message}; the console printed ${JSON.stringify(this.read)}`);
    });
    const from = this.read.length;
    this.socket.write(`${line}\r`);
    await until(`${expected} after ${line}`, () => expected.test(this.read.slice(from)), 15_000).catch((e: Error) => {
      throw new Error(`${e.message}; the console printed ${JSON.stringify(this.read)}`);
    });
  }
}

const closedWithin = async (ended: Promise<unknown>, ms: number): Promise<boolean> =>
  Promise.race([ended.then(() => true), new Promise<boolean>((r) => setTimeout(() => r(false), ms))]);

describe("end to end: console/reset drops a node's console clients, and /v3/compute serves its web console (real VPCS)", function () {
  this.timeout(60_000);
  let s: TestServer;
  const consoles: WebConsole[] = [];
  const telnets: TelnetClient[] = [];

  before(function () {
    if (!existsSync(GNS3_PEER_VPCS)) this.skip();
  });

  beforeEach(async () => {
    s = await startTestServer({ settings: { vpcsPath: GNS3_PEER_VPCS, v3: { gns3Version: "3.0.6", noAuth: true } } });
  });

  afterEach(async () => {
    for (const c of consoles.splice(0)) c.ws.terminate();
    for (const t of telnets.splice(0)) t.socket.destroy();
    await s?.close();
  });

  const wsUrl = (path: string): string => s.url.replace(/^http/, "ws") + path;

  async function computeVpcs(root: "/v2/compute" | "/v3/compute", start: boolean): Promise<{ base: string; node: string; console: number }> {
    const projectId = randomUUID();
    expect((await s.request("POST", `${root}/projects`, { name: "console", project_id: projectId })).status).to.equal(201);
    const base = `${root}/projects/${projectId}`;
    const pc = await s.request("POST", `${base}/vpcs/nodes`, { name: "PC1", node_id: randomUUID(), startup_script: "ip 10.0.0.9/24\n" });
    expect(pc.status, pc.text).to.equal(201);
    if (start) expect((await s.request("POST", `${base}/vpcs/nodes/${pc.json.node_id}/start`, {})).status).to.equal(204);
    return { base, node: `${base}/vpcs/nodes/${pc.json.node_id}`, console: pc.json.console };
  }

  async function openWeb(path: string): Promise<WebConsole> {
    const c = await WebConsole.open(wsUrl(path));
    consoles.push(c);
    return c;
  }

  it("relays a started VPCS's console on /v3/compute's path: `show ip` typed into it is answered", async () => {
    const pc = await computeVpcs("/v3/compute", true);
    const c = await openWeb(`${pc.node}/console/ws`);
    const answer = await c.type("show ip", /IP\/MASK\s*:\s*10\.0\.0\.9\/24/);
    expect(answer).to.match(/NAME\s*:\s*PC1|NAME\s*:\s*VPCS/);
  });

  it("tells why /v3/compute's web console cannot open, as 3.0.6 does after the upgrade: a stopped or unknown node closes it (1011, the refusal as the reason)", async () => {
    const pc = await computeVpcs("/v3/compute", false);
    const stopped = await openWeb(`${pc.node}/console/ws`);
    expect(await stopped.closed).to.equal(1011);
    expect(stopped.closeReason).to.match(/PC1 is not started/);
    const unknown = await openWeb(`${pc.base}/vpcs/nodes/${randomUUID()}/console/ws`);
    expect(await unknown.closed).to.equal(1011);
    expect(unknown.closeReason).to.match(/doesn't exist/);
  });

  it("refuses /v3/compute's web console of a switch (no console route: 404) and checks 3.0.6's credentials after the upgrade", async () => {
    const pc = await computeVpcs("/v3/compute", false);
    const sw = (await s.request("POST", `${pc.base}/ethernet_switch/nodes`, { name: "SW1", node_id: randomUUID() })).json.node_id as string;
    const refused = await WebConsole.open(wsUrl(`${pc.base}/ethernet_switch/nodes/${sw}/console/ws`)).catch((e: { status: number }) => e);
    expect((refused as { status: number }).status).to.equal(404);
    await s.close();
    s = await startTestServer({ settings: { vpcsPath: GNS3_PEER_VPCS, auth: { enabled: true, user: "admin", password: "secret" } } });
    const h = { Authorization: `Basic ${Buffer.from("admin:secret").toString("base64")}` };
    const projectId = randomUUID();
    expect((await fetch(`${s.url}/v3/compute/projects`, { method: "POST", headers: h, body: JSON.stringify({ name: "auth", project_id: projectId }) })).status).to.equal(201);
    const made = (await (await fetch(`${s.url}/v3/compute/projects/${projectId}/vpcs/nodes`, { method: "POST", headers: h, body: JSON.stringify({ name: "PC1", node_id: randomUUID() }) })).json()) as { node_id: string };
    const path = `/v3/compute/projects/${projectId}/vpcs/nodes/${made.node_id}/console/ws`;
    expect((await fetch(`${s.url}${path.replace("/console/ws", "/start")}`, { method: "POST", headers: h, body: "{}" })).status).to.equal(204);
    const wrong = await openWeb(path);
    expect(await wrong.closed).to.equal(1008);
    expect(wrong.printed).to.match(/Could not authenticate while connecting to compute WebSocket/);
    const c = await WebConsole.open(wsUrl(path), h);
    consoles.push(c);
    await c.type("show ip", /NAME/);
  });

  for (const root of ["/v2/compute", "/v3/compute"] as const) {
    it(`drops a connected telnet client and a connected web console on ${root}'s console/reset (204), and a new console answers`, async () => {
      const pc = await computeVpcs(root, true);
      const web = await openWeb(`${pc.node}/console/ws`);
      await web.type("show ip", /NAME/);
      // VPCS serves one client: this one waits behind the web console, as a stuck session's next user does.
      const telnet = await TelnetClient.open(pc.console);
      telnets.push(telnet);
      const reset = await s.request("POST", `${pc.node}/console/reset`, {});
      expect(reset.status, reset.text).to.equal(204);
      expect(await web.closed).to.be.a("number");
      expect(await closedWithin(telnet.ended, 10_000), "the telnet client was dropped").to.equal(true);
      await until("no client left on the console", () => connectionsTo(pc.console) === 0);
      const again = await TelnetClient.open(pc.console);
      telnets.push(again);
      // VPCS writes "\n\0" to its terminal on each connection but its first: the NUL begins the next line, which
      // it then reads as empty. An Enter first, as a user presses at a silent console.
      await again.type("", /VPCS> $/);
      await again.type("show ip", /10\.0\.0\.9\/24/);
    });
  }

  it("drops the telnet client that holds the console through the controller's console/reset", async () => {
    const projectId = (await s.request("POST", "/v2/projects", { name: "reset" })).json.project_id as string;
    const made = await s.request("POST", `/v2/projects/${projectId}/nodes`, { name: "PC1", node_type: "vpcs", compute_id: "local", properties: { startup_script: "ip 10.0.0.9/24\n" } });
    expect(made.status, made.text).to.equal(201);
    const node = `/v2/projects/${projectId}/nodes/${made.json.node_id}`;
    expect((await s.request("POST", `${node}/start`, {})).status).to.equal(200);
    const holder = await TelnetClient.open(made.json.console);
    telnets.push(holder);
    await holder.type("show ip", /10\.0\.0\.9\/24/);
    expect((await s.request("POST", `${node}/console/reset`, {})).status).to.equal(204);
    expect(await closedWithin(holder.ended, 10_000), "the telnet client was dropped").to.equal(true);
    const web = await openWeb(`${node}/console/ws`);
    await web.type("", /VPCS> $/);
    await web.type("show ip", /10\.0\.0\.9\/24/);
  });

  it("answers 409 naming the node and why when its console's clients cannot be dropped (the kernel refused)", async () => {
    await s.close();
    const refusing: ConsoleClients = { dropAll: async () => E.left("SOCK_DESTROY answers: Operation not permitted") };
    s = await startTestServer({ settings: { vpcsPath: GNS3_PEER_VPCS, v3: { gns3Version: "3.0.6", noAuth: true } }, overrides: { consoleClients: refusing } });
    const pc = await computeVpcs("/v2/compute", true);
    const r = await s.request("POST", `${pc.node}/console/reset`, {});
    expect(r.status).to.equal(409);
    expect(r.json.message).to.equal("Could not reset the console of node PC1: SOCK_DESTROY answers: Operation not permitted");
    const v3 = await s.request("POST", `${pc.node.replace("/v2/", "/v3/")}/console/reset`, {});
    expect([v3.status, v3.json.message]).to.deep.equal([409, r.json.message]);
  });

  it("drops the console clients of every VPCS of a project with the controller's nodes/console/reset; 404 for an unknown project", async () => {
    const projectId = (await s.request("POST", "/v2/projects", { name: "reset-all" })).json.project_id as string;
    const holders: TelnetClient[] = [];
    for (const i of [1, 2]) {
      const made = await s.request("POST", `/v2/projects/${projectId}/nodes`, { name: `PC${i}`, node_type: "vpcs", compute_id: "local" });
      expect(made.status, made.text).to.equal(201);
      expect((await s.request("POST", `/v2/projects/${projectId}/nodes/${made.json.node_id}/start`, {})).status).to.equal(200);
      const holder = await TelnetClient.open(made.json.console);
      telnets.push(holder);
      holders.push(holder);
      await holder.type("show ip", /NAME/);
    }
    await s.request("POST", `/v2/projects/${projectId}/nodes`, { name: "SW1", node_type: "ethernet_switch", compute_id: "local" });
    expect((await s.request("POST", `/v2/projects/${projectId}/nodes/console/reset`, {})).status).to.equal(204);
    for (const holder of holders) expect(await closedWithin(holder.ended, 10_000), "each telnet client was dropped").to.equal(true);
    expect((await s.request("POST", `/v2/projects/${randomUUID()}/nodes/console/reset`, {})).status).to.equal(404);
  });

  it("answers 204 for a running VPCS whose console is none, as GNS3 2.2.59 does, and asks the kernel nothing", async () => {
    await s.close();
    const asked: number[] = [];
    const counting: ConsoleClients = { dropAll: async (port) => (asked.push(port), E.right(0)) };
    s = await startTestServer({ settings: { vpcsPath: GNS3_PEER_VPCS }, overrides: { consoleClients: counting } });
    const projectId = randomUUID();
    expect((await s.request("POST", "/v2/compute/projects", { name: "none", project_id: projectId })).status).to.equal(201);
    const node = `/v2/compute/projects/${projectId}/vpcs/nodes/${(await s.request("POST", `/v2/compute/projects/${projectId}/vpcs/nodes`, { name: "PC1", console_type: "none" })).json.node_id as string}`;
    expect((await s.request("POST", `${node}/start`, {})).status).to.equal(204);
    expect((await s.request("POST", `${node}/console/reset`, {})).status).to.equal(204);
    expect(asked).to.deep.equal([]);
  });

  it("answers 204 for a stopped VPCS and leaves it stopped, 404 for an unknown one, on every side", async () => {
    const pc = await computeVpcs("/v2/compute", false);
    expect((await s.request("POST", `${pc.node}/console/reset`, {})).status).to.equal(204);
    expect((await s.request("GET", pc.node)).json.status).to.equal("stopped");
    const unknown = await s.request("POST", `${pc.base}/vpcs/nodes/${randomUUID()}/console/reset`, {});
    expect(unknown.status).to.equal(404);
    expect(unknown.json.message).to.match(/doesn't exist/);
    const projectId = (await s.request("POST", "/v2/projects", { name: "stopped" })).json.project_id as string;
    const made = (await s.request("POST", `/v2/projects/${projectId}/nodes`, { name: "PC2", node_type: "vpcs", compute_id: "local" })).json.node_id as string;
    expect((await s.request("POST", `/v2/projects/${projectId}/nodes/${made}/console/reset`, {})).status).to.equal(204);
    expect((await s.request("POST", `/v2/projects/${projectId}/nodes/${randomUUID()}/console/reset`, {})).status).to.equal(404);
  });

  it("answers as GNS3 2.2.59 for a node without a console: the compute has no route (404), the controller relays the compute's 404", async () => {
    const pc = await computeVpcs("/v2/compute", false);
    const sw = (await s.request("POST", `${pc.base}/ethernet_switch/nodes`, { name: "SW1" })).json.node_id as string;
    expect((await s.request("POST", `${pc.base}/ethernet_switch/nodes/${sw}/console/reset`, {})).status).to.equal(404);
    const projectId = (await s.request("POST", "/v2/projects", { name: "switch" })).json.project_id as string;
    const node = (await s.request("POST", `/v2/projects/${projectId}/nodes`, { name: "SW1", node_type: "ethernet_switch", compute_id: "local" })).json.node_id as string;
    const r = await s.request("POST", `/v2/projects/${projectId}/nodes/${node}/console/reset`, {});
    expect(r.status).to.equal(404);
    expect(r.json.message).to.equal(`POST /projects/${projectId}/ethernet_switch/nodes/${node}/console/reset not found`);
  });
});
