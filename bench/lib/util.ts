/**
 * Small helpers shared by the benchmarks: child processes driven over IPC, percentiles, tables,
 * and the kernel's per-socket UDP drop counters.
 */
import { execFileSync, fork, spawnSync, type ChildProcess } from "node:child_process";
import { readdirSync, readFileSync } from "node:fs";
import { fileURLToPath } from "node:url";

export const sleep = (ms: number): Promise<void> => new Promise((r) => setTimeout(r, ms));

/** Milliseconds on CLOCK_MONOTONIC: the same clock in every process of the machine. */
export function monoMs(): number {
  const [s, ns] = process.hrtime();
  return s * 1e3 + ns / 1e6;
}

interface Pending {
  resolve: (v: unknown) => void;
  reject: (e: Error) => void;
}

const children = new Set<ChildProcess>();
process.on("exit", () => {
  for (const c of children) if (c.pid !== undefined && c.exitCode === null) process.kill(c.pid, "SIGKILL");
});

/** A forked child answering `call(cmd, args)` requests (see serveIpc). */
export class Child {
  private nextId = 1;
  private readonly pending = new Map<number, Pending>();
  readonly exited: Promise<number | null>;

  private constructor(readonly proc: ChildProcess, readonly label: string) {
    proc.on("message", (m: unknown) => {
      const msg = m as { id: number; result?: unknown; error?: string };
      const p = this.pending.get(msg.id);
      if (p === undefined) return;
      this.pending.delete(msg.id);
      if (msg.error !== undefined) p.reject(new Error(`${label}: ${msg.error}`));
      else p.resolve(msg.result);
    });
    this.exited = new Promise((resolve) =>
      proc.on("exit", (code) => {
        children.delete(proc);
        for (const p of this.pending.values()) p.reject(new Error(`${label} exited (${code})`));
        this.pending.clear();
        resolve(code);
      }),
    );
  }

  /** Forks `script` (a path relative to the calling module's URL) with its arguments. */
  static async start(moduleUrl: string, script: string, args: readonly string[], label: string, execArgv: readonly string[] = [], env: NodeJS.ProcessEnv = process.env): Promise<Child> {
    const proc = fork(fileURLToPath(new URL(script, moduleUrl)), [...args], { stdio: ["ignore", "inherit", "inherit", "ipc"], execArgv: [...execArgv], env });
    children.add(proc);
    const child = new Child(proc, label);
    await child.call("ping", {});
    return child;
  }

  get pid(): number {
    return this.proc.pid ?? -1;
  }

  call<T>(cmd: string, args: unknown = {}): Promise<T> {
    const id = this.nextId++;
    return new Promise<T>((resolve, reject) => {
      this.pending.set(id, { resolve: resolve as (v: unknown) => void, reject });
      this.proc.send({ id, cmd, args });
    });
  }

  /** Asks the child to exit, then ends it by its pid if it does not within `graceMs`. */
  async stop(graceMs = 3000): Promise<void> {
    if (this.proc.exitCode !== null || this.proc.signalCode !== null) return;
    try {
      await Promise.race([this.call("exit"), sleep(graceMs)]);
    } catch {
      /* it exited while answering */
    }
    const done = await Promise.race([this.exited.then(() => true), sleep(graceMs).then(() => false)]);
    if (!done && this.proc.pid !== undefined) {
      process.kill(this.proc.pid, "SIGKILL");
      await this.exited;
    }
  }
}

export type Handlers = Record<string, (args: never) => unknown>;

/** In a child: answers the parent's calls with `handlers`; "ping" and "exit" are built in. */
export function serveIpc(handlers: Handlers, onExit: () => Promise<void> = async () => undefined): void {
  process.on("message", (m: unknown) => {
    const { id, cmd, args } = m as { id: number; cmd: string; args: unknown };
    const reply = (msg: object): void => void process.send?.({ id, ...msg });
    if (cmd === "ping") return reply({ result: { pid: process.pid } });
    if (cmd === "exit") {
      void onExit().finally(() => {
        reply({ result: true });
        setTimeout(() => process.exit(0), 20);
      });
      return;
    }
    const h = handlers[cmd];
    if (h === undefined) return reply({ error: `unknown command ${cmd}` });
    Promise.resolve()
      .then(() => h(args as never))
      .then(
        (result) => reply({ result }),
        (err: unknown) => reply({ error: err instanceof Error ? err.stack ?? err.message : String(err) }),
      );
  });
  process.on("disconnect", () => void onExit().finally(() => process.exit(0)));
}

/** The median of unsorted values (the upper middle one of an even count); NaN when there are none. */
export function median(values: readonly number[]): number {
  return [...values].sort((a, b) => a - b)[Math.floor(values.length / 2)] ?? Number.NaN;
}

/** The p-th percentile (0..100) of sorted values (nearest rank). */
export function percentile(sorted: ArrayLike<number>, p: number): number {
  if (sorted.length === 0) return Number.NaN;
  const rank = Math.min(sorted.length - 1, Math.max(0, Math.ceil((p / 100) * sorted.length) - 1));
  return sorted[rank] as number;
}

export function fmt(n: number, digits = 0): string {
  if (!Number.isFinite(n)) return "–";
  return n.toLocaleString("en-US", { minimumFractionDigits: digits, maximumFractionDigits: digits });
}

export function markdownTable(header: readonly string[], rows: readonly (readonly string[])[]): string {
  const line = (cells: readonly string[]): string => `| ${cells.join(" | ")} |`;
  return [line(header), line(header.map(() => "---")), ...rows.map(line)].join("\n");
}

/** Per-socket receive-queue drops from /proc/net/udp, keyed by local port (127.0.0.1 sockets). */
export function udpDrops(ports: readonly number[]): Map<number, number> {
  const out = new Map<number, number>();
  let text = "";
  try {
    text = readFileSync("/proc/net/udp", "utf8");
  } catch {
    return out;
  }
  for (const line of text.split("\n").slice(1)) {
    const cols = line.trim().split(/\s+/);
    const local = cols[1];
    const drops = cols[cols.length - 1];
    if (local === undefined || drops === undefined) continue;
    const port = Number.parseInt(local.split(":")[1] ?? "", 16);
    if (ports.includes(port)) out.set(port, (out.get(port) ?? 0) + Number(drops));
  }
  return out;
}

export function readSysctl(name: string): string {
  try {
    return readFileSync(`/proc/sys/${name.replaceAll(".", "/")}`, "utf8").trim();
  } catch {
    return "?";
  }
}

export function cpuPercent(before: NodeJS.CpuUsage, after: NodeJS.CpuUsage, wallMs: number): number {
  return ((after.user - before.user + after.system - before.system) / 1000 / wallMs) * 100;
}

/**
 * Busy and total jiffies of all CPUs from /proc/stat (busy excludes idle and iowait), and of them the
 * softirq time (the kernel's delivery of loopback datagrams; with tick-based accounting also counted
 * in the time of the process it interrupted).
 */
export function cpuTimes(): { busy: number; total: number; softirq: number } {
  try {
    const first = readFileSync("/proc/stat", "utf8").split("\n")[0] ?? "";
    const v = first.trim().split(/\s+/).slice(1).map(Number);
    const total = v.slice(0, 8).reduce((a, b) => a + b, 0);
    const idle = (v[3] ?? 0) + (v[4] ?? 0);
    return { busy: total - idle, total, softirq: v[6] ?? 0 };
  } catch {
    return { busy: 0, total: 0, softirq: 0 };
  }
}

/** Ends a child by its pid: SIGTERM, then SIGKILL when it has not exited 3 s later; nothing when it has already ended. */
export async function stopProcess(proc: ChildProcess): Promise<void> {
  if (proc.exitCode !== null || proc.signalCode !== null || proc.pid === undefined) return;
  const exited = new Promise<void>((r) => proc.once("exit", () => r()));
  process.kill(proc.pid, "SIGTERM");
  const done = await Promise.race([exited.then(() => true), sleep(3000).then(() => false)]);
  if (!done) {
    process.kill(proc.pid, "SIGKILL");
    await exited;
  }
}

const CLK_TCK = Number(spawnSync("getconf", ["CLK_TCK"], { encoding: "utf8" }).stdout) || 100;

/** utime + stime of a process and all its threads, dead ones included (/proc/<pid>/stat), in µs; in ticks of 10 ms. */
export function processTicksCpuUs(pid: number): number {
  const stat = readFileSync(`/proc/${pid}/stat`, "utf8");
  const fields = stat.slice(stat.lastIndexOf(")") + 2).split(" ");
  // Fields 14 and 15 of stat(5), counted from the state (field 3) here.
  return ((Number(fields[11]) + Number(fields[12])) * 1e6) / CLK_TCK;
}

/** Pins a process and every thread it has to `cpu` (a CPU list such as "0,1" frees it again); threads it starts later inherit it. */
export function pinProcess(pid: number, cpu: number | string): void {
  execFileSync("taskset", ["-a", "-p", "-c", String(cpu), String(pid)], { stdio: "ignore" });
}

/**
 * CPU time of a process, in µs: the sum of its threads' time on a CPU in ns (/proc/<pid>/task/<tid>/schedstat),
 * where the kernel has schedstats; otherwise utime + stime of the process and all its threads, dead
 * ones included (/proc/<pid>/stat), in ticks of 10 ms: too coarse for 1,000 frames/s (a tick over 1,500
 * frames is 6.7 µs a frame). A thread that ends during a trial takes its time with it in schedstat; the
 * forwarders start none once set up.
 */
export function processCpuUs(pid: number): number {
  try {
    let ns = 0;
    for (const tid of readdirSync(`/proc/${pid}/task`)) ns += Number(readFileSync(`/proc/${pid}/task/${tid}/schedstat`, "utf8").split(" ")[0]);
    if (Number.isFinite(ns)) return ns / 1000;
  } catch {
    // No schedstat (or the process is gone): the ticks below.
  }
  try {
    return processTicksCpuUs(pid);
  } catch {
    return Number.NaN;
  }
}

/** Each thread of a process now: its time on a CPU (ns, schedstat) and the times it went to sleep of itself (voluntary context switches: each is one wake-up later). */
export function threadTimes(pid: number): Map<string, { readonly cpuNs: number; readonly sleeps: number }> {
  const threads = new Map<string, { cpuNs: number; sleeps: number }>();
  for (const tid of readdirSync(`/proc/${pid}/task`)) {
    try {
      const cpuNs = Number(readFileSync(`/proc/${pid}/task/${tid}/schedstat`, "utf8").split(" ")[0]);
      const sleeps = Number(/^voluntary_ctxt_switches:\s+(\d+)/m.exec(readFileSync(`/proc/${pid}/task/${tid}/status`, "utf8"))?.[1]);
      threads.set(tid, { cpuNs, sleeps });
    } catch {
      // The thread ended meanwhile.
    }
  }
  return threads;
}
