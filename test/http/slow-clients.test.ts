import { expect } from "chai";
import { request, type ClientRequest, type IncomingMessage } from "node:http";
import { WebSocket } from "ws";
import type { NotificationHub } from "../../src/application/notification-hub.js";
import { TOKENS } from "../../src/application/ports/tokens.js";
import { startTestServer, type TestServer } from "../support/http-harness.js";

/**
 * Slow clients with real sockets (issue 17, ADR 0059): compute websockets and project notification
 * streams that never read (their sockets paused) while a switch keeps changing and big log messages
 * flow; what the server holds for them stays bounded, they are let go with a proper close, and a
 * client that reads misses nothing.
 */

const WS_PATH = "/v2/compute/notifications/ws";
/** A message of the flow: big enough that the kernel's socket buffers fill within a few MB. */
const CHUNK = "x".repeat(16 * 1024);
/** The bound on what a test publishes, however the server behaves. */
const MAX_PUBLISHED = 256 * 1024 * 1024;

type Message = { action: string; event: Record<string, unknown>; project_id?: string };

const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

/** A websocket client of the compute's feed that reads everything. */
class Reader {
  readonly messages: Message[] = [];
  private constructor(readonly ws: WebSocket) {
    ws.on("message", (data) => this.messages.push(JSON.parse(data.toString()) as Message));
  }
  static open(url: string): Promise<Reader> {
    return new Promise((resolve, reject) => {
      const ws = new WebSocket(url);
      const reader = new Reader(ws);
      ws.once("open", () => resolve(reader));
      ws.once("error", reject);
    });
  }
}

/** A websocket client that stops reading once open; resumed, it tells how it was closed. */
class StalledSocket {
  readonly closed: Promise<{ code: number; reason: string }>;
  private constructor(readonly ws: WebSocket) {
    ws.on("error", () => undefined);
    ws.on("message", () => undefined);
    this.closed = new Promise((resolve) => ws.once("close", (code, reason) => resolve({ code, reason: reason.toString() })));
  }
  static open(url: string): Promise<StalledSocket> {
    return new Promise((resolve, reject) => {
      const ws = new WebSocket(url);
      const stalled = new StalledSocket(ws);
      ws.once("open", () => {
        ws.pause();
        resolve(stalled);
      });
      ws.once("unexpected-response", () => reject(new Error("upgrade refused")));
    });
  }
}

/** A reader of a project's notification stream: stalled (socket paused) or reading, it keeps every line. */
class StreamClient {
  private text = "";
  readonly ended: Promise<{ complete: boolean }>;
  private constructor(
    readonly req: ClientRequest,
    readonly res: IncomingMessage,
  ) {
    res.setEncoding("utf8");
    res.on("data", (c: string) => (this.text += c));
    res.on("error", () => undefined);
    this.ended = new Promise((resolve) => {
      res.once("end", () => resolve({ complete: res.complete }));
      res.once("close", () => resolve({ complete: res.complete }));
    });
  }
  static open(url: string, stalled: boolean): Promise<StreamClient> {
    return new Promise((resolve, reject) => {
      const req = request(url, { agent: false }, (res) => {
        if (stalled) {
          res.pause();
          res.socket.pause();
        }
        resolve(new StreamClient(req, res));
      });
      req.on("error", reject);
      req.end();
    });
  }
  resume(): void {
    this.res.socket.resume();
    this.res.resume();
  }
  /** Every complete line, parsed (a cut line would throw). */
  messages(): Message[] {
    return this.text
      .split("\n")
      .filter((l) => l !== "")
      .map((l) => JSON.parse(l) as Message);
  }
  get endsWithNewline(): boolean {
    return this.text.endsWith("\n");
  }
}

/** The `netemu_notification_clients` gauge, by kind. */
async function clientGauge(s: TestServer): Promise<Record<string, number>> {
  const text = await (await fetch(`${s.url}/metrics`)).text();
  const out: Record<string, number> = {};
  for (const m of text.matchAll(/^netemu_notification_clients\{kind="(\w+)"\} (\d+)$/gm)) out[m[1]!] = Number(m[2]);
  return out;
}

/** A sample of the server's own figures, from its Prometheus exposition. */
async function figures(s: TestServer): Promise<{ drops: Map<string, number>; served: number; dropped: number }> {
  const text = await (await fetch(`${s.url}/metrics`)).text();
  const drops = new Map<string, number>();
  let served = NaN;
  let dropped = NaN;
  for (const line of text.split("\n")) {
    const d = /^netemu_notification_clients_dropped_total\{kind="(\w+)",reason="(\w+)"\} (\d+)$/.exec(line);
    if (d !== null) drops.set(`${d[1]}/${d[2]}`, Number(d[3]));
    const q = /^netemu_notification_queued_bytes\{clients="(\w+)"\} (\d+)$/.exec(line);
    if (q !== null) (q[1] === "served" ? (served = Number(q[2])) : (dropped = Number(q[2])));
  }
  return { drops, served, dropped };
}

const sum = (m: Map<string, number>) => [...m.values()].reduce((a, b) => a + b, 0);

describe("HTTP: notification clients that do not read, with real sockets", function () {
  this.timeout(90_000);
  let s: TestServer;
  let project: string;
  let switchPath: string;
  let hub: NotificationHub;
  const toClose: (() => void)[] = [];

  const start = async (limits: { perClientBytes: number; totalBytes: number }) => {
    s = await startTestServer({ notificationBacklog: { ...limits, dropGraceMs: 20_000 } });
    hub = s.netemu.container.resolve<NotificationHub>(TOKENS.Notifications);
    project = (await s.request("POST", "/v2/compute/projects", { name: "slow" })).json.project_id;
    const sw = await s.request("POST", `/v2/compute/projects/${project}/ethernet_switch/nodes`, { name: "SW-0" });
    switchPath = `/v2/compute/projects/${project}/ethernet_switch/nodes/${sw.json.node_id}`;
  };
  const wsUrl = () => s.url.replace(/^http/, "ws") + WS_PATH;
  const streamUrl = () => `${s.url}/v2/compute/projects/${project}/notifications`;

  afterEach(async () => {
    for (const close of toClose.splice(0)) close();
    await s.close();
  });

  /**
   * Changes the switch and publishes big log messages turn after turn until `done` says so; checks
   * `/v2/version` answers on every turn and hands each turn's server figures to `sample`.
   */
  async function flow(done: (f: Awaited<ReturnType<typeof figures>>) => boolean, sample: (f: Awaited<ReturnType<typeof figures>>) => void) {
    let published = 0;
    let renames = 0;
    let logs = 0;
    for (;;) {
      const f = await figures(s);
      sample(f);
      if (done(f)) break;
      if (published > MAX_PUBLISHED) throw new Error(`not done after ${published} bytes: ${JSON.stringify([...f.drops])}`);
      renames += 1;
      expect((await s.request("PUT", switchPath, { name: `SW-${renames}` })).status).to.equal(200);
      // A few messages a turn, well under a client's bound: a reader takes them between turns.
      for (let i = 0; i < 4; i++) {
        hub.publish({ kind: "log", severity: "info", message: `flow ${logs} ${CHUNK}`, projectId: project });
        logs += 1;
        published += CHUNK.length;
      }
      expect((await s.request("GET", "/v2/version")).status).to.equal(200);
    }
    return { renames, logs };
  }

  /** A reader got every rename and every log of the flow, in order. */
  function expectEverything(messages: readonly Message[], flowed: { renames: number; logs: number }, what: string) {
    const renamed = messages.filter((m) => m.action === "node.updated").map((m) => m.event["name"]);
    expect(renamed, `${what}: node.updated`).to.deep.equal(Array.from({ length: flowed.renames }, (_, i) => `SW-${i + 1}`));
    const logged = messages.filter((m) => m.action === "log.info" && String(m.event["message"]).startsWith("flow ")).map((m) => Number(String(m.event["message"]).split(" ")[1]));
    expect(logged, `${what}: log messages`).to.deep.equal(Array.from({ length: flowed.logs }, (_, i) => i));
  }

  /** Waits until the readers got the marker published after the flow, so all that came before. */
  async function drained(reader: Reader, streamReader: StreamClient) {
    hub.publish({ kind: "log", severity: "info", message: "end of flow", projectId: project });
    const deadline = Date.now() + 20_000;
    const got = (ms: readonly Message[]) => ms.some((m) => m.event["message"] === "end of flow");
    while (!got(reader.messages) || !got(streamReader.messages())) {
      if (Date.now() > deadline) throw new Error("the readers did not get the end of the flow");
      await sleep(20);
    }
  }

  it("counts each client while it is served, and forgets it when it goes, when its project is unknown or when it asked only HEAD", async () => {
    await start({ perClientBytes: 1024 * 1024, totalBytes: 64 * 1024 * 1024 });
    const reader = await Reader.open(wsUrl());
    const streamReader = await StreamClient.open(streamUrl(), false);
    toClose.push(() => reader.ws.terminate(), () => streamReader.req.destroy());
    expect(await clientGauge(s)).to.deep.equal({ websocket: 1, stream: 1 });
    const unknown = await s.request("GET", "/v2/compute/projects/00000000-0000-4000-8000-000000000999/notifications");
    expect(unknown.status).to.equal(404);
    expect(await clientGauge(s)).to.deep.equal({ websocket: 1, stream: 1 });
    // HEAD answers the headers and ends, following nothing.
    const head = await fetch(streamUrl(), { method: "HEAD" });
    expect([head.status, head.headers.get("content-type")]).to.deep.equal([200, "application/json"]);
    expect(await clientGauge(s)).to.deep.equal({ websocket: 1, stream: 1 });
    reader.ws.terminate();
    streamReader.req.destroy();
    const deadline = Date.now() + 5000;
    while (JSON.stringify(await clientGauge(s)) !== JSON.stringify({ websocket: 0, stream: 0 })) {
      if (Date.now() > deadline) throw new Error(`still counted: ${JSON.stringify(await clientGauge(s))}`);
      await sleep(20);
    }
    expect((await figures(s)).served).to.equal(0);
  });

  it("drops each stalled websocket and stream at its own bound, closed properly, while a reader gets every event and /v2/version answers", async () => {
    const perClientBytes = 256 * 1024;
    await start({ perClientBytes, totalBytes: 1024 * 1024 * 1024 });
    const reader = await Reader.open(wsUrl());
    const streamReader = await StreamClient.open(streamUrl(), false);
    const sockets = await Promise.all(Array.from({ length: 6 }, () => StalledSocket.open(wsUrl())));
    const streams = await Promise.all(Array.from({ length: 3 }, () => StreamClient.open(streamUrl(), true)));
    toClose.push(() => reader.ws.terminate(), () => streamReader.req.destroy(), ...sockets.map((c) => () => c.ws.terminate()), ...streams.map((c) => () => c.req.destroy()));

    // What is queued for the clients served never passes their bounds (one message of slack each).
    const slack = CHUNK.length + 1024;
    const flowed = await flow(
      (f) => sum(f.drops) >= 9,
      (f) => expect(f.served).to.be.at.most(11 * (perClientBytes + slack)),
    );
    const f = await figures(s);
    expect(Object.fromEntries(f.drops)).to.deep.equal({
      "websocket/client_backlog": 6,
      "websocket/total_backlog": 0,
      "stream/client_backlog": 3,
      "stream/total_backlog": 0,
    });

    await drained(reader, streamReader);
    expectEverything(reader.messages, flowed, "the websocket reader");
    expectEverything(streamReader.messages(), flowed, "the stream reader");

    // Resumed within the grace, the stalled ones read what was queued, then a proper end.
    for (const c of sockets) c.ws.resume();
    for (const c of streams) c.resume();
    for (const c of sockets) {
      const closed = await c.closed;
      expect(closed.code).to.equal(1013);
      expect(closed.reason).to.match(/too slow/);
    }
    for (const c of streams) {
      expect(await c.ended).to.deep.equal({ complete: true });
      expect(c.endsWithNewline).to.equal(true);
      expect(() => c.messages()).to.not.throw();
    }
  });

  it("drops the stalled clients most behind first when all together pass the total, and never the reader", async () => {
    const totalBytes = 1024 * 1024;
    await start({ perClientBytes: 1024 * 1024 * 1024, totalBytes });
    const reader = await Reader.open(wsUrl());
    const streamReader = await StreamClient.open(streamUrl(), false);
    const sockets = await Promise.all(Array.from({ length: 6 }, () => StalledSocket.open(wsUrl())));
    const streams = await Promise.all(Array.from({ length: 2 }, () => StreamClient.open(streamUrl(), true)));
    toClose.push(() => reader.ws.terminate(), () => streamReader.req.destroy(), ...sockets.map((c) => () => c.ws.terminate()), ...streams.map((c) => () => c.req.destroy()));

    const flowed = await flow(
      (f) => sum(f.drops) >= 8,
      // The total bounds what is queued for the clients still served, at every moment.
      (f) => expect(f.served).to.be.at.most(totalBytes),
    );
    const f = await figures(s);
    expect(Object.fromEntries(f.drops)).to.deep.equal({
      "websocket/client_backlog": 0,
      "websocket/total_backlog": 6,
      "stream/client_backlog": 0,
      "stream/total_backlog": 2,
    });
    expect(f.dropped, "the dropped clients' backlogs, until their grace ends").to.be.above(0);

    await drained(reader, streamReader);
    expectEverything(reader.messages, flowed, "the websocket reader");
    expectEverything(streamReader.messages(), flowed, "the stream reader");
    for (const c of sockets) c.ws.resume();
    for (const c of sockets) expect((await c.closed).code).to.equal(1013);
  });
});
