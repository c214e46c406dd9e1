/**
 * Slow clients (issue 17): netemu's resident memory and GET /v2/version latency while a switch's
 * node.updated notifications flow, first with no notification client but one reader, then with
 * 500 compute websockets and 100 project notification streams that never read (their sockets
 * paused), in the same run against the same server process. A reading websocket client counts the
 * node.updated it got, against the updates made.
 *
 *   node build/bench/slow-clients.js [--quick] [--ws N] [--streams N] [--seconds S]
 */
import { request, type ClientRequest, type IncomingMessage } from "node:http";
import { WebSocket } from "ws";
import { Child, fmt, markdownTable, monoMs, percentile, sleep } from "./lib/util.js";

const argv = process.argv.slice(2);
const QUICK = argv.includes("--quick");
const opt = (name: string, dflt: number): number => {
  const at = argv.indexOf(name);
  return at >= 0 ? Number(argv[at + 1]) : dflt;
};
const WS_CLIENTS = opt("--ws", 500);
const STREAM_CLIENTS = opt("--streams", 100);
const SECONDS = opt("--seconds", QUICK ? 8 : 25);
const BASELINE_SECONDS = QUICK ? 4 : 10;
/** Ports of the switch whose updates are the notifications (a node.updated grows with them). */
const PORTS = opt("--ports", 64);
/** Updates in flight at once, each followed by a pause (one node.updated each). */
const UPDATERS = opt("--updaters", 4);
const UPDATE_EVERY_MS = 1;

const started = monoMs();
const log = (s: string): void => void process.stderr.write(`[${((monoMs() - started) / 1000).toFixed(0).padStart(4)} s] ${s}\n`);

async function call(url: string, method: string, body?: unknown): Promise<Record<string, unknown>> {
  const r = await fetch(url, { method, body: body === undefined ? undefined : JSON.stringify(body), headers: { "content-type": "application/json" } });
  const text = await r.text();
  if (r.status >= 300) throw new Error(`${method} ${url}: ${r.status} ${text}`);
  return text === "" ? {} : (JSON.parse(text) as Record<string, unknown>);
}

/** One GET on a fresh connection; its time in ms. */
function timedGet(url: string): Promise<number> {
  return new Promise((resolve, reject) => {
    const t0 = monoMs();
    const req = request(url, { agent: false }, (res) => {
      res.resume();
      res.on("end", () => resolve(monoMs() - t0));
    });
    req.on("error", reject);
    req.end();
  });
}

interface Phase {
  readonly name: string;
  readonly updates: number;
  readonly versionMs: number[];
  /** When each probe was sent, ms from the phase's start. */
  readonly versionAt: number[];
  readonly rssMb: number[];
}

async function runPhase(name: string, server: Child, base: string, switchUrl: string, seconds: number): Promise<Phase> {
  const versionMs: number[] = [];
  const versionAt: number[] = [];
  const rssMb: number[] = [];
  const phaseStart = monoMs();
  let updates = 0;
  let running = true;
  const churn = Promise.all(Array.from({ length: UPDATERS }, async () => {
    while (running) {
      // A new name each time: every update is a node.updated.
      const name = `SW-${(nextName += 1)}`;
      await call(switchUrl, "PUT", { name });
      updates += 1;
      await sleep(UPDATE_EVERY_MS);
    }
  }));
  const probe = (async () => {
    while (running) {
      versionAt.push(monoMs() - phaseStart);
      versionMs.push(await timedGet(`${base}/v2/version`));
      await sleep(20);
    }
  })();
  const sample = (async () => {
    while (running) {
      rssMb.push((await server.call<number>("rss")) / 2 ** 20);
      await sleep(250);
    }
  })();
  await sleep(seconds * 1000);
  running = false;
  await Promise.all([churn, probe, sample]);
  log(`${name}: ${updates} updates, ${versionMs.length} version probes`);
  return { name, updates, versionMs, versionAt, rssMb };
}

let nextName = 0;

/** A websocket client that stops reading as soon as it is open. */
function stalledSocket(url: string): Promise<WebSocket> {
  return new Promise((resolve, reject) => {
    const ws = new WebSocket(url);
    ws.on("error", () => undefined);
    ws.once("open", () => {
      ws.pause();
      resolve(ws);
    });
    ws.once("unexpected-response", () => reject(new Error("upgrade refused")));
  });
}

/** A project notification stream whose reader stops reading as soon as the answer starts. */
function stalledStream(url: string): Promise<{ req: ClientRequest; res: IncomingMessage }> {
  return new Promise((resolve, reject) => {
    const req = request(url, { agent: false }, (res) => {
      res.pause();
      res.socket.pause();
      resolve({ req, res });
    });
    req.on("error", reject);
    req.end();
  });
}

function metric(text: string, name: string): string {
  const lines = text.split("\n").filter((l) => l.startsWith(name));
  return lines.length === 0 ? "(none)" : lines.map((l) => l.slice(name.length)).join(", ");
}

async function main(): Promise<void> {
  log(`ports=${PORTS} updaters=${UPDATERS} ws=${WS_CLIENTS} streams=${STREAM_CLIENTS} seconds=${SECONDS} baseline=${BASELINE_SECONDS}`);
  const server = await Child.start(import.meta.url, "./slow-clients-child.js", [], "netemu");
  try {
    const base = (await server.call<{ url: string }>("start")).url;
    const project = (await call(`${base}/v2/compute/projects`, "POST", { name: "slow" }))["project_id"] as string;
    const ports_mapping = Array.from({ length: PORTS }, (_, i) => ({ name: `Ethernet${i}`, port_number: i, type: "access", vlan: 1 }));
    const nodes = `${base}/v2/compute/projects/${project}/ethernet_switch/nodes`;
    const node = (await call(nodes, "POST", { name: "SW-0", ports_mapping }))["node_id"] as string;
    const switchUrl = `${nodes}/${node}`;
    const wsUrl = `${base.replace(/^http/, "ws")}/v2/compute/notifications/ws`;

    // One client that reads everything, in both phases.
    let readerUpdates = 0;
    const reader = new WebSocket(wsUrl);
    reader.on("message", (data) => {
      if ((JSON.parse(data.toString()) as { action: string }).action === "node.updated") readerUpdates += 1;
    });
    await new Promise((r) => reader.once("open", r));

    const idleRss = (await server.call<number>("rss")) / 2 ** 20;
    const baseline = await runPhase("baseline", server, base, switchUrl, BASELINE_SECONDS);
    const readerBaseline = readerUpdates;

    log(`opening ${WS_CLIENTS} stalled websockets and ${STREAM_CLIENTS} stalled streams`);
    const sockets: WebSocket[] = [];
    for (let i = 0; i < WS_CLIENTS; i += 50) sockets.push(...(await Promise.all(Array.from({ length: Math.min(50, WS_CLIENTS - i) }, () => stalledSocket(wsUrl)))));
    const streams = await Promise.all(Array.from({ length: STREAM_CLIENTS }, () => stalledStream(`${base}/v2/compute/projects/${project}/notifications`)));
    const beforeStall = readerUpdates;
    const stalled = await runPhase("stalled", server, base, switchUrl, SECONDS);
    await sleep(500);
    const readerStalled = readerUpdates - beforeStall;
    const metrics = await (await fetch(`${base}/metrics`)).text();

    const row = (p: Phase, got: number): string[] => {
      const sorted = [...p.versionMs].sort((a, b) => a - b);
      const rss = [...p.rssMb].sort((a, b) => a - b);
      return [p.name, fmt(p.updates), `${fmt(got)}`, fmt(percentile(sorted, 50), 1), fmt(percentile(sorted, 99), 1), fmt(sorted[sorted.length - 1] ?? NaN, 1), fmt(rss[rss.length - 1] ?? NaN), fmt(p.rssMb[p.rssMb.length - 1] ?? NaN)];
    };
    console.log(`\nidle RSS ${fmt(idleRss)} MB; ${WS_CLIENTS} stalled websockets + ${STREAM_CLIENTS} stalled streams for ${SECONDS} s\n`);
    // The stalled phase again, split: its first 5 s (the clients fill their sockets and are dropped) and the rest.
    const part = (label: string, keep: (at: number) => boolean): Phase => ({
      ...stalled,
      name: label,
      versionMs: stalled.versionMs.filter((_, i) => keep(stalled.versionAt[i] ?? 0)),
    });
    console.log(markdownTable(
      ["phase", "node updates", "reader got", "/v2/version p50 ms", "p99 ms", "max ms", "peak RSS MB", "end RSS MB"],
      [row(baseline, readerBaseline), row(stalled, readerStalled), row(part("stalled, first 5 s", (at) => at < 5000), readerStalled), row(part("stalled, after 5 s", (at) => at >= 5000), readerStalled)],
    ));
    console.log(`\nslow clients dropped: ${metric(metrics, "netemu_notification_clients_dropped_total")}`);
    console.log(`bytes queued at the end: ${metric(metrics, "netemu_notification_queued_bytes")}`);
    for (const ws of sockets) ws.terminate();
    for (const s of streams) s.req.destroy();
    reader.terminate();
  } finally {
    await server.stop();
  }
}

main().then(
  () => process.exit(0),
  (err: unknown) => {
    console.error(err);
    process.exit(1);
  },
);
