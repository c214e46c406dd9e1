/**
 * The processes of the HTTP benchmark, one role per process (argv[2]):
 *   netemu  the netemu GNS3 API (createNetemu().listen) on 127.0.0.1;
 *   bare    a bare node:http server answering the same JSON on the same paths;
 *   koa     a minimal Koa app (koa + @koa/router + koa-bodyparser) answering the same JSON;
 *   load    the load generator: N concurrent keep-alive connections (node:http Agent) in a loop.
 * The baselines open and close a real UDP socket on the NIO routes, as netemu does.
 */
import "reflect-metadata";
import { createServer, request, Agent, type IncomingMessage, type ServerResponse } from "node:http";
import { createSocket, type Socket } from "node:dgram";
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import type { AddressInfo } from "node:net";
import { serveIpc, monoMs, percentile } from "./lib/util.js";

export interface Bodies {
  readonly version: string;
  readonly filters: string;
}

const NIO_PATH = /^\/v2\/compute\/projects\/[^/]+\/ethernet_switch\/nodes\/[^/]+\/adapters\/(\d+)\/ports\/(\d+)\/nio$/;
const FILTERS_PATH = /^\/v2\/projects\/[^/]+\/links\/[^/]+\/available_filters$/;

/** The NIO endpoints of the baselines: a UDP socket bound to lport and connected to rhost:rport. */
class Nios {
  private readonly open = new Map<string, Socket>();

  async add(key: string, body: { lport: number; rhost: string; rport: number; type: string }): Promise<string> {
    const socket = createSocket("udp4");
    await new Promise<void>((resolve, reject) => {
      socket.once("error", reject);
      socket.bind({ port: body.lport, address: "127.0.0.1", exclusive: true }, () => {
        socket.off("error", reject);
        resolve();
      });
    });
    await new Promise<void>((resolve, reject) => socket.connect(body.rport, body.rhost, (err?: Error) => (err ? reject(err) : resolve())));
    socket.on("error", () => undefined);
    this.open.set(key, socket);
    return JSON.stringify({ filters: {}, lport: body.lport, rhost: body.rhost, rport: body.rport, suspend: false, type: body.type }, null, 4);
  }

  async remove(key: string): Promise<void> {
    const s = this.open.get(key);
    this.open.delete(key);
    if (s !== undefined) await new Promise<void>((r) => s.close(() => r()));
  }
}

function readBody(req: IncomingMessage): Promise<string> {
  return new Promise((resolve, reject) => {
    let data = "";
    req.setEncoding("utf8");
    req.on("data", (c: string) => (data += c));
    req.on("end", () => resolve(data));
    req.on("error", reject);
  });
}

function listen(server: ReturnType<typeof createServer>): Promise<string> {
  return new Promise((resolve) => server.listen(0, "127.0.0.1", () => resolve(`http://127.0.0.1:${(server.address() as AddressInfo).port}`)));
}

async function bare(bodies: Bodies): Promise<void> {
  const nios = new Nios();
  const json = (res: ServerResponse, status: number, body: string): void => {
    res.writeHead(status, { "content-type": "application/json", "content-length": Buffer.byteLength(body) });
    res.end(body);
  };
  const server = createServer((req, res) => {
    const url = req.url ?? "/";
    if (req.method === "GET" && url === "/v2/version") return json(res, 200, bodies.version);
    if (req.method === "GET" && FILTERS_PATH.test(url)) return json(res, 200, bodies.filters);
    if (NIO_PATH.test(url)) {
      if (req.method === "POST") {
        void readBody(req)
          .then((b) => nios.add(url, JSON.parse(b) as never))
          .then((out) => json(res, 201, out), (err: unknown) => json(res, 409, JSON.stringify({ message: String(err), status: 409 })));
        return;
      }
      if (req.method === "DELETE") {
        void nios.remove(url).then(() => {
          res.writeHead(204);
          res.end();
        });
        return;
      }
    }
    json(res, 404, JSON.stringify({ message: "not found", status: 404 }));
  });
  server.keepAliveTimeout = 5000;
  const url = await listen(server);
  serveIpc({ info: () => ({ url }) }, async () => void server.close());
}

async function koa(bodies: Bodies): Promise<void> {
  const { default: Koa } = await import("koa");
  const { default: Router } = await import("@koa/router");
  const { default: bodyParser } = await import("koa-bodyparser");
  const nios = new Nios();
  const app = new Koa();
  app.silent = true;
  const router = new Router();
  const version = JSON.parse(bodies.version) as unknown;
  const filters = JSON.parse(bodies.filters) as unknown;
  router.get("/v2/version", (ctx) => {
    ctx.body = version;
  });
  router.get("/v2/projects/:p/links/:l/available_filters", (ctx) => {
    ctx.body = filters;
  });
  const nioPath = "/v2/compute/projects/:p/ethernet_switch/nodes/:n/adapters/:a/ports/:port/nio";
  router.post(nioPath, async (ctx) => {
    ctx.status = 201;
    ctx.body = JSON.parse(await nios.add(ctx.path, ctx.request.body as never)) as unknown;
  });
  router.delete(nioPath, async (ctx) => {
    await nios.remove(ctx.path);
    ctx.status = 204;
  });
  app.use(bodyParser());
  app.use(router.routes());
  app.use(router.allowedMethods());
  const server = createServer(app.callback());
  server.keepAliveTimeout = 5000;
  const url = await listen(server);
  serveIpc({ info: () => ({ url }) }, async () => void server.close());
}

async function netemu(): Promise<void> {
  const { createNetemu } = await import("../src/adapters/composition-root.js");
  const configDir = mkdtempSync(join(tmpdir(), "netemu-httpbench-"));
  const n = createNetemu({ logLevel: "silent", settings: { configDir, udpPortRange: { start: 25000, end: 25999 } } });
  const { url } = await n.listen(0, "127.0.0.1");
  serveIpc({ info: () => ({ url }) }, async () => {
    await n.shutdown();
    rmSync(configDir, { recursive: true, force: true });
  });
}

export interface LoadResult {
  /** Completed operations (a request, or a POST+DELETE cycle) per second. */
  opsPerSec: number;
  ops: number;
  errors: number;
  /** Latency of one operation, ms. */
  p50: number;
  p99: number;
  max: number;
  cpuPct: number;
  firstError?: string;
}

interface LoadArgs {
  base: string;
  scenario: "get" | "nio";
  /** GET: the path; NIO: the port's NIO path with `{port}` for the switch port. */
  path: string;
  concurrency: number;
  durationMs: number;
  lportBase?: number;
}

function load(): void {
  serveIpc({
    run: async (a: LoadArgs): Promise<LoadResult> => {
      const target = new URL(a.base);
      const agent = new Agent({ keepAlive: true, maxSockets: a.concurrency, maxFreeSockets: a.concurrency });
      const call = (method: string, path: string, body?: string): Promise<{ status: number; text: string }> =>
        new Promise((resolve, reject) => {
          const headers: Record<string, string | number> = {};
          if (body !== undefined) {
            headers["content-type"] = "application/json";
            headers["content-length"] = Buffer.byteLength(body);
          }
          const req = request({ host: target.hostname, port: target.port, method, path, agent, headers }, (res) => {
            let text = "";
            res.setEncoding("utf8");
            res.on("data", (c: string) => (text += c));
            res.on("end", () => resolve({ status: res.statusCode ?? 0, text }));
          });
          req.on("error", reject);
          req.end(body);
        });
      const latencies: number[] = [];
      let errors = 0;
      let firstError: string | undefined;
      const fail = (what: string): void => {
        errors++;
        firstError ??= what;
      };
      const cpu0 = process.cpuUsage();
      const start = monoMs();
      const deadline = start + a.durationMs;
      const worker = async (w: number): Promise<void> => {
        let i = 0;
        while (monoMs() < deadline) {
          const t0 = monoMs();
          try {
            if (a.scenario === "get") {
              const r = await call("GET", a.path);
              if (r.status !== 200) fail(`${r.status} ${r.text}`);
            } else {
              const path = a.path.replace("{port}", String(w));
              const lport = (a.lportBase ?? 25000) + 2 * w + (i % 2);
              const body = JSON.stringify({ type: "nio_udp", lport, rhost: "127.0.0.1", rport: 9 });
              const r1 = await call("POST", path, body);
              if (r1.status !== 201) fail(`POST ${r1.status} ${r1.text}`);
              const r2 = await call("DELETE", path);
              if (r2.status !== 204) fail(`DELETE ${r2.status} ${r2.text}`);
            }
          } catch (err) {
            fail(String(err));
          }
          latencies.push(monoMs() - t0);
          i++;
        }
      };
      await Promise.all(Array.from({ length: a.concurrency }, (_, w) => worker(w)));
      const wall = monoMs() - start;
      const c = process.cpuUsage(cpu0);
      agent.destroy();
      latencies.sort((x, y) => x - y);
      const out: LoadResult = {
        opsPerSec: (latencies.length / wall) * 1000,
        ops: latencies.length,
        errors,
        p50: percentile(latencies, 50),
        p99: percentile(latencies, 99),
        max: percentile(latencies, 100),
        cpuPct: ((c.user + c.system) / 1000 / wall) * 100,
      };
      if (firstError !== undefined) out.firstError = firstError;
      return out;
    },
  });
}

const role = process.argv[2];
const bodies = JSON.parse(process.argv[3] ?? "{}") as Bodies;
if (role === "netemu") await netemu();
else if (role === "bare") await bare(bodies);
else if (role === "koa") await koa(bodies);
else if (role === "load") load();
else throw new Error(`unknown role ${role}`);
