import { type ChildProcess, spawn } from "node:child_process";
import { closeSync, openSync, readFileSync } from "node:fs";
import { mkdir, readFile, writeFile } from "node:fs/promises";
import { dirname } from "node:path";
import * as E from "fp-ts/lib/Either.js";
import type { HostProcesses, ProcessExit, ProcessSpec } from "../../application/ports/host-processes.js";
import type { Logger } from "../../application/ports/system.js";

/** How long a process has to end on SIGTERM before SIGKILL (GNS3 waits 3 s for VPCS). */
const STOP_GRACE_MS = 3_000;
/** A process that dies this soon after its spawn failed to start: its start is refused with its output. */
const START_SETTLE_MS = 300;
/** How long a probe (`vpcs -v`) may run. */
const PROBE_TIMEOUT_MS = 5_000;
/** What a log file gives back of a dead process (its last bytes). */
const OUTPUT_TAIL_BYTES = 4_096;

interface Running {
  readonly child: ChildProcess;
  readonly spec: ProcessSpec;
  /**
   * What it forked, read once it settled: VPCS's console pty child runs in a session of its own and
   * ignores SIGHUP, so neither the group signal nor its parent's death ends it. Ended by pid.
   */
  forked: readonly number[];
  /** Set once stop() asked: its exit is then not a death to report. */
  stopping: boolean;
  readonly exited: Promise<void>;
}

/** The children of a process (Linux's /proc), empty where that cannot be read. */
function childrenOf(pid: number): number[] {
  try {
    return readFileSync(`/proc/${pid}/task/${pid}/children`, "utf8").trim().split(/\s+/).filter(Boolean).map(Number);
  } catch {
    return [];
  }
}

/** Whether a pid still runs `program` (a pid the kernel gave to another program since is left alone). */
function runs(pid: number, program: string): boolean {
  try {
    return readFileSync(`/proc/${pid}/cmdline`, "utf8").split("\0")[0] === program;
  } catch {
    return false;
  }
}

function tail(path: string): string {
  try {
    const text = readFileSync(path, "utf8");
    return text.length > OUTPUT_TAIL_BYTES ? text.slice(-OUTPUT_TAIL_BYTES) : text;
  } catch {
    return "";
  }
}

/**
 * Host processes as children of netemu (ADR 0081): spawned in their own process group with their output
 * in a log file, tracked and ended by pid (the group's, so a VPCS's console child ends with it), a death
 * nobody asked for reported to the listeners. stopAll() at shutdown leaves none behind.
 */
export class ChildHostProcesses implements HostProcesses {
  private readonly running = new Map<string, Running>();
  private readonly listeners = new Set<(exit: ProcessExit) => void>();

  constructor(private readonly logger: Logger) {}

  probe(program: string, args: readonly string[], cwd: string): Promise<E.Either<string, string>> {
    return new Promise((resolve) => {
      let output = "";
      let child: ChildProcess;
      try {
        child = spawn(program, [...args], { cwd, stdio: ["ignore", "pipe", "pipe"] });
      } catch (e) {
        resolve(E.left((e as Error).message));
        return;
      }
      const timer = setTimeout(() => child.kill("SIGKILL"), PROBE_TIMEOUT_MS);
      child.stdout?.on("data", (d: Buffer) => (output += d.toString("utf8")));
      child.stderr?.on("data", (d: Buffer) => (output += d.toString("utf8")));
      child.once("error", (e: NodeJS.ErrnoException) => {
        clearTimeout(timer);
        resolve(E.left(e.code === "ENOENT" ? `${program} was not found` : e.code === "EACCES" ? `${program} is not executable` : e.message));
      });
      child.once("close", () => {
        clearTimeout(timer);
        resolve(E.right(output));
      });
    });
  }

  async writeFile(path: string, content: string): Promise<E.Either<string, void>> {
    try {
      await mkdir(dirname(path), { recursive: true });
      await writeFile(path, content, "utf8");
      return E.right(undefined);
    } catch (e) {
      return E.left((e as Error).message);
    }
  }

  async readFile(path: string): Promise<string | undefined> {
    try {
      return await readFile(path, "utf8");
    } catch {
      return undefined;
    }
  }

  async start(spec: ProcessSpec): Promise<E.Either<string, { readonly pid: number }>> {
    if (this.running.has(spec.key)) await this.stop(spec.key);
    let log: number;
    try {
      await mkdir(spec.cwd, { recursive: true });
      log = openSync(spec.logFile, "w");
    } catch (e) {
      return E.left((e as Error).message);
    }
    let child: ChildProcess;
    try {
      // Its own group: stop() ends the group, so children it forks (VPCS's console pty) go with it.
      child = spawn(spec.program, [...spec.args], { cwd: spec.cwd, stdio: ["ignore", log, log], detached: true });
    } finally {
      closeSync(log);
    }
    const spawned = await new Promise<E.Either<string, number>>((resolve) => {
      child.once("spawn", () => resolve(E.right(child.pid as number)));
      child.once("error", (e: NodeJS.ErrnoException) => resolve(E.left(e.code === "ENOENT" ? `${spec.program} was not found` : e.message)));
    });
    if (E.isLeft(spawned)) return spawned;
    const pid = spawned.right;
    let exitedEarly: { code: number | null; signal: string | null } | undefined;
    const exited = new Promise<void>((resolve) =>
      child.once("exit", (code, signal) => {
        exitedEarly = { code, signal };
        resolve();
      }),
    );
    const entry: Running = { child, spec, stopping: false, exited, forked: [] };
    this.running.set(spec.key, entry);
    // A program that cannot run as told (a bad argument, a port in use) dies at once: a refused start, not a death.
    await Promise.race([exited, new Promise((r) => setTimeout(r, START_SETTLE_MS))]);
    entry.forked = childrenOf(pid);
    if (exitedEarly !== undefined) {
      this.endForked(entry);
      this.running.delete(spec.key);
      const how = exitedEarly.signal === null ? `exit code ${String(exitedEarly.code)}` : `signal ${exitedEarly.signal}`;
      return E.left(`it ended at once (${how}): ${tail(spec.logFile).trim()}`);
    }
    void exited.then(() => this.ended(entry, pid));
    this.logger.info("host process started", { key: spec.key, pid, program: spec.program, args: spec.args.join(" ") });
    return E.right({ pid });
  }

  private ended(entry: Running, pid: number): void {
    if (this.running.get(entry.spec.key) === entry) this.running.delete(entry.spec.key);
    // Whatever it forked ends with it: no console pty left behind.
    this.signalGroup(pid, "SIGKILL");
    this.endForked(entry);
    if (entry.stopping) return;
    const exit: ProcessExit = { key: entry.spec.key, pid, code: entry.child.exitCode, signal: entry.child.signalCode, output: tail(entry.spec.logFile) };
    this.logger.warn("host process ended on its own", { key: exit.key, pid, code: exit.code, signal: exit.signal });
    for (const listener of this.listeners) {
      try {
        listener(exit);
      } catch (e) {
        this.logger.error("a listener of host process exits threw", { reason: (e as Error).message });
      }
    }
  }

  private endForked(entry: Running): void {
    for (const pid of entry.forked) {
      if (!runs(pid, entry.spec.program)) continue;
      try {
        process.kill(pid, "SIGKILL");
      } catch {
        // Gone already.
      }
    }
  }

  private signalGroup(pid: number, signal: NodeJS.Signals): void {
    try {
      process.kill(-pid, signal);
    } catch {
      // The group is gone already.
    }
  }

  async stop(key: string): Promise<void> {
    const entry = this.running.get(key);
    if (entry === undefined) return;
    entry.stopping = true;
    const pid = entry.child.pid as number;
    this.signalGroup(pid, "SIGTERM");
    let timer: NodeJS.Timeout | undefined;
    const killed = new Promise<void>((resolve) => {
      timer = setTimeout(() => {
        this.signalGroup(pid, "SIGKILL");
        resolve();
      }, STOP_GRACE_MS);
    });
    await Promise.race([entry.exited, killed]);
    await entry.exited;
    clearTimeout(timer);
    this.running.delete(key);
  }

  pidOf(key: string): number | undefined {
    return this.running.get(key)?.child.pid;
  }

  onExit(listener: (exit: ProcessExit) => void): () => void {
    this.listeners.add(listener);
    return () => void this.listeners.delete(listener);
  }

  async stopAll(): Promise<void> {
    await Promise.all([...this.running.keys()].map((key) => this.stop(key)));
  }
}
