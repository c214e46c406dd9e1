import { expect } from "chai";
import { connect as tcpConnect, type Socket } from "node:net";
import { randomBytes } from "node:crypto";
import { request as httpRequest } from "node:http";
import { WebSocket } from "ws";
import { stuckWebsocketClient } from "../support/stuck-websocket.js";
import { upgradeOutcome } from "../support/websocket-upgrade.js";
import { startTestServer, type TestServer } from "../support/http-harness.js";
import { FakeDataPlane } from "../support/fake-data-plane.js";
import { FakeHostProcesses } from "../support/fake-host-processes.js";
import { testSwitchDataPlane, testWorkerDataPlane } from "../support/live-data-planes.js";
import { NotificationHub } from "../../src/application/notification-hub.js";
import { TOKENS } from "../../src/application/ports/tokens.js";
import type { ProjectEvents } from "../../src/application/ports/project-events.js";
import type { ProjectEventHub } from "../../src/application/project-event-hub.js";

type Frame = { action: string; event: Record<string, any> };

const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));
const basic = (user: string, password: string) => `Basic ${Buffer.from(`${user}:${password}`).toString("base64")}`;
const UNKNOWN = "00000000-0000-4000-8000-000000000000";

/** A websocket client of a controller notification path that records every frame it gets. */
class FrameClient {
  readonly frames: Frame[] = [];
  readonly closed: Promise<number>;

  private constructor(readonly ws: WebSocket) {
    ws.on("message", (data) => this.frames.push(JSON.parse(data.toString()) as Frame));
    this.closed = new Promise((resolve) => ws.once("close", (code) => resolve(code)));
  }

  static open(url: string, headers: Record<string, string> = {}): Promise<FrameClient> {
    return new Promise((resolve, reject) => {
      const ws = new WebSocket(url, { headers });
      const client = new FrameClient(ws);
      ws.once("open", () => resolve(client));
      ws.once("error", reject);
      ws.once("unexpected-response", (_req, res) => reject(new Error(`upgrade refused with ${res.statusCode}`)));
    });
  }

  /** Frames other than pings, once `count` of them arrived (or what came within `ms`). */
  async events(count: number, ms = 3000): Promise<Frame[]> {
    const deadline = Date.now() + ms;
    const got = () => this.frames.filter((f) => f.action !== "ping");
    while (got().length < count && Date.now() < deadline) await sleep(10);
    return got();
  }

  close(): void {
    this.ws.terminate();
  }
}

describe("HTTP: the controller's project notifications (GNS3 2.2's websocket and stream)", function () {
  this.timeout(30_000);
  let s: TestServer;
  let projectId: string;
  const clients: FrameClient[] = [];
  const wsUrl = (path: string) => s.url.replace(/^http/, "ws") + path;
  const projectSocket = (id = projectId) => wsUrl(`/v2/projects/${id}/notifications/ws`);
  const P = () => `/v2/projects/${projectId}`;
  const open = async (url: string, headers: Record<string, string> = {}) => {
    const c = await FrameClient.open(url, headers);
    clients.push(c);
    return c;
  };

  afterEach(async () => {
    for (const c of clients.splice(0)) c.close();
    await s?.close();
  });

  describe("what a client of a project hears", () => {
    beforeEach(async () => {
      s = await startTestServer({ overrides: { dataPlane: new FakeDataPlane() } });
      projectId = (await s.request("POST", "/v2/projects", { name: "lab" })).json.project_id;
    });

    it("hears a ping first, then node, link and drawing events in the order the REST calls made them, each event the thing's REST answer", async () => {
      const c = await open(projectSocket());
      const sw1 = (await s.request("POST", `${P()}/nodes`, { name: "SW1", node_type: "ethernet_switch", compute_id: "local" })).json;
      const sw2 = (await s.request("POST", `${P()}/nodes`, { name: "SW2", node_type: "ethernet_switch", compute_id: "local" })).json;
      const link = (await s.request("POST", `${P()}/links`, { nodes: [{ node_id: sw1.node_id, adapter_number: 0, port_number: 0 }, { node_id: sw2.node_id, adapter_number: 0, port_number: 0 }] })).json;
      const moved = (await s.request("PUT", `${P()}/nodes/${sw1.node_id}`, { x: 10, y: 20 })).json;
      const filtered = (await s.request("PUT", `${P()}/links/${link.link_id}`, { filters: { frequency_drop: [5] } })).json;
      const drawing = (await s.request("POST", `${P()}/drawings`, { svg: "<svg width=\"10\" height=\"10\"></svg>", x: 5 })).json;
      await s.request("DELETE", `${P()}/links/${link.link_id}`);
      await s.request("DELETE", `${P()}/nodes/${sw2.node_id}`);
      const events = await c.events(8);
      expect(c.frames[0]?.action).to.equal("ping");
      expect(Object.keys(c.frames[0]?.event ?? {}).sort()).to.deep.equal(["cpu_usage_percent", "memory_usage_percent"]);
      expect(events.map((f) => f.action)).to.deep.equal(["node.created", "node.created", "link.created", "node.updated", "link.updated", "drawing.created", "link.deleted", "node.deleted"]);
      expect(events[0]?.event).to.deep.equal(sw1);
      expect(events[1]?.event).to.deep.equal(sw2);
      expect(events[2]?.event).to.deep.equal(link);
      expect(events[3]?.event).to.deep.equal(moved);
      expect(events[4]?.event).to.deep.equal(filtered);
      expect(events[5]?.event).to.deep.equal(drawing);
      expect(events[6]?.event["link_id"]).to.equal(link.link_id);
      expect(events[7]?.event["node_id"]).to.equal(sw2.node_id);
    });

    it("hears a node's status change from start and stop as node.updated with the new status", async () => {
      const sw = (await s.request("POST", `${P()}/nodes`, { name: "SW1", node_type: "ethernet_switch", compute_id: "local" })).json;
      const c = await open(projectSocket());
      expect((await s.request("POST", `${P()}/nodes/${sw.node_id}/stop`, {})).status).to.be.oneOf([200, 204]);
      expect((await s.request("POST", `${P()}/nodes/${sw.node_id}/start`, {})).status).to.be.oneOf([200, 204]);
      const events = await c.events(2);
      expect(events.map((f) => [f.action, f.event["node_id"], f.event["status"]])).to.deep.equal([
        ["node.updated", sw.node_id, "stopped"],
        ["node.updated", sw.node_id, "started"],
      ]);
    });

    it("leaves the SVG out of drawing.updated when it did not change, and sends it when it did, as GNS3 does", async () => {
      const d = (await s.request("POST", `${P()}/drawings`, { svg: "<svg></svg>" })).json;
      const c = await open(projectSocket());
      await s.request("PUT", `${P()}/drawings/${d.drawing_id}`, { x: 50 });
      await s.request("PUT", `${P()}/drawings/${d.drawing_id}`, { svg: "<svg width=\"20\"></svg>" });
      await s.request("DELETE", `${P()}/drawings/${d.drawing_id}`);
      const events = await c.events(3);
      expect(events.map((f) => f.action)).to.deep.equal(["drawing.updated", "drawing.updated", "drawing.deleted"]);
      expect(events[0]?.event).to.deep.equal({ drawing_id: d.drawing_id, locked: false, project_id: projectId, rotation: 0, x: 50, y: 0, z: 2 });
      expect(events[1]?.event["svg"]).to.equal("<svg width=\"20\"></svg>");
      expect(events[2]?.event["drawing_id"]).to.equal(d.drawing_id);
    });

    it("tells a client watching a closed project every node, link and drawing as created when it opens, as GNS3's load does", async () => {
      const a = (await s.request("POST", `${P()}/nodes`, { name: "SW1", node_type: "ethernet_switch", compute_id: "local" })).json;
      const b = (await s.request("POST", `${P()}/nodes`, { name: "SW2", node_type: "ethernet_switch", compute_id: "local" })).json;
      const link = (await s.request("POST", `${P()}/links`, { nodes: [{ node_id: a.node_id, adapter_number: 0, port_number: 0 }, { node_id: b.node_id, adapter_number: 0, port_number: 0 }] })).json;
      const d = (await s.request("POST", `${P()}/drawings`, {})).json;
      await s.request("POST", `${P()}/close`, {});
      const c = await open(projectSocket());
      await s.request("POST", `${P()}/open`, {});
      const events = await c.events(4);
      expect(events.map((f) => [f.action, f.event["node_id"] ?? f.event["link_id"] ?? f.event["drawing_id"]])).to.deep.equal([
        ["node.created", a.node_id],
        ["node.created", b.node_id],
        ["link.created", link.link_id],
        ["drawing.created", d.drawing_id],
      ]);
    });

    it("hears nothing of another project", async () => {
      const other = (await s.request("POST", "/v2/projects", { name: "other" })).json.project_id;
      const c = await open(projectSocket(other));
      await s.request("POST", `${P()}/nodes`, { name: "SW1", node_type: "ethernet_switch", compute_id: "local" });
      await s.request("POST", `${P()}/drawings`, {});
      await sleep(200);
      expect(c.frames.filter((f) => f.action !== "ping")).to.deep.equal([]);
    });

    it("hears a log message published for the project as GNS3's log.<severity> frame", async () => {
      const c = await open(projectSocket());
      s.netemu.container.resolve<ProjectEvents>(TOKENS.ProjectEvents).publish({ kind: "log", projectId, severity: "warning", message: "disk almost full" });
      expect(await c.events(1)).to.deep.equal([{ action: "log.warning", event: { message: "disk almost full" } }]);
    });

    it("refuses the websocket of a project that does not exist with GNS3's 404, before any upgrade", async () => {
      const outcome = await upgradeOutcome(projectSocket(UNKNOWN));
      expect(outcome.status).to.equal(404);
      expect(JSON.parse(outcome.body ?? "{}")).to.deep.equal({ message: `Project ID ${UNKNOWN} doesn't exist`, status: 404 });
    });

    it("answers a plain GET of a websocket path with 400, saying it is a websocket", async () => {
      for (const path of [`${P()}/notifications/ws`, "/v2/notifications/ws"]) {
        const r = await s.request("GET", path);
        expect(r.status, path).to.equal(400);
        expect(r.json.message).to.match(/websocket/);
      }
    });

    it("streams the same frames as JSON lines over plain HTTP (GET /v2/projects/{p}/notifications), and 404 for an unknown project", async () => {
      const lines: Frame[] = [];
      const req = httpRequest(`${s.url}${P()}/notifications`);
      const answered = new Promise<number>((resolve) => {
        req.on("response", (res) => {
          let buffered = "";
          res.setEncoding("utf8");
          res.on("data", (chunk: string) => {
            buffered += chunk;
            const parts = buffered.split("\n");
            buffered = parts.pop() ?? "";
            for (const line of parts) lines.push(JSON.parse(line) as Frame);
          });
          resolve(res.statusCode ?? 0);
        });
      });
      req.on("error", () => undefined);
      req.end();
      expect(await answered).to.equal(200);
      const sw = (await s.request("POST", `${P()}/nodes`, { name: "SW1", node_type: "ethernet_switch", compute_id: "local" })).json;
      const deadline = Date.now() + 3000;
      while (!lines.some((l) => l.action === "node.created") && Date.now() < deadline) await sleep(10);
      req.destroy();
      expect(lines[0]?.action).to.equal("ping");
      expect(lines.find((l) => l.action === "node.created")?.event).to.deep.equal(sw);
      const unknown = await s.request("GET", `/v2/projects/${UNKNOWN}/notifications`);
      expect(unknown.status).to.equal(404);
    });

    it("tells the controller's websocket (/v2/notifications/ws) of projects created, closed, opened and deleted, each as GNS3's project answer", async () => {
      const c = await open(wsUrl("/v2/notifications/ws"));
      const made = (await s.request("POST", "/v2/projects", { name: "second" })).json;
      await s.request("POST", `/v2/projects/${made.project_id}/close`, {});
      await s.request("POST", `/v2/projects/${made.project_id}/open`, {});
      await s.request("DELETE", `/v2/projects/${made.project_id}`);
      const events = await c.events(5);
      expect(events.map((f) => [f.action, f.event["project_id"], f.event["status"]])).to.deep.equal([
        ["project.created", made.project_id, "opened"],
        ["project.closed", made.project_id, "closed"],
        ["project.opened", made.project_id, "opened"],
        ["project.closed", made.project_id, "closed"],
        ["project.deleted", made.project_id, "closed"],
      ]);
      expect(events[0]?.event).to.deep.equal(made);
    });
  });

  for (const plane of ["main thread (SwitchDataPlane)", "worker thread (WorkerDataPlane)"] as const) {
    describe(`a VPCS on the ${plane}`, () => {
      let processes: FakeHostProcesses;
      beforeEach(async () => {
        processes = new FakeHostProcesses();
        const notifications = new NotificationHub();
        const dataPlane = plane.startsWith("main") ? testSwitchDataPlane() : testWorkerDataPlane({ workers: 1, notifications });
        s = await startTestServer({ overrides: { dataPlane, notifications, hostProcesses: processes } });
        projectId = (await s.request("POST", "/v2/projects", { name: "lab" })).json.project_id;
      });

      it("is told started, then stopped when its process dies, as node.updated with its whole answer", async () => {
        const pc = (await s.request("POST", `${P()}/nodes`, { name: "PC1", node_type: "vpcs", compute_id: "local" })).json;
        const c = await open(projectSocket());
        const started = (await s.request("POST", `${P()}/nodes/${pc.node_id}/start`, {})).json;
        expect(started.status).to.equal("started");
        processes.die(pc.node_id, 139, "Segmentation fault");
        const events = await c.events(2);
        expect(events.map((f) => [f.action, f.event["node_id"], f.event["status"]])).to.deep.equal([
          ["node.updated", pc.node_id, "started"],
          ["node.updated", pc.node_id, "stopped"],
        ]);
        expect(events[0]?.event).to.deep.equal(started);
        expect(events[1]?.event).to.deep.equal((await s.request("GET", `${P()}/nodes/${pc.node_id}`)).json);
      });
    });
  }

  describe("behind --auth", () => {
    beforeEach(async () => {
      s = await startTestServer({ overrides: { dataPlane: new FakeDataPlane() }, settings: { auth: { enabled: true, user: "u", password: "p" } } });
      projectId = (await s.request("POST", "/v2/projects", { name: "lab" }, { Authorization: basic("u", "p") })).json.project_id;
    });

    it("refuses a project's and the controller's websocket without credentials or with wrong ones (401), and serves them with the right ones", async () => {
      for (const path of [`/v2/projects/${projectId}/notifications/ws`, "/v2/notifications/ws"]) {
        expect((await upgradeOutcome(wsUrl(path))).status, path).to.equal(401);
        expect((await upgradeOutcome(wsUrl(path), { Authorization: basic("u", "wrong") })).status, path).to.equal(401);
        expect(await upgradeOutcome(wsUrl(path), { Authorization: basic("u", "p") }), path).to.deep.equal({ open: true });
      }
    });

    it("refuses the HTTP streams without credentials (401)", async () => {
      expect((await s.request("GET", `/v2/projects/${projectId}/notifications`)).status).to.equal(401);
      expect((await s.request("GET", "/v2/notifications")).status).to.equal(401);
    });
  });

  describe("a client that does not read", () => {
    beforeEach(async () => {
      s = await startTestServer({ overrides: { dataPlane: new FakeDataPlane() }, notificationBacklog: { perClientBytes: 64 * 1024, dropGraceMs: 300 } });
      projectId = (await s.request("POST", "/v2/projects", { name: "lab" })).json.project_id;
    });

    it("is dropped once 64 KiB wait for it, while a client that reads gets every frame, in order", async () => {
      const port = Number(new URL(s.url).port);
      const stuck = await stuckWebsocketClient(port, `/v2/projects/${projectId}/notifications/ws`);
      const reader = await open(projectSocket());
      const events = s.netemu.container.resolve<ProjectEventHub>(TOKENS.ProjectEvents);
      expect(events.listenerCount).to.equal(2);
      const chunk = "x".repeat(16 * 1024);
      // 4 MiB in all: far beyond what the kernel's socket buffers can hide for the stuck client.
      for (let i = 0; i < 256; i++) {
        events.publish({ kind: "log", projectId, severity: "info", message: `${i} ${chunk}` });
        if (i % 16 === 15) await sleep(5);
      }
      const got = await reader.events(256, 15_000);
      expect(got.map((f) => Number(String(f.event["message"]).split(" ")[0]))).to.deep.equal(Array.from({ length: 256 }, (_, i) => i));
      // The stuck client's feed ended (its subscription gone) while the reader's goes on.
      expect(events.listenerCount).to.equal(1);
      stuck.destroy();
      expect((await s.request("GET", "/v2/version")).status).to.equal(200);
    });
  });
});
