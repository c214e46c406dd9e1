import { spawn, type ChildProcess } from "node:child_process";
import { accessSync, closeSync, constants, mkdtempSync, openSync, readdirSync, readFileSync, readlinkSync, rmSync, writeFileSync } from "node:fs";
import { createServer, type Server } from "node:net";
import { tmpdir } from "node:os";
import { join, sep } from "node:path";

/** Where `../shared/gns3-peer/install.sh` built GNS3 2.2.59, uBridge and VPCS 0.8.3. */
export function gns3PeerPrefix(): string {
  return process.env["GNS3_PEER_PREFIX"] ?? "/opt/gns3-peer";
}

/** Whether the GNS3 peer is built; under CI a missing one fails instead of skipping. */
export function requireGns3Peer(ctx: Mocha.Context): void {
  const prefix = gns3PeerPrefix();
  const missing = ["gns3server", "ubridge", "vpcs"].filter((b) => !isExecutable(join(prefix, "bin", b)));
  if (missing.length === 0) return;
  const message =
    `the GNS3 peer is missing (${missing.map((b) => `${prefix}/bin/${b}`).join(", ")}): ` +
    `build it with \`bash ../shared/gns3-peer/install.sh /opt/gns3-peer\`, or set GNS3_PEER_PREFIX to where it is built`;
  if (process.env["CI"] === "true") throw new Error(`${message} (CI=true: a missing peer fails the run)`);
  console.log(`      skipped: ${message}`);
  ctx.skip();
}

function isExecutable(path: string): boolean {
  try {
    accessSync(path, constants.X_OK);
    return true;
  } catch {
    return false;
  }
}

const sleep = (ms: number): Promise<void> => new Promise((r) => setTimeout(r, ms));

/** Calls `probe` every 100 ms until it answers something other than undefined; throws naming `what` after `ms`. */
export async function waitUntil<T>(what: string, probe: () => Promise<T | undefined>, ms: number): Promise<T> {
  const deadline = Date.now() + ms;
  for (;;) {
    const value = await probe();
    if (value !== undefined) return value;
    if (Date.now() >= deadline) throw new Error(`timed out after ${ms} ms waiting for ${what}`);
    await sleep(100);
  }
}

export interface Gns3Reply {
  readonly status: number;
  /** The parsed body (undefined when empty or not JSON). */
  readonly json: any;
  readonly text: string;
  readonly headers: Headers;
}

/**
 * GNS3's UDP and console port ranges. With none given, the server takes a free 100-port slice of each
 * default range (UDP 21000–21999, consoles 5100–5999), so that concurrent test runs do not collide.
 */
export interface Gns3ServerOptions {
  readonly udpStart?: number;
  readonly udpEnd?: number;
  readonly consoleStart?: number;
  readonly consoleEnd?: number;
}

/** A free TCP port on 127.0.0.1 (listen on port 0, read it, close). */
async function freeTcpPort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const server = createServer();
    server.once("error", reject);
    server.listen(0, "127.0.0.1", () => {
      const address = server.address();
      const port = typeof address === "object" && address !== null ? address.port : 0;
      server.close(() => (port > 0 ? resolve(port) : reject(new Error("no port from listen(0)"))));
    });
  });
}

interface PortRanges {
  readonly udpStart: number;
  readonly udpEnd: number;
  readonly consoleStart: number;
  readonly consoleEnd: number;
}

/** Listens on 127.0.0.1:port, or answers undefined when the port is taken. */
function tryListen(port: number): Promise<Server | undefined> {
  return new Promise((resolve) => {
    const server = createServer();
    server.once("error", () => resolve(undefined));
    server.listen(port, "127.0.0.1", () => resolve(server.unref()));
  });
}

const SLOTS = 9;
let nextSlot = process.pid % SLOTS;

/**
 * Default port ranges: a 100-port slice of 21000–21999 (UDP) and of 5100–5999 (consoles), one slice per
 * running server. GNS3 reserves a port when a node is created but binds it only when the node starts,
 * so two servers on the whole range hand out the same 5100 and one fails with EADDRINUSE. A slice is
 * claimed by listening on its last console port, which also frees it if the test process dies.
 */
async function claimSlice(): Promise<{ ranges: PortRanges; lock: Server }> {
  for (let tried = 0; tried < SLOTS; tried++) {
    const slot = nextSlot;
    nextSlot = (nextSlot + 1) % SLOTS;
    const consoleStart = 5100 + slot * 100;
    const lock = await tryListen(consoleStart + 99);
    if (lock) return { ranges: { udpStart: 21000 + slot * 100, udpEnd: 21099 + slot * 100, consoleStart, consoleEnd: consoleStart + 98 }, lock };
  }
  throw new Error("all 9 default port slices (consoles 5100–5999, UDP 21000–21999) are in use: stop other GNS3 peers or pass explicit ranges");
}

/** The last `lines` lines of a text, for error messages. */
function tail(text: string, lines = 40): string {
  return text.split("\n").slice(-lines - 1).join("\n");
}

interface ProcessIdentity {
  readonly pid: number;
  /** Start time in clock ticks since boot: tells a process from a later one that reuses its pid. */
  readonly startTime: string;
}

/** State, process group and start time of a live (non-zombie) process, from /proc/<pid>/stat. */
function readStat(pid: number): { pgrp: number; startTime: string } | undefined {
  try {
    const stat = readFileSync(`/proc/${pid}/stat`, "utf8");
    const fields = stat.slice(stat.lastIndexOf(")") + 2).split(" ");
    if (fields[0] === "Z" || fields[0] === "X") return undefined;
    return { pgrp: Number(fields[2]), startTime: fields[19] ?? "" };
  } catch {
    return undefined;
  }
}

function isAlive(p: ProcessIdentity): boolean {
  return readStat(p.pid)?.startTime === p.startTime;
}

function signal(pid: number, sig: NodeJS.Signals): void {
  try {
    process.kill(pid, sig);
  } catch {
    /* already gone */
  }
}

/** Servers not stopped yet, killed synchronously if the test process exits without stopping them. */
const live = new Set<Gns3Server>();
let exitHookInstalled = false;

/**
 * A real GNS3 2.2.59 server (controller and local compute in one process) in its own temporary directory
 * and process group, on 127.0.0.1. GNS3 starts uBridge and VPCS as its children; VPCS calls setsid()
 * and so leaves the group, which is why stop() also ends, by pid, every process working inside the
 * temporary directory (GNS3 is started there and its children inherit or move deeper into it).
 */
export class Gns3Server {
  readonly url: string;
  private child: ChildProcess | undefined;
  private stopping: Promise<void> | undefined;
  /** Holds this server's default port slice (see claimSlice). */
  private lock: Server | undefined;

  private constructor(
    readonly port: number,
    readonly dir: string,
  ) {
    this.url = `http://127.0.0.1:${port}`;
  }

  static async start(options: Gns3ServerOptions = {}): Promise<Gns3Server> {
    const prefix = gns3PeerPrefix();
    const dir = mkdtempSync(join(tmpdir(), "netemu-gns3-"));
    let server: Gns3Server | undefined;
    try {
      server = new Gns3Server(await freeTcpPort(), dir);
      live.add(server);
      installExitHook();
      let ranges: PortRanges;
      if (Object.values(options).every((v) => v === undefined)) {
        const claimed = await claimSlice();
        server.lock = claimed.lock;
        ranges = claimed.ranges;
      } else {
        const { udpStart = 21000, udpEnd = 21999, consoleStart = 5100, consoleEnd = 5999 } = options;
        ranges = { udpStart, udpEnd, consoleStart, consoleEnd };
      }
      writeFileSync(join(dir, "gns3_server.conf"), serverConf(prefix, dir, server.port, ranges));
      // stdout/stderr append to the same log as GNS3's own logging, so a crash before logging starts shows too.
      const out = openSync(join(dir, "gns3.log"), "a");
      try {
        server.child = spawn(join(prefix, "bin", "gns3server"), ["--config", join(dir, "gns3_server.conf"), "--log", join(dir, "gns3.log")], {
          cwd: dir,
          detached: true,
          stdio: ["ignore", out, out],
        });
      } finally {
        closeSync(out);
      }
      const child = server.child;
      child.on("error", () => undefined); // a failed spawn is reported through exitCode below
      const url = server.url;
      try {
        await waitUntil(
          `GNS3 to answer GET ${url}/v2/version`,
          async () => {
            if (child.exitCode !== null || child.signalCode !== null || child.pid === undefined) {
              throw new Error(`gns3server exited (${child.exitCode ?? child.signalCode ?? "did not start"}) before answering ${url}/v2/version`);
            }
            try {
              const r = await fetch(`${url}/v2/version`, { signal: AbortSignal.timeout(2000) });
              await r.text();
              return r.status === 200 ? true : undefined;
            } catch {
              return undefined; // not listening yet
            }
          },
          30_000,
        );
      } catch (e) {
        throw new Error(`${(e as Error).message}; gns3.log ends:\n${tail(server.log())}`);
      }
      return server;
    } catch (e) {
      if (server) await server.stop();
      else rmSync(dir, { recursive: true, force: true });
      throw e;
    }
  }

  /** One HTTP request to the controller API; `path` like `/v2/projects`, `body` sent as JSON. */
  async request(method: string, path: string, body?: unknown): Promise<Gns3Reply> {
    const r = await fetch(`${this.url}${path}`, {
      method,
      headers: body === undefined ? {} : { "content-type": "application/json" },
      body: body === undefined ? undefined : JSON.stringify(body),
      // Bounded, but generous: starting nodes makes GNS3 wait for VPCS and uBridge.
      signal: AbortSignal.timeout(60_000),
    });
    const text = await r.text();
    let json: any;
    try {
      json = text === "" ? undefined : JSON.parse(text);
    } catch {
      json = undefined;
    }
    return { status: r.status, json, text, headers: r.headers };
  }

  /** GNS3's log so far (for error messages). */
  log(): string {
    try {
      return readFileSync(join(this.dir, "gns3.log"), "utf8");
    } catch {
      return "";
    }
  }

  /**
   * SIGTERM to GNS3's process group (GNS3 then stops its nodes), up to 10 s for everything to go, then
   * SIGKILL to the group and to any of its processes left outside it; then removes the directory.
   */
  stop(): Promise<void> {
    this.stopping ??= this.doStop();
    return this.stopping;
  }

  private async doStop(): Promise<void> {
    const pid = this.child?.pid;
    if (pid !== undefined) {
      const ours = this.processes(pid);
      signal(-pid, "SIGTERM");
      const gone = (): boolean => this.childExited() && ours.every((p) => !isAlive(p));
      const deadline = Date.now() + 10_000;
      while (!gone() && Date.now() < deadline) await sleep(100);
      if (!gone()) {
        this.killNow(pid, ours);
        const killDeadline = Date.now() + 2000;
        while (!gone() && Date.now() < killDeadline) await sleep(50);
      }
    }
    live.delete(this);
    this.lock?.close();
    rmSync(this.dir, { recursive: true, force: true });
  }

  private childExited(): boolean {
    const c = this.child;
    return c === undefined || c.exitCode !== null || c.signalCode !== null;
  }

  /** SIGKILL, synchronously, the group and the given processes that are still the ones we saw. */
  private killNow(pid: number, ours: readonly ProcessIdentity[]): void {
    if (!this.childExited()) signal(-pid, "SIGKILL");
    for (const p of ours) if (isAlive(p)) signal(p.pid, "SIGKILL");
  }

  /** Last resort when the test process exits without stop(): kill without waiting, remove the directory. */
  killSync(): void {
    const pid = this.child?.pid;
    if (pid !== undefined) this.killNow(pid, this.processes(pid));
    rmSync(this.dir, { recursive: true, force: true });
  }

  /** Processes of this server: its process group, and whatever runs inside its directory (VPCS). */
  private processes(pgid: number): ProcessIdentity[] {
    const found: ProcessIdentity[] = [];
    let entries: string[];
    try {
      entries = readdirSync("/proc");
    } catch {
      return found;
    }
    const inside = this.dir + sep;
    for (const name of entries) {
      if (!/^\d+$/.test(name)) continue;
      const pid = Number(name);
      if (pid === process.pid) continue;
      const stat = readStat(pid);
      if (stat === undefined) continue;
      let cwd = "";
      try {
        cwd = readlinkSync(`/proc/${pid}/cwd`);
      } catch {
        /* not ours to read, or gone */
      }
      if (stat.pgrp === pgid || cwd === this.dir || cwd.startsWith(inside)) found.push({ pid, startTime: stat.startTime });
    }
    return found;
  }
}

function installExitHook(): void {
  if (exitHookInstalled) return;
  exitHookInstalled = true;
  process.on("exit", () => {
    for (const s of live) s.killSync();
  });
}

function serverConf(prefix: string, dir: string, port: number, r: PortRanges): string {
  const lines = [
    "[Server]",
    "host = 127.0.0.1",
    `port = ${port}`,
    "local = True",
    "auth = False",
    "report_errors = False",
    `images_path = ${join(dir, "images")}`,
    `projects_path = ${join(dir, "projects")}`,
    `appliances_path = ${join(dir, "appliances")}`,
    `symbols_path = ${join(dir, "symbols")}`,
    `configs_path = ${join(dir, "configs")}`,
    `resources_path = ${join(dir, "resources")}`,
    `udp_start_port_range = ${r.udpStart}`,
    `udp_end_port_range = ${r.udpEnd}`,
    `console_start_port_range = ${r.consoleStart}`,
    `console_end_port_range = ${r.consoleEnd}`,
    `ubridge_path = ${join(prefix, "bin", "ubridge")}`,
    "install_builtin_appliances = False",
    "hardware_virtualization_check = False",
    "[VPCS]",
    `vpcs_path = ${join(prefix, "bin", "vpcs")}`,
  ];
  return `${lines.join("\n")}\n`;
}
