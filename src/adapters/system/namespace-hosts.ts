import { execFile, spawn } from "node:child_process";
import { existsSync } from "node:fs";
import { mkdir, readFile, readdir, rm } from "node:fs/promises";
import { join } from "node:path";
import * as E from "fp-ts/lib/Either.js";
import type { HostCommandOptions, HostCommandResult, HostProblem, HostSpec, NamespaceHost, NamespaceHosts } from "../../application/ports/namespace-hosts.js";
import type { Logger } from "../../application/ports/system.js";
import { writeFileAtomic } from "../shared/atomic-file.js";

/** A command's outcome: its exit code (null when killed) and what it printed. */
interface RunResult {
  readonly code: number | null;
  readonly stdout: string;
  readonly stderr: string;
}

/** Runs a program without a shell, bounded in time. */
type Runner = (file: string, args: readonly string[]) => Promise<RunResult>;

const STEP_TIMEOUT_MS = 15_000;

const runCommand: Runner = (file, args) =>
  new Promise((resolve) => {
    execFile(file, [...args], { timeout: STEP_TIMEOUT_MS, maxBuffer: 1 << 20 }, (err, stdout, stderr) => {
      const code = err === null ? 0 : typeof (err as { code?: unknown }).code === "number" ? ((err as { code: number }).code) : null;
      resolve({ code, stdout: String(stdout), stderr: err !== null && String(stderr) === "" ? err.message : String(stderr) });
    });
  });

/** What a netemu process recorded of the hosts it made: by its pid and the start time of that process. */
interface HostsRecord {
  readonly pid: number;
  /** The process's start time (field 22 of /proc/<pid>/stat): a pid reused by another process is told apart. */
  readonly started: string;
  readonly hosts: readonly NamespaceHost[];
}

/** The start time of a running process, or undefined when no process has that pid. */
async function processStarted(pid: number): Promise<string | undefined> {
  try {
    const stat = await readFile(`/proc/${pid}/stat`, "utf8");
    // The command name (field 2) may hold spaces and parentheses: the fields after the last ")" are fixed.
    return stat.slice(stat.lastIndexOf(")") + 2).split(" ")[19];
  } catch {
    return undefined;
  }
}

const HOST_NAME = /^[A-Za-z0-9][A-Za-z0-9_.-]{0,39}$/;
const INTERFACE_NAME = /^[A-Za-z0-9_.-]{1,15}$/;
const RECORD = /^hosts-(\d+)\.json$/;
const NAMESPACE_NAME = /^[A-Za-z0-9_.-]{1,64}$/;

interface IpNamespaceHostsOptions {
  /** Put before a host's name to make its namespace's (default "netemu-"). */
  readonly namespacePrefix?: string;
  readonly run?: Runner;
  /** Whether netemu may make namespaces and devices (default: it runs as root). */
  readonly privileged?: () => boolean;
}

/**
 * Namespace hosts made with iproute2 (`ip netns`, `ip tuntap`, `ip link`, `ip addr`, `ip route`),
 * every step a process of its own, bounded in time (ADR 0083). What it makes is recorded first in
 * `<stateDir>/hosts-<pid>.json`, so that a netemu killed with -9 leaves a list of exactly what it
 * made, which the next start removes; another netemu's namespaces and the host's own are never touched.
 */
export class IpNamespaceHosts implements NamespaceHosts {
  private readonly hosts = new Map<string, NamespaceHost & { readonly spec: HostSpec }>();
  private readonly prefix: string;
  private readonly run: Runner;
  private readonly privileged: () => boolean;
  private started: string | undefined;
  /** Record writes one at a time, in order. */
  private writing: Promise<void> = Promise.resolve();

  constructor(
    private readonly stateDir: string,
    private readonly logger: Logger,
    options: IpNamespaceHostsOptions = {},
  ) {
    this.prefix = options.namespacePrefix ?? "netemu-";
    this.run = options.run ?? runCommand;
    this.privileged = options.privileged ?? (() => process.geteuid?.() === 0);
  }

  private get recordFile(): string {
    return join(this.stateDir, `hosts-${process.pid}.json`);
  }

  private async record(): Promise<void> {
    const write = async (): Promise<void> => {
      if (this.hosts.size === 0) {
        await rm(this.recordFile, { force: true });
        return;
      }
      this.started ??= await processStarted(process.pid);
      await mkdir(this.stateDir, { recursive: true });
      const record: HostsRecord = { pid: process.pid, started: this.started ?? "", hosts: [...this.hosts.values()].map(({ name, namespace, taps }) => ({ name, namespace, taps })) };
      await writeFileAtomic(this.recordFile, `${JSON.stringify(record, null, 2)}\n`);
    };
    this.writing = this.writing.then(write, write);
    return this.writing;
  }

  private async step(args: readonly string[]): Promise<E.Either<HostProblem, string>> {
    const r = await this.run("ip", args);
    if (r.code === 0) return E.right(r.stdout);
    return E.left({ problem: "command_failed", command: `ip ${args.join(" ")}`, detail: r.stderr.trim() || `exit ${String(r.code)}` });
  }

  private async namespaceExists(namespace: string): Promise<boolean> {
    return existsSync(`/run/netns/${namespace}`) || existsSync(`/var/run/netns/${namespace}`);
  }

  list(): readonly NamespaceHost[] {
    return [...this.hosts.values()].map(({ name, namespace, taps }) => ({ name, namespace, taps }));
  }

  async create(spec: HostSpec): Promise<E.Either<HostProblem, NamespaceHost>> {
    if (!this.privileged()) return E.left({ problem: "not_root" });
    if (!HOST_NAME.test(spec.name)) return E.left({ problem: "invalid_name", name: spec.name });
    for (const i of spec.interfaces) {
      for (const n of [i.tap, i.inside]) if (!INTERFACE_NAME.test(n) || n === "." || n === "..") return E.left({ problem: "invalid_name", name: n });
    }
    const namespace = `${this.prefix}${spec.name}`;
    if (this.hosts.has(spec.name)) return E.left({ problem: "exists", what: `host ${spec.name}` });
    if (await this.namespaceExists(namespace)) return E.left({ problem: "exists", what: `network namespace ${namespace}` });
    for (const i of spec.interfaces) if (existsSync(`/sys/class/net/${i.tap}`)) return E.left({ problem: "exists", what: `interface ${i.tap}` });
    const host = { name: spec.name, namespace, taps: spec.interfaces.map((i) => i.tap), spec };
    // Recorded before anything is made: a kill -9 from here on leaves a record of it.
    this.hosts.set(spec.name, host);
    await this.record();
    const steps: (readonly string[])[] = [["netns", "add", namespace], ["-n", namespace, "link", "set", "lo", "up"], ...spec.interfaces.map((i) => ["tuntap", "add", "dev", i.tap, "mode", "tap"])];
    for (const args of steps) {
      const done = await this.step(args);
      if (E.isLeft(done)) {
        await this.destroy(spec.name);
        return done;
      }
    }
    this.logger.info("namespace host created", { host: spec.name, namespace, taps: host.taps });
    return E.right({ name: host.name, namespace, taps: host.taps });
  }

  async plug(name: string): Promise<E.Either<HostProblem, void>> {
    const host = this.hosts.get(name);
    if (host === undefined) return E.left({ problem: "not_found", name });
    const ns = host.namespace;
    for (const i of host.spec.interfaces) {
      // Plugged again (a data-plane worker restarted and opened the TAP anew, a new device in netemu's
      // namespace): the old one, closed and dark inside, gives its name to the new one.
      if (existsSync(`/sys/class/net/${i.tap}`) && (await this.run("ip", ["-n", ns, "link", "show", "dev", i.inside])).code === 0) {
        const removed = await this.step(["-n", ns, "link", "del", "dev", i.inside]);
        if (E.isLeft(removed)) return removed;
      }
      const steps: (readonly string[])[] = [
        ["link", "set", "dev", i.tap, "netns", ns],
        ...(i.inside === i.tap ? [] : [["-n", ns, "link", "set", "dev", i.tap, "name", i.inside]]),
        ...(i.macAddress === undefined ? [] : [["-n", ns, "link", "set", "dev", i.inside, "address", i.macAddress]]),
        ...i.addresses.map((a) => ["-n", ns, "addr", "add", a, "dev", i.inside]),
        ["-n", ns, "link", "set", "dev", i.inside, "up"],
      ];
      for (const args of steps) {
        const done = await this.step(args);
        if (E.isLeft(done)) return done;
      }
    }
    if (host.spec.gateway !== undefined) {
      const done = await this.step(["-n", ns, "route", "replace", "default", "via", host.spec.gateway]);
      if (E.isLeft(done)) return done;
    }
    return E.right(undefined);
  }

  exec(name: string, argv: readonly string[], options: HostCommandOptions): Promise<E.Either<HostProblem, HostCommandResult>> {
    const host = this.hosts.get(name);
    if (host === undefined) return Promise.resolve(E.left({ problem: "not_found", name }));
    return new Promise((resolve) => {
      // `ip netns exec` enters the namespace and execs the command: the child's pid is the command's.
      const child = spawn("ip", ["netns", "exec", host.namespace, ...argv], { stdio: ["ignore", "pipe", "pipe"] });
      const out: Buffer[] = [];
      const err: Buffer[] = [];
      let kept = 0;
      let truncated = false;
      let timedOut = false;
      const keep = (into: Buffer[]) => (chunk: Buffer) => {
        const room = options.maxOutputBytes - kept;
        if (chunk.length > room) truncated = true;
        if (room <= 0) return;
        const part = chunk.subarray(0, room);
        into.push(part);
        kept += part.length;
      };
      child.stdout.on("data", keep(out));
      child.stderr.on("data", keep(err));
      const timer = setTimeout(() => {
        timedOut = true;
        child.kill("SIGKILL");
      }, options.timeoutMs);
      child.on("error", (e) => {
        clearTimeout(timer);
        resolve(E.left({ problem: "command_failed", command: argv.join(" "), detail: e.message }));
      });
      child.on("close", (code, signal) => {
        clearTimeout(timer);
        resolve(E.right({ exitCode: code, signal, stdout: Buffer.concat(out).toString("utf8"), stderr: Buffer.concat(err).toString("utf8"), timedOut, truncated }));
      });
    });
  }

  async destroy(name: string): Promise<E.Either<HostProblem, void>> {
    const host = this.hosts.get(name);
    if (host === undefined) return E.left({ problem: "not_found", name });
    await this.remove(host);
    this.hosts.delete(name);
    await this.record();
    this.logger.info("namespace host removed", { host: name, namespace: host.namespace });
    return E.right(undefined);
  }

  /**
   * Removes a host's namespace, first ending what runs in it (a namespace lives on while a process
   * is in it, and the TAP devices moved in with it), then its TAPs still in netemu's namespace.
   */
  private async remove(host: NamespaceHost): Promise<void> {
    if (await this.namespaceExists(host.namespace)) {
      const pids = await this.run("ip", ["netns", "pids", host.namespace]);
      for (const pid of pids.stdout.split(/\s+/).filter((p) => /^\d+$/.test(p))) {
        try {
          process.kill(Number(pid), "SIGKILL");
        } catch {
          // gone already
        }
      }
      await this.run("ip", ["netns", "del", host.namespace]);
    }
    for (const tap of host.taps) if (existsSync(`/sys/class/net/${tap}`)) await this.run("ip", ["link", "del", "dev", tap]);
  }

  async close(): Promise<void> {
    for (const name of [...this.hosts.keys()]) await this.destroy(name);
    await this.writing.catch(() => undefined);
  }

  async removeLeftovers(): Promise<readonly string[]> {
    let files: string[];
    try {
      files = await readdir(this.stateDir);
    } catch {
      return [];
    }
    const removed: string[] = [];
    for (const file of files) {
      const match = RECORD.exec(file);
      if (match === null) continue;
      const path = join(this.stateDir, file);
      let record: HostsRecord;
      try {
        record = JSON.parse(await readFile(path, "utf8")) as HostsRecord;
      } catch {
        continue;
      }
      const pid = Number(match[1]);
      // Its maker still runs (the same process: same pid, same start time; this one too): its hosts are its own.
      if (record.started !== "" && (await processStarted(pid)) === record.started) continue;
      if (!this.privileged()) {
        this.logger.warn("namespace hosts left by a netemu that is gone cannot be removed without root", { record: path });
        continue;
      }
      for (const host of Array.isArray(record.hosts) ? record.hosts : []) {
        if (typeof host?.namespace !== "string" || !Array.isArray(host.taps)) continue;
        // Only names the record's own rules allow: a record edited by hand cannot point `ip` elsewhere.
        if (!NAMESPACE_NAME.test(host.namespace) || host.namespace === "." || host.namespace === "..") continue;
        const taps = (host.taps as unknown[]).filter((t): t is string => typeof t === "string" && INTERFACE_NAME.test(t));
        const existed = [...((await this.namespaceExists(host.namespace)) ? [host.namespace] : []), ...taps.filter((t) => existsSync(`/sys/class/net/${t}`))];
        await this.remove({ name: host.name, namespace: host.namespace, taps });
        removed.push(...existed);
      }
      await rm(path, { force: true });
      this.logger.warn("removed the namespace hosts a netemu that is gone left behind", { pid, removed });
    }
    return removed;
  }
}
