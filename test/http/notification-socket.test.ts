import { expect } from "chai";
import { mkdirSync, mkdtempSync, readdirSync, rmSync, symlinkSync } from "node:fs";
import { createServer, request as httpRequest, type Server } from "node:http";
import { connect as tcpConnect, type AddressInfo, type Socket } from "node:net";
import { createSocket } from "node:dgram";
import { randomBytes } from "node:crypto";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { WebSocket } from "ws";
import { createNetemu, type Netemu } from "../../src/adapters/composition-root.js";
import { NotificationSocketServer } from "../../src/adapters/http/notification-socket.js";
import type { NotificationHub } from "../../src/application/notification-hub.js";
import type { HostLoad, HostMetrics, HostStatistics } from "../../src/application/ports/host.js";
import type { Logger } from "../../src/application/ports/system.js";
import { TOKENS } from "../../src/application/ports/tokens.js";
import { stuckWebsocketClient } from "../support/stuck-websocket.js";
import { upgradeOutcome } from "../support/websocket-upgrade.js";
import { startTestServer, type TestServer } from "../support/http-harness.js";
import { UdpPeer, ethernetFrame } from "../support/udp-peer.js";

const WS_PATH = "/v2/compute/notifications/ws";
const PROJECT = "77777777-3333-4444-8555-666666666666";
const BROADCAST = "ff:ff:ff:ff:ff:ff";
const A = "00:50:79:66:68:01";
const B = "00:50:79:66:68:02";

type Message = { action: string; event: Record<string, any>; project_id?: string };

const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));
const basic = (user: string, password: string) => `Basic ${Buffer.from(`${user}:${password}`).toString("base64")}`;
const wsUrlOf = (httpUrl: string, path = WS_PATH) => httpUrl.replace(/^http/, "ws") + path;
const hubOf = (netemu: Netemu) => netemu.container.resolve<NotificationHub>(TOKENS.Notifications);
const openFds = () => readdirSync("/proc/self/fd").length;

/** Polls until `check` holds, or fails with `what` after `ms`. */
async function eventually(what: string, check: () => boolean | Promise<boolean>, ms = 3000): Promise<void> {
  const deadline = Date.now() + ms;
  while (!(await check())) {
    if (Date.now() > deadline) throw new Error(`timed out waiting for ${what}`);
    await sleep(20);
  }
}

/** A websocket client of the notification feed that records every message it gets. */
class NotificationClient {
  readonly messages: Message[] = [];
  /** True once a binary frame arrived (GNS3 sends text frames only). */
  sawBinary = false;
  private cursor = 0;
  private marks = 0;
  private wake: (() => void)[] = [];
  readonly closed: Promise<{ code: number; reason: string }>;

  private constructor(readonly ws: WebSocket) {
    ws.on("message", (data, isBinary) => {
      if (isBinary) this.sawBinary = true;
      this.messages.push(JSON.parse(data.toString()) as Message);
      for (const w of this.wake.splice(0)) w();
    });
    this.closed = new Promise((resolve) => ws.once("close", (code, reason) => resolve({ code, reason: reason.toString() })));
  }

  static open(url: string, headers: Record<string, string> = {}): Promise<NotificationClient> {
    return new Promise((resolve, reject) => {
      const ws = new WebSocket(url, { headers });
      const client = new NotificationClient(ws);
      ws.once("open", () => resolve(client));
      ws.once("error", reject);
      ws.once("unexpected-response", (_req, res) => reject(new Error(`upgrade refused with ${res.statusCode}`)));
    });
  }

  /** The first message (from the start) matching `test`, waiting up to `ms` for it. */
  async waitFor(what: string, test: (m: Message) => boolean, ms = 2000): Promise<Message> {
    const deadline = Date.now() + ms;
    for (;;) {
      const found = this.messages.find(test);
      if (found !== undefined) return found;
      const left = deadline - Date.now();
      if (left <= 0) throw new Error(`no ${what} within ${ms} ms; got ${JSON.stringify(this.messages.map((m) => m.action))}`);
      await new Promise<void>((resolve) => {
        const timer = setTimeout(resolve, left);
        this.wake.push(() => {
          clearTimeout(timer);
          resolve();
        });
      });
    }
  }

  /**
   * Everything but pings that arrived since the last call. A marker published on the hub goes
   * through the same socket after whatever was published before it, so once the marker is here
   * nothing published earlier can still be on its way.
   */
  async since(hub: NotificationHub): Promise<Message[]> {
    const mark = `mark ${++this.marks}`;
    hub.publish({ kind: "log", severity: "info", message: mark });
    const marker = await this.waitFor(mark, (m) => m.event["message"] === mark);
    const end = this.messages.indexOf(marker);
    const got = this.messages.slice(this.cursor, end).filter((m) => m.action !== "ping");
    this.cursor = end + 1;
    return got;
  }

  pings(): Message[] {
    return this.messages.filter((m) => m.action === "ping");
  }

  close(): void {
    if (this.ws.readyState === WebSocket.OPEN || this.ws.readyState === WebSocket.CONNECTING) this.ws.terminate();
  }
}

/** A stuck client of the compute's websocket, unless another path is given. */
function stuckClient(port: number, path = WS_PATH): Promise<Socket> {
  return stuckWebsocketClient(port, path);
}

/**
 * An upgrade the server refuses, from a client that reads the answer and then keeps its half of
 * the connection open (a stuck or hostile client): resolves with the status line and the socket.
 */
function refusedAndHeldOpen(port: number, path: string): Promise<{ statusLine: string; socket: Socket }> {
  return new Promise((resolve, reject) => {
    const socket = tcpConnect({ port, host: "127.0.0.1", allowHalfOpen: true });
    let head = "";
    socket.on("error", () => undefined);
    socket.on("connect", () =>
      socket.write(
        `GET ${path} HTTP/1.1\r\nHost: 127.0.0.1:${port}\r\nUpgrade: websocket\r\nConnection: Upgrade\r\n` +
          `Sec-WebSocket-Key: ${randomBytes(16).toString("base64")}\r\nSec-WebSocket-Version: 13\r\n\r\n`,
      ),
    );
    socket.on("data", (chunk) => {
      head += chunk.toString("latin1");
      if (head.includes("\r\n\r\n")) resolve({ statusLine: head.split("\r\n")[0]!, socket });
    });
    socket.on("end", () => undefined); // the server's FIN: this side stays open
    setTimeout(() => reject(new Error("no answer to the upgrade within 2 s")), 2000).unref();
  });
}

/** A plain HTTP GET that also offers to switch protocols (what `curl --http2 http://...` sends). */
function getOfferingH2c(url: string): Promise<{ status: number; body: string }> {
  return new Promise((resolve, reject) => {
    const req = httpRequest(url, {
      headers: { Connection: "Upgrade, HTTP2-Settings", Upgrade: "h2c", "HTTP2-Settings": "AAMAAABkAAQCAAAAAAIAAAAA" },
      timeout: 2000,
    });
    req.on("response", (res) => {
      let body = "";
      res.setEncoding("utf8");
      res.on("data", (c: string) => (body += c));
      res.on("end", () => resolve({ status: res.statusCode ?? 0, body }));
    });
    req.on("upgrade", () => reject(new Error("the server switched protocols")));
    req.on("timeout", () => req.destroy(new Error("no answer within 2 s")));
    req.on("error", reject);
    req.end();
  });
}

/** A host whose load the test sets; each reading is counted so pings can be told apart. */
class FakeHostMetrics implements HostMetrics {
  readings = 0;
  load(): HostLoad {
    this.readings++;
    return { cpuUsagePercent: 10 + this.readings, memoryUsagePercent: 42.5 };
  }
  async statistics(): Promise<HostStatistics> {
    return {
      memoryTotal: 1,
      memoryFree: 0,
      memoryUsed: 1,
      swapTotal: 0,
      swapFree: 0,
      swapUsed: 0,
      cpuUsagePercent: 11,
      memoryUsagePercent: 42,
      swapUsagePercent: 0,
      diskUsagePercent: 0,
      loadAveragePercent: [0, 0, 0],
    };
  }
}

class RecordingLogger implements Logger {
  readonly warnings: string[] = [];
  debug(): void {}
  info(): void {}
  warn(msg: string): void {
    this.warnings.push(msg);
  }
  error(): void {}
}

/** A UDP port on 127.0.0.1 that nobody listens on (bound, noted, released). */
async function deadUdpPort(): Promise<number> {
  const socket = createSocket("udp4");
  await new Promise<void>((resolve) => socket.bind(0, "127.0.0.1", () => resolve()));
  const port = socket.address().port;
  await new Promise<void>((resolve) => socket.close(() => resolve()));
  return port;
}

describe("HTTP: the compute notification websocket (GET /v2/compute/notifications/ws)", function () {
  this.timeout(15_000);
  let s: TestServer;
  let clients: NotificationClient[];
  let peers: UdpPeer[];

  const open = async (headers: Record<string, string> = {}) => {
    const c = await NotificationClient.open(wsUrlOf(s.url), headers);
    clients.push(c);
    return c;
  };

  beforeEach(() => {
    s = undefined as unknown as TestServer;
    clients = [];
    peers = [];
  });
  afterEach(async () => {
    for (const c of clients) c.close();
    await s?.close();
    await Promise.all(peers.map((p) => p.close()));
  });

  describe("pings", () => {
    let metrics: FakeHostMetrics;
    beforeEach(async () => {
      metrics = new FakeHostMetrics();
      s = await startTestServer({ overrides: { hostMetrics: metrics } });
    });

    it("sends a ping with the host's CPU and memory use at once, as a JSON text frame of GNS3's shape", async () => {
      const c = await open();
      // At once: well before the first idle interval (1 s) could have produced one.
      await c.waitFor("the first ping", () => true, 400);
      expect(c.messages[0]).to.deep.equal({ action: "ping", event: { cpu_usage_percent: 11, memory_usage_percent: 42.5 } });
      expect(c.sawBinary).to.equal(false);
    });

    it("keeps pinging about once a second while nothing else is sent, each ping a fresh reading", async () => {
      const c = await open();
      await sleep(3500);
      const pings = c.pings();
      expect(pings.length).to.be.within(3, 5);
      const cpu = pings.map((p) => p.event["cpu_usage_percent"] as number);
      expect(cpu, "one reading of the host metrics port per ping, in order").to.deep.equal(cpu.map((_, i) => cpu[0]! + i));
      for (const p of pings) expect(Object.keys(p.event).sort()).to.deep.equal(["cpu_usage_percent", "memory_usage_percent"]);
    });

    it("does not ping while other messages keep the socket busy", async () => {
      const c = await open();
      const hub = hubOf(s.netemu);
      await c.waitFor("the first ping", (m) => m.action === "ping");
      for (let i = 0; i < 8; i++) {
        await sleep(300);
        hub.publish({ kind: "log", severity: "info", message: `busy ${i}` });
      }
      await c.waitFor("the last busy message", (m) => m.event["message"] === "busy 7");
      expect(c.pings(), "only the one sent on connecting").to.have.length(1);
    });

    it("answers the controller's ping control frames (aiohttp heartbeat) with pongs", async () => {
      const c = await open();
      for (const payload of ["hb-1", "hb-2"]) {
        const pong = new Promise<string>((resolve, reject) => {
          const timer = setTimeout(() => reject(new Error("no pong within 1 s")), 1000);
          c.ws.once("pong", (data) => {
            clearTimeout(timer);
            resolve(data.toString());
          });
        });
        c.ws.ping(payload);
        expect(await pong).to.equal(payload);
      }
    });
  });

  describe("host metrics of the real host", () => {
    beforeEach(async () => (s = await startTestServer()));

    it("reports CPU and memory use as numbers within 0..100", async () => {
      const c = await open();
      const ping = await c.waitFor("the first ping", (m) => m.action === "ping", 1000);
      for (const key of ["cpu_usage_percent", "memory_usage_percent"]) {
        expect(ping.event[key], key).to.be.a("number").within(0, 100);
      }
    });
  });

  describe("access", () => {
    describe("with auth on", () => {
      beforeEach(async () => (s = await startTestServer({ settings: { auth: { enabled: true, user: "u", password: "p" } } })));

      it("refuses the upgrade with 401 and GNS3's realm without credentials or with wrong ones", async () => {
        for (const headers of [{}, { Authorization: basic("u", "wrong") }, { Authorization: basic("x", "p") }, { Authorization: "Bearer u:p" }] as Record<string, string>[]) {
          const outcome = await upgradeOutcome(wsUrlOf(s.url), headers);
          expect(outcome, JSON.stringify(headers)).to.deep.include({ status: 401, wwwAuthenticate: 'Basic realm="GNS3 server"' });
        }
      });

      it("connects with the right credentials, and pings", async () => {
        const c = await open({ Authorization: basic("u", "p") });
        await c.waitFor("a ping", (m) => m.action === "ping", 1000);
      });
    });

    describe("with auth off", () => {
      beforeEach(async () => (s = await startTestServer()));

      it("refuses an upgrade on any other path with 404 and a JSON body", async () => {
        for (const path of ["/v2/compute/notifications/wss", "/v2/compute/notifications", "/", "/v2/notifications/wss", "/v2/projects/notifications/ws"]) {
          const outcome = await upgradeOutcome(wsUrlOf(s.url, path));
          expect(outcome.status, path).to.equal(404);
          expect(JSON.parse(outcome.body ?? "null"), path).to.deep.include({ status: 404 });
        }
      });

      it("accepts the path with a query string", async () => {
        expect(await upgradeOutcome(wsUrlOf(s.url, `${WS_PATH}?x=1`))).to.deep.equal({ open: true });
      });

      it("serves an API request that offers another protocol (h2c) as plain HTTP, ignoring the offer (RFC 9110 §7.8)", async () => {
        const r = await getOfferingH2c(`${s.url}/v2/version`);
        expect(r.status, r.body).to.equal(200);
        expect(JSON.parse(r.body)).to.deep.equal({ local: true, version: "2.2.59" });
      });
    });
  });

  describe("node.updated", () => {
    beforeEach(async () => {
      s = await startTestServer();
      expect((await s.request("POST", "/v2/compute/projects", { name: "ws", project_id: PROJECT })).status).to.equal(201);
    });

    const keysOfSwitch = ["console", "console_type", "name", "node_id", "ports_mapping", "project_id", "status"];
    const keysOfHub = ["name", "node_id", "ports_mapping", "project_id", "status"];

    it("tells each change of a switch once, with the switch exactly as PUT answers it, even when its ports have counters", async () => {
      const created = await s.request("POST", `/v2/compute/projects/${PROJECT}/ethernet_switch/nodes`, { name: "SW1", console_type: "none" });
      expect(created.status).to.equal(201);
      const node = `/v2/compute/projects/${PROJECT}/ethernet_switch/nodes/${created.json.node_id}`;
      // Two live NIOs with traffic, so that the switch has per-port counters to show.
      peers = [await UdpPeer.open(), await UdpPeer.open()];
      const lports: number[] = [];
      for (const [i, peer] of peers.entries()) {
        const lport = (await s.request("POST", `/v2/compute/projects/${PROJECT}/ports/udp`)).json.udp_port as number;
        lports.push(lport);
        const nio = await s.request("POST", `${node}/adapters/0/ports/${i}/nio`, { type: "nio_udp", lport, rhost: "127.0.0.1", rport: peer.port });
        expect(nio.status).to.equal(201);
      }
      await peers[0]!.send(ethernetFrame(BROADCAST, A), lports[0]!);
      await peers[1]!.waitFor(1);
      expect((await s.request("GET", node)).json.ports_statistics, "GET shows counters").to.be.an("array").that.is.not.empty;

      const hub = hubOf(s.netemu);
      const c = await open();
      expect(await c.since(hub), "nothing but pings on connecting").to.deep.equal([]);

      const expectOneUpdate = async (what: string, answer: Record<string, unknown>) => {
        const got = await c.since(hub);
        expect(got, what).to.have.length(1);
        expect(got[0], what).to.deep.equal({ action: "node.updated", event: answer, project_id: PROJECT });
        expect(Object.keys(got[0]!.event).sort(), what).to.deep.equal(keysOfSwitch);
      };
      /** A PUT that changes nothing: answers the switch as it is now, and tells nobody. */
      const current = async () => {
        const r = await s.request("PUT", node, {});
        expect(r.status).to.equal(200);
        expect(await c.since(hub), "an empty PUT tells nothing").to.deep.equal([]);
        return r.json as Record<string, unknown>;
      };

      const renamed = await s.request("PUT", node, { name: "Core" });
      expect(renamed.status).to.equal(200);
      expect(renamed.json.name).to.equal("Core");
      await expectOneUpdate("rename", renamed.json);

      // With NIOs attached the number of ports stays; their VLANs change.
      const ports_mapping = Array.from({ length: 8 }, (_, i) => ({ name: `Ethernet${i}`, port_number: i, type: i === 1 ? "dot1q" : "access", vlan: i === 0 ? 10 : 1 }));
      const remapped = await s.request("PUT", node, { ports_mapping });
      expect(remapped.status).to.equal(200);
      expect(remapped.json.ports_mapping).to.deep.equal(ports_mapping);
      await expectOneUpdate("ports_mapping", remapped.json);

      // The controller sends back everything it was told; nothing changed, so nothing is told.
      const echoed = await s.request("PUT", node, { name: "Core", console_type: "none", ports_mapping: remapped.json.ports_mapping });
      expect(echoed.status).to.equal(200);
      expect(await c.since(hub), "a PUT of the same values tells nothing").to.deep.equal([]);

      for (const [action, status] of [["stop", "stopped"], ["start", "started"], ["suspend", "suspended"], ["start", "started"], ["stop", "stopped"]] as const) {
        expect((await s.request("POST", `${node}/${action}`)).status, action).to.equal(204);
        const got = await c.since(hub);
        const now = await current();
        expect(now.status).to.equal(status);
        expect(got, action).to.deep.equal([{ action: "node.updated", event: now, project_id: PROJECT }]);
        expect(Object.keys(got[0]!.event).sort()).to.deep.equal(keysOfSwitch);
      }

      expect((await s.request("POST", `${node}/stop`)).status).to.equal(204);
      expect(await c.since(hub), "a second stop tells nothing").to.deep.equal([]);
    });

    it("tells nothing for a PUT that sends the same ports_mapping with its keys in another order", async () => {
      const created = await s.request("POST", `/v2/compute/projects/${PROJECT}/ethernet_switch/nodes`, { name: "SW1" });
      const node = `/v2/compute/projects/${PROJECT}/ethernet_switch/nodes/${created.json.node_id}`;
      const hub = hubOf(s.netemu);
      const c = await open();
      await c.since(hub);
      const reordered = (created.json.ports_mapping as Record<string, unknown>[]).map((p) => ({ vlan: p["vlan"], type: p["type"], port_number: p["port_number"], name: p["name"] }));
      const r = await s.request("PUT", node, { ports_mapping: reordered });
      expect(r.status).to.equal(200);
      expect(r.json).to.deep.equal(created.json);
      expect(await c.since(hub)).to.deep.equal([]);
    });

    it("tells each change of a hub once, with GNS3's hub keys only", async () => {
      const created = await s.request("POST", `/v2/compute/projects/${PROJECT}/ethernet_hub/nodes`, { name: "HUB1" });
      expect(created.status).to.equal(201);
      const node = `/v2/compute/projects/${PROJECT}/ethernet_hub/nodes/${created.json.node_id}`;
      const hub = hubOf(s.netemu);
      const c = await open();
      expect(await c.since(hub)).to.deep.equal([]);

      const expectOneUpdate = async (what: string, answer: Record<string, unknown>) => {
        const got = await c.since(hub);
        expect(got, what).to.deep.equal([{ action: "node.updated", event: answer, project_id: PROJECT }]);
        expect(Object.keys(got[0]!.event).sort(), what).to.deep.equal(keysOfHub);
      };

      const renamed = await s.request("PUT", node, { name: "Floor 2" });
      expect(renamed.status).to.equal(200);
      await expectOneUpdate("rename", renamed.json);

      const four = [0, 1, 2, 3].map((i) => ({ name: `Ethernet${i}`, port_number: i }));
      const remapped = await s.request("PUT", node, { ports_mapping: four });
      expect(remapped.status).to.equal(200);
      expect(remapped.json.ports_mapping).to.deep.equal(four);
      await expectOneUpdate("ports_mapping", remapped.json);

      const same = await s.request("PUT", node, { name: "Floor 2", ports_mapping: four });
      expect(same.status).to.equal(200);
      expect(await c.since(hub), "a PUT of the same values tells nothing").to.deep.equal([]);

      for (const [action, status] of [["stop", "stopped"], ["start", "started"], ["suspend", "suspended"]] as const) {
        expect((await s.request("POST", `${node}/${action}`)).status, action).to.equal(204);
        const got = await c.since(hub);
        const now = (await s.request("PUT", node, {})).json as Record<string, unknown>;
        expect(now.status).to.equal(status);
        expect(got, action).to.deep.equal([{ action: "node.updated", event: now, project_id: PROJECT }]);
        expect(Object.keys(got[0]!.event).sort()).to.deep.equal(keysOfHub);
      }
      expect((await s.request("POST", `${node}/suspend`)).status).to.equal(204);
      expect(await c.since(hub), "suspending a suspended hub tells nothing").to.deep.equal([]);
    });
  });

  describe("log messages", () => {
    beforeEach(async () => {
      s = await startTestServer();
      expect((await s.request("POST", "/v2/compute/projects", { name: "ws", project_id: PROJECT })).status).to.equal(201);
    });

    it("warns once that a port's peer is unreachable (ICMP port unreachable on loopback), and again after it came back and went", async () => {
      const created = await s.request("POST", `/v2/compute/projects/${PROJECT}/ethernet_switch/nodes`, { name: "SW1" });
      const node = `/v2/compute/projects/${PROJECT}/ethernet_switch/nodes/${created.json.node_id}`;
      const alive = await UdpPeer.open();
      peers.push(alive);
      const dead = await deadUdpPort();
      const lports: number[] = [];
      for (const [i, rport] of [alive.port, dead].entries()) {
        const lport = (await s.request("POST", `/v2/compute/projects/${PROJECT}/ports/udp`)).json.udp_port as number;
        lports.push(lport);
        expect((await s.request("POST", `${node}/adapters/0/ports/${i}/nio`, { type: "nio_udp", lport, rhost: "127.0.0.1", rport })).status).to.equal(201);
      }
      const hub = hubOf(s.netemu);
      const c = await open();
      await c.since(hub);
      const warnings = () => c.messages.filter((m) => m.action === "log.warning");
      const framesOutOfPort1 = async () =>
        ((await s.request("GET", node)).json.ports_statistics as { port_number: number; frames_out: number }[] | undefined)?.find((p) => p.port_number === 1)?.frames_out ?? 0;

      // The switch floods the broadcast to port 1, whose peer is not there.
      await alive.send(ethernetFrame(BROADCAST, A), lports[0]!);
      const warning = await c.waitFor("a log.warning", (m) => m.action === "log.warning");
      expect(warning.project_id).to.equal(PROJECT);
      expect(Object.keys(warning.event)).to.deep.equal(["message"]);
      const message = warning.event["message"] as string;
      expect(message).to.include("SW1").and.include("port 1").and.include(`127.0.0.1:${dead}`);

      // More frames towards the dead peer: each gets its ICMP, none is told again.
      for (let i = 0; i < 3; i++) await alive.send(ethernetFrame(BROADCAST, A), lports[0]!);
      await eventually("4 frames sent to port 1", async () => (await framesOutOfPort1()) === 4);
      await sleep(200);
      expect(warnings(), "told once").to.have.length(1);

      // The peer comes back and speaks: a new episode starts with the next failure.
      const back = await UdpPeer.open(dead);
      await back.send(ethernetFrame(BROADCAST, B), lports[1]!);
      await alive.waitFor(1);
      await alive.send(ethernetFrame(B, A), lports[0]!);
      await back.waitFor(1);
      await sleep(100);
      expect(warnings(), "no warning while the peer is there").to.have.length(1);
      await back.close();
      await alive.send(ethernetFrame(B, A), lports[0]!);
      await c.waitFor("a second log.warning", () => warnings().length === 2);
      expect(warnings()[1]).to.deep.equal(warning);
    });

    it("tells an error when a capture cannot write its file, and ends that capture", async () => {
      const created = await s.request("POST", `/v2/compute/projects/${PROJECT}/ethernet_switch/nodes`, { name: "SW1" });
      const port = `/v2/compute/projects/${PROJECT}/ethernet_switch/nodes/${created.json.node_id}/adapters/0/ports/0`;
      expect((await s.request("POST", `${port}/nio`, { type: "nio_null" })).status).to.equal(201);
      // A capture file that is a device whose every write fails with ENOSPC: a full disk, for real.
      const captures = join(s.netemu.settings.projectsPath, ".netemu-compute", PROJECT, "project-files", "captures");
      mkdirSync(captures, { recursive: true });
      symlinkSync("/dev/full", join(captures, "full.pcap"));
      const hub = hubOf(s.netemu);
      const c = await open();
      await c.since(hub);

      const started = await s.request("POST", `${port}/start_capture`, { capture_file_name: "full.pcap", data_link_type: "DLT_EN10MB" });
      expect(started.status).to.equal(200);
      const error = await c.waitFor("a log.error", (m) => m.action === "log.error");
      expect(error.project_id).to.equal(PROJECT);
      expect(error.event["message"]).to.include("SW1").and.include("port 0").and.include(join(captures, "full.pcap")).and.include("ENOSPC");

      // The capture is over: the port takes a new one.
      const again = await s.request("POST", `${port}/start_capture`, { capture_file_name: "ok.pcap", data_link_type: "DLT_EN10MB" });
      expect(again.status, JSON.stringify(again.json)).to.equal(200);
      expect((await s.request("POST", `${port}/stop_capture`)).status).to.equal(204);
      expect((await c.since(hub)).filter((m) => m.action === "log.error"), "told once").to.have.length(1);
    });
  });

  describe("many clients", () => {
    beforeEach(async () => (s = await startTestServer()));

    it("leaves no listener or file descriptor behind after 200 clients came and went, half of them without a close frame", async () => {
      const hub = hubOf(s.netemu);
      expect((await s.request("GET", "/v2/compute/capabilities")).status).to.equal(200);
      const idleListeners = hub.listenerCount;
      const idleFds = openFds();

      const many = await Promise.all(Array.from({ length: 200 }, () => NotificationClient.open(wsUrlOf(s.url))));
      await Promise.all(many.map((c) => c.waitFor("a ping", (m) => m.action === "ping")));
      expect(hub.listenerCount).to.equal(idleListeners + 200);
      hub.publish({ kind: "log", severity: "info", message: "to all" });
      await Promise.all(many.map((c) => c.waitFor("the broadcast", (m) => m.event["message"] === "to all")));

      many.forEach((c, i) => (i % 2 === 0 ? c.ws.close(1000) : c.ws.terminate()));
      await Promise.all(many.map((c) => c.closed));
      // As each socket closes, not when the next ping (1 s) finds it gone.
      await eventually("the listeners to go", () => hub.listenerCount === idleListeners, 600);
      await eventually(`file descriptors back near ${idleFds} (now ${openFds()})`, () => openFds() <= idleFds + 3, 5000);

      expect((await s.request("GET", "/v2/compute/capabilities")).status).to.equal(200);
      const fresh = await open();
      await fresh.waitFor("a ping", (m) => m.action === "ping");
    });
  });

  describe("slow and silent clients (the socket server on its own)", () => {
    let netemu: Netemu;
    let server: Server;
    let sockets: NotificationSocketServer;
    let logger: RecordingLogger;
    let configDir: string;
    let port: number;
    let raw: Socket[];

    const serve = async (options: ConstructorParameters<typeof NotificationSocketServer>[3]) => {
      sockets = new NotificationSocketServer(netemu.useCases, { enabled: false, user: "", password: "" }, logger, options);
      server = createServer((_req, res) => res.end("ok"));
      server.on("upgrade", (req, socket, head) => sockets.handleUpgrade(req, socket, head));
      await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", () => resolve()));
      port = (server.address() as AddressInfo).port;
    };

    beforeEach(() => {
      configDir = mkdtempSync(join(tmpdir(), "netemu-ws-"));
      netemu = createNetemu({ logLevel: "silent", settings: { configDir, host: "127.0.0.1", port: 0 }, overrides: { hostMetrics: new FakeHostMetrics() } });
      logger = new RecordingLogger();
      raw = [];
    });
    afterEach(async () => {
      for (const r of raw) r.destroy();
      await sockets.close();
      server.closeAllConnections();
      await new Promise<void>((resolve) => server.close(() => resolve()));
      await netemu.shutdown();
      rmSync(configDir, { recursive: true, force: true });
    });

    it("drops a client that stops reading once it is too far behind, instead of buffering for it", async () => {
      await serve({ maxBufferedBytes: 64 * 1024 });
      const hub = hubOf(netemu);
      const idle = hub.listenerCount;
      const stuck = await stuckClient(port);
      raw.push(stuck);
      await eventually("the client to listen", () => hub.listenerCount === idle + 1);
      const chunk = "x".repeat(16 * 1024);
      let published = 0;
      while (hub.listenerCount > idle && published < 64 * 1024 * 1024) {
        for (let i = 0; i < 16; i++) hub.publish({ kind: "log", severity: "info", message: chunk });
        published += 16 * chunk.length;
        await new Promise((r) => setImmediate(r));
      }
      expect(hub.listenerCount, `still listening after ${published} bytes`).to.equal(idle);
      // Closed with 1013 at once, cut once the grace for reading that close has passed.
      await eventually("the dropped client's socket to be cut", () => sockets.clientCount === 0, 5000);
      expect(logger.warnings.some((w) => w.includes("too slow"))).to.equal(true);
      // What it did get is a few socket buffers, far below what was published.
      expect(published).to.be.below(32 * 1024 * 1024);
      stuck.resume();
      await new Promise<void>((resolve) => (stuck.destroyed ? resolve() : stuck.once("close", () => resolve())));
    });

    it("drops a client that answers no ping control frame within the heartbeat, and keeps one that does", async () => {
      await serve({ heartbeatMs: 150 });
      const silent = await stuckClient(port);
      raw.push(silent);
      const live = await NotificationClient.open(wsUrlOf(`http://127.0.0.1:${port}`));
      clients.push(live);
      await eventually("two clients", () => sockets.clientCount === 2);
      const silentGone = new Promise<void>((resolve) => silent.once("close", () => resolve()));
      silent.resume(); // reads, but never answers
      await Promise.race([silentGone, sleep(2000).then(() => Promise.reject(new Error("the silent client was not dropped within 2 s")))]);
      await sleep(600); // four more heartbeats
      expect(sockets.clientCount).to.equal(1);
      expect(live.ws.readyState).to.equal(WebSocket.OPEN);
    });
  });

  describe("shutdown", () => {
    beforeEach(async () => (s = await startTestServer()));

    it("closes connected clients with 1001 (going away) within 2 s, and refuses upgrades from then on", async () => {
      const c = await open();
      await c.waitFor("a ping", (m) => m.action === "ping");
      const started = Date.now();
      const shutdown = s.netemu.shutdown();
      const closed = await Promise.race([c.closed, sleep(2000).then(() => undefined)]);
      expect(closed, "closed within 2 s").to.not.equal(undefined);
      expect(closed!.code).to.equal(1001);
      expect(Date.now() - started).to.be.below(2000);
      const during = await upgradeOutcome(wsUrlOf(s.url));
      expect(during.open, "no upgrade during shutdown").to.equal(undefined);
      await shutdown;
      const after = await upgradeOutcome(wsUrlOf(s.url));
      expect(after).to.deep.equal({ error: "ECONNREFUSED" });
    });

    it("completes while a client whose upgrade was refused keeps its half of the connection open", async () => {
      const { statusLine, socket } = await refusedAndHeldOpen(Number(new URL(s.url).port), "/v2/compute/notifications/wss");
      expect(statusLine).to.equal("HTTP/1.1 404 Not Found");
      try {
        const done = await Promise.race([s.netemu.shutdown().then(() => "done"), sleep(2000).then(() => "still running after 2 s")]);
        expect(done).to.equal("done");
      } finally {
        socket.destroy(); // lets a hung shutdown finish for the next tests
      }
    });

    it("does not wait for ever on a client that never answers the close frame", async () => {
      const stuck = await stuckClient(Number(new URL(s.url).port));
      const started = Date.now();
      await s.netemu.shutdown();
      expect(Date.now() - started).to.be.below(2500);
      stuck.destroy();
    });
  });

  describe("embedded in a host's own HTTP server", () => {
    let netemu: Netemu;
    let server: Server;
    let url: string;
    let configDir: string;

    beforeEach(async () => {
      configDir = mkdtempSync(join(tmpdir(), "netemu-embed-"));
      netemu = createNetemu({ logLevel: "silent", settings: { configDir, host: "127.0.0.1", port: 0 } });
      server = createServer(netemu.app.callback());
      server.on("upgrade", (req, socket, head) => netemu.handleUpgrade(req, socket, head));
      await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", () => resolve()));
      url = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
    });
    afterEach(async () => {
      await netemu.shutdown();
      server.closeAllConnections();
      await new Promise<void>((resolve) => server.close(() => resolve()));
      rmSync(configDir, { recursive: true, force: true });
    });

    it("serves the websocket through handleUpgrade next to the app's routes", async () => {
      const c = await NotificationClient.open(wsUrlOf(url));
      clients.push(c);
      await c.waitFor("a ping", (m) => m.action === "ping");
      expect((await fetch(`${url}/v2/compute/capabilities`)).status).to.equal(200);
      expect(await c.since(hubOf(netemu))).to.deep.equal([]);
      expect((await upgradeOutcome(wsUrlOf(url, "/nope"))).status).to.equal(404);
    });

    it("closes the connection of a refused upgrade even when the client keeps its half open", async () => {
      const connections = () => new Promise<number>((resolve) => server.getConnections((_err, n) => resolve(n)));
      const held: Socket[] = [];
      try {
        for (let i = 0; i < 5; i++) {
          const { statusLine, socket } = await refusedAndHeldOpen((server.address() as AddressInfo).port, "/v2/compute/notifications/wss");
          expect(statusLine).to.equal("HTTP/1.1 404 Not Found");
          held.push(socket);
        }
        await eventually("the refused connections to be closed", async () => (await connections()) === 0, 1000).catch(async (err: Error) => {
          throw new Error(`${err.message}: ${await connections()} still open`);
        });
      } finally {
        for (const socket of held) socket.destroy();
      }
    });

    it("closes the host's websocket clients on shutdown and refuses later upgrades with 503", async () => {
      const c = await NotificationClient.open(wsUrlOf(url));
      clients.push(c);
      await netemu.shutdown();
      expect((await c.closed).code).to.equal(1001);
      const after = await upgradeOutcome(wsUrlOf(url));
      expect(after.status).to.equal(503);
      expect(JSON.parse(after.body ?? "null")).to.deep.include({ status: 503 });
    });
  });
});
