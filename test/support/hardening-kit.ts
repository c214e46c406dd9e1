import { readdirSync } from "node:fs";
import { createSocket } from "node:dgram";
import { request as httpRequest, Agent } from "node:http";
import { runInNewContext } from "node:vm";
import { setFlagsFromString } from "node:v8";
import type { Netemu } from "../../src/adapters/composition-root.js";
import { TOKENS } from "../../src/application/ports/tokens.js";
import type { UdpPortPool } from "../../src/application/ports/udp-port-pool.js";
import type { ComputeNodeRepository, ComputeProjectRepository } from "../../src/application/ports/repositories.js";

/** The seed of every property in test/hardening (override with FC_SEED=n to explore). */
export const FC_SEED = Number.parseInt(process.env["FC_SEED"] ?? "20240611", 10);

/** Open file descriptors of this process. */
export function openFds(): number {
  return readdirSync("/proc/self/fd").length;
}

/** Whether `port` can be bound on 127.0.0.1 right now (then released at once). */
export function canBindUdp(port: number, address = "127.0.0.1"): Promise<boolean> {
  return new Promise((resolve) => {
    const socket = createSocket("udp4");
    socket.once("error", () => {
      socket.close();
      resolve(false);
    });
    socket.bind({ port, address, exclusive: true }, () => socket.close(() => resolve(true)));
  });
}

/** `count` UDP ports on 127.0.0.1 that are free now, found upward from `from`. */
export async function freeUdpPorts(count: number, from: number): Promise<number[]> {
  const found: number[] = [];
  for (let port = from; found.length < count && port < 65535; port++) {
    if (await canBindUdp(port)) found.push(port);
  }
  if (found.length < count) throw new Error(`only ${found.length} free UDP ports from ${from}`);
  return found;
}

export function udpPool(netemu: Netemu): UdpPortPool {
  return netemu.container.resolve<UdpPortPool>(TOKENS.UdpPortPool);
}

export function switchRepository(netemu: Netemu): ComputeNodeRepository {
  return netemu.container.resolve<ComputeNodeRepository>(TOKENS.ComputeNodeRepository);
}

export function computeProjectRepository(netemu: Netemu): ComputeProjectRepository {
  return netemu.container.resolve<ComputeProjectRepository>(TOKENS.ComputeProjectRepository);
}

export const sleep = (ms: number): Promise<void> => new Promise((r) => setTimeout(r, ms));

/** Polls `check` until it holds or `ms` pass; answers whether it held. */
export async function eventually(check: () => boolean | Promise<boolean>, ms = 2000, every = 10): Promise<boolean> {
  const deadline = Date.now() + ms;
  for (;;) {
    if (await check()) return true;
    if (Date.now() > deadline) return false;
    await sleep(every);
  }
}

/** `global.gc`, made available without --expose-gc (V8 flag set at run time). */
export function forceGc(): () => void {
  const g = globalThis as { gc?: () => void };
  if (typeof g.gc === "function") return g.gc;
  setFlagsFromString("--expose-gc");
  return runInNewContext("gc") as () => void;
}

export interface RawReply {
  readonly status: number;
  readonly headers: Record<string, string | string[] | undefined>;
  readonly text: string;
}

const agent = new Agent({ keepAlive: true, maxSockets: 256 });

/**
 * One HTTP request with the path sent byte for byte (no URL normalisation, so `..`, `%2F` and
 * malformed escapes reach the server as written). Bounded by `timeoutMs`.
 */
export function rawHttp(base: string, method: string, path: string, body?: string, timeoutMs = 10_000): Promise<RawReply> {
  const url = new URL(base);
  return new Promise((resolve, reject) => {
    const req = httpRequest(
      {
        host: url.hostname,
        port: url.port,
        method,
        path,
        agent,
        headers: body === undefined ? {} : { "Content-Type": "application/json", "Content-Length": Buffer.byteLength(body) },
        timeout: timeoutMs,
      },
      (res) => {
        const chunks: Buffer[] = [];
        res.on("data", (c: Buffer) => chunks.push(c));
        res.on("end", () => resolve({ status: res.statusCode ?? 0, headers: res.headers, text: Buffer.concat(chunks).toString("utf8") }));
        res.on("error", reject);
      },
    );
    req.on("timeout", () => req.destroy(new Error(`${method} ${path}: no answer within ${timeoutMs} ms`)));
    req.on("error", reject);
    if (body !== undefined) req.write(body);
    req.end();
  });
}

/** Checks the error-body contract; answers a description of what is wrong, or undefined. */
export function errorBodyProblem(method: string, reply: RawReply, path = ""): string | undefined {
  if (reply.status < 400) return undefined;
  if (reply.status === 401 && !path.startsWith("/v3/")) return undefined; // GNS3's empty 401 (auth is off in these tests)
  let json: unknown;
  try {
    json = JSON.parse(reply.text);
  } catch {
    return `status ${reply.status} with a body that is not JSON: ${JSON.stringify(reply.text.slice(0, 200))}`;
  }
  if (typeof json !== "object" || json === null || Array.isArray(json)) return `error body is not an object: ${reply.text.slice(0, 200)}`;
  const b = json as Record<string, unknown>;
  // /v3/compute answers as a GNS3 3.x compute (ADR 0066): FastAPI's 422 detail list, else {"message"}.
  if (path.startsWith("/v3/")) {
    if (reply.status === 422) return Array.isArray(b["detail"]) && b["detail"].length > 0 ? undefined : `422 body has no detail list: ${reply.text.slice(0, 200)}`;
    if (typeof b["message"] !== "string") return `error body has no string message: ${reply.text.slice(0, 200)}`;
    return "status" in b ? `a /v3 error body carries a status: ${reply.text.slice(0, 200)}` : undefined;
  }
  if (typeof b["message"] !== "string") return `error body has no string message: ${reply.text.slice(0, 200)}`;
  if (b["status"] !== reply.status) return `error body status ${String(b["status"])} differs from HTTP status ${reply.status}`;
  if (reply.status === 400) {
    if (b["method"] !== method) return `400 body method ${String(b["method"])} is not ${method}`;
    if (typeof b["path"] !== "string") return `400 body path is not a string`;
    if (!("request" in b)) return `400 body has no request`;
  }
  return undefined;
}

/** Closes the shared keep-alive agent's idle sockets (call once at the end of a file). */
export function closeRawHttpAgent(): void {
  agent.destroy();
}
