import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { createNetemu, type Netemu, type NetemuOptions } from "../../src/adapters/composition-root.js";
import type { ServerSettings } from "../../src/application/ports/server-settings.js";

export interface Reply {
  readonly status: number;
  readonly headers: Headers;
  readonly text: string;
  /** The parsed body (undefined when empty). */
  readonly json: any;
}

export interface TestServer {
  readonly url: string;
  readonly netemu: Netemu;
  readonly configDir: string;
  request(method: string, path: string, body?: unknown, headers?: Record<string, string>): Promise<Reply>;
  /** Sends the body text as is (for malformed JSON and the like). */
  raw(method: string, path: string, text: string, headers?: Record<string, string>): Promise<Reply>;
  close(): Promise<void>;
}

/**
 * Each test server's UDP range: below the kernel's ephemeral ports (32768–60999 by default), which any
 * socket bound to port 0 (a test's peer) may take, also a port a server reserved and binds only when its
 * NIO comes (a CI run lost a test to that); above the GNS3 peer's ranges (21000+) and the 20000–30000
 * netemu serve takes by default.
 */
const UDP_RANGES_START = 30100;
const UDP_RANGES_END = 32700;
let udpBase = UDP_RANGES_START + (process.pid % 12) * 200;

/** A netemu on 127.0.0.1:0 with its own config dir and UDP range, answering real HTTP. */
export async function startTestServer(options: NetemuOptions & { settings?: Partial<ServerSettings> } = {}): Promise<TestServer> {
  // A config dir of its own unless the test gives one (which stays the test's to remove).
  const madeDir = options.settings?.configDir === undefined ? mkdtempSync(join(tmpdir(), "netemu-test-")) : undefined;
  const configDir = options.settings?.configDir ?? (madeDir as string);
  const removeMadeDir = (): void => {
    if (madeDir !== undefined) rmSync(madeDir, { recursive: true, force: true });
  };
  const start = udpBase;
  udpBase += 100;
  if (udpBase + 99 > UDP_RANGES_END) udpBase = UDP_RANGES_START;
  // Nothing outlives a server that could not start: a test may expect it to fail.
  let netemu: Netemu;
  try {
    netemu = createNetemu({
      logLevel: "silent",
      ...options,
      settings: { host: "127.0.0.1", port: 0, configDir, udpPortRange: { start, end: start + 99 }, ...options.settings },
    });
  } catch (err) {
    removeMadeDir();
    throw err;
  }
  const url = await netemu.listen(0, "127.0.0.1").then(
    (listening) => listening.url,
    async (err: unknown) => {
      await netemu.shutdown().catch(() => undefined);
      removeMadeDir();
      throw err;
    },
  );
  const send = async (method: string, path: string, text: string | undefined, headers: Record<string, string> = {}): Promise<Reply> => {
    const response = await fetch(url + path, {
      method,
      headers: text === undefined ? headers : { "Content-Type": "application/json", ...headers },
      ...(text === undefined ? {} : { body: text }),
    });
    const body = await response.text();
    let json: unknown;
    try {
      json = body === "" ? undefined : JSON.parse(body);
    } catch {
      json = undefined;
    }
    return { status: response.status, headers: response.headers, text: body, json };
  };
  return {
    url,
    netemu,
    configDir,
    request: (method, path, body, headers) => send(method, path, body === undefined ? undefined : JSON.stringify(body), headers),
    raw: (method, path, text, headers) => send(method, path, text, headers),
    async close() {
      try {
        await netemu.shutdown();
      } finally {
        removeMadeDir();
      }
    },
  };
}
