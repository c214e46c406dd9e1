import { expect } from "chai";
import { randomUUID } from "node:crypto";
import { WebSocket } from "ws";
import { startTestServer, type TestServer } from "../support/http-harness.js";
import { V3_AUTH_OFF_MESSAGE } from "../../src/adapters/http/v3/auth.js";
import type { ServerSettings } from "../../src/application/ports/server-settings.js";
import type { HostLoad, HostMetrics, HostStatistics } from "../../src/application/ports/host.js";

/** A host whose figures the test knows: its disk is 73 % full. */
class KnownHost implements HostMetrics {
  load(): HostLoad {
    return { cpuUsagePercent: 12.5, memoryUsagePercent: 40 };
  }
  async statistics(): Promise<HostStatistics> {
    return {
      memoryTotal: 8,
      memoryFree: 4,
      memoryUsed: 4,
      swapTotal: 0,
      swapFree: 0,
      swapUsed: 0,
      cpuUsagePercent: 12,
      memoryUsagePercent: 40,
      swapUsagePercent: 0,
      diskUsagePercent: 73,
      loadAveragePercent: [0, 0, 0],
    };
  }
}

/**
 * /v3/compute/notifications/ws as a GNS3 3.0.6 controller opens it (controller/compute.py
 * Compute._connect_notification): Basic in the upgrade, pings carrying the disk use it reads
 * unconditionally, and 3.0.6's way of refusing credentials (accept, log.error, close 1008).
 */
const basic = (user: string, password: string): string => `Basic ${Buffer.from(`${user}:${password}`).toString("base64")}`;

interface Session {
  readonly messages: Record<string, any>[];
  readonly closed: Promise<number>;
  readonly ws: WebSocket;
  next(count: number): Promise<Record<string, any>[]>;
}

/** A client that records every message; bounded waits, closed by the test. */
function open(s: TestServer, authorization?: string): Promise<Session> {
  const ws = new WebSocket(`${s.url.replace("http", "ws")}/v3/compute/notifications/ws`, { headers: authorization === undefined ? {} : { Authorization: authorization } });
  const messages: Record<string, any>[] = [];
  const closed = new Promise<number>((resolve) => ws.once("close", (code) => resolve(code)));
  ws.on("message", (data) => messages.push(JSON.parse(String(data))));
  const next = async (count: number): Promise<Record<string, any>[]> => {
    const deadline = Date.now() + 3000;
    while (messages.length < count) {
      if (Date.now() > deadline) throw new Error(`expected ${count} messages, got ${JSON.stringify(messages)}`);
      await new Promise((r) => setTimeout(r, 10));
    }
    return messages;
  };
  return new Promise((resolve, reject) => {
    ws.once("open", () => resolve({ messages, closed, ws, next }));
    ws.once("error", reject);
  });
}

describe("/v3/compute notification websocket", () => {
  let s: TestServer;
  const start = async (settings: Partial<ServerSettings>) => (s = await startTestServer({ settings }));
  afterEach(async () => s.close());

  it("sends a ping at once with CPU, memory and disk use, each within 0..100", async () => {
    await start({ auth: { enabled: true, user: "gns3", password: "pw" } });
    const c = await open(s, basic("gns3", "pw"));
    const [ping] = await c.next(1);
    expect(ping?.["action"]).to.equal("ping");
    expect(Object.keys(ping?.["event"]).sort()).to.deep.equal(["cpu_usage_percent", "disk_usage_percent", "memory_usage_percent"]);
    for (const value of Object.values(ping?.["event"] as Record<string, number>)) expect(value).to.be.within(0, 100);
    c.ws.close();
    await c.closed;
  });

  it("puts the host's disk use in the very first ping, beside its CPU and memory use", async () => {
    s = await startTestServer({ settings: { v3: { gns3Version: "3.0.6", noAuth: true } }, overrides: { hostMetrics: new KnownHost() } });
    const c = await open(s);
    const [ping] = await c.next(1);
    expect(ping).to.deep.equal({ action: "ping", event: { cpu_usage_percent: 12.5, disk_usage_percent: 73, memory_usage_percent: 40 } });
    c.ws.close();
    await c.closed;
  });

  it("tells a node's change to the controller as node.updated", async () => {
    await start({ v3: { gns3Version: "3.0.6", noAuth: true } });
    const P = randomUUID();
    const SW = randomUUID();
    await s.request("POST", "/v3/compute/projects", { name: "p", project_id: P });
    await s.request("POST", `/v3/compute/projects/${P}/ethernet_switch/nodes`, { builtin: true, name: "SW1", node_id: SW });
    const c = await open(s);
    await c.next(1);
    expect((await s.request("PUT", `/v3/compute/projects/${P}/ethernet_switch/nodes/${SW}`, { name: "SW2" })).status).to.equal(200);
    const messages = await c.next(2);
    const updated = messages.find((m) => m["action"] === "node.updated");
    expect(updated?.["event"]).to.include({ name: "SW2", node_id: SW });
    c.ws.close();
    await c.closed;
  });

  it("accepts wrong credentials only to say why in a log.error message and close with 1008, as 3.0.6 does", async () => {
    await start({ auth: { enabled: true, user: "gns3", password: "pw" } });
    const c = await open(s, basic("gns3", "wrong"));
    expect(await c.closed).to.equal(1008);
    expect(c.messages).to.deep.equal([{ action: "log.error", event: { message: "Could not authenticate while connecting to compute WebSocket: Invalid compute username or password" } }]);
  });

  it("refuses the same way when auth is off and serving /v3 without it was not chosen", async () => {
    await start({});
    const c = await open(s, basic("gns3", "pw"));
    expect(await c.closed).to.equal(1008);
    expect(c.messages[0]?.["event"]?.["message"]).to.equal(`Could not authenticate while connecting to compute WebSocket: ${V3_AUTH_OFF_MESSAGE}`);
  });

  it("keeps the v2 websocket's pings to GNS3 2.2's two figures", async () => {
    await start({});
    const ws = new WebSocket(`${s.url.replace("http", "ws")}/v2/compute/notifications/ws`);
    const first = await new Promise<Record<string, any>>((resolve, reject) => {
      ws.once("message", (data) => resolve(JSON.parse(String(data))));
      ws.once("error", reject);
    });
    expect(Object.keys(first["event"]).sort()).to.deep.equal(["cpu_usage_percent", "memory_usage_percent"]);
    ws.close();
  });
});
