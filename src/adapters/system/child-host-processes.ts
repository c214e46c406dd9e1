import { type ChildProcess, spawn } from "node:child_process";
import { closeSync, openSync, readFileSync, realpathSync } from "node:fs";
import { mkdir, readFile, readdir, rm, stat, writeFile } from "node:fs/promises";
import { dirname, join } from "node:path";
import * as E from "fp-ts/lib/Either.js";
import type { HostProcesses, ProcessExit, ProcessSpec } from "../../application/ports/host-processes.js";
import type { Logger } from "../../application/ports/system.js";
import { writeFileAtomic } from "../shared/atomic-file.js";
import { type KnownProcess, knownProcess, listenOn, parentOf, processesOf, programFile, signalKnown, stillRuns } from "./proc-processes.js";

/** How long a process has to end on SIGTERM before SIGKILL (GNS3 waits 3 s for VPCS). */
const STOP_GRACE_MS = 3_000;
/** A process that dies this soon after its spawn failed to start: its start is refused with its output. */
const START_SETTLE_MS = 300;
/**
 * How long a program that names the ports it listens on (a VPCS) has to be up on them; it is taken as
 * started as soon as it is (a few ms), so this bound is paid only by one that never binds them.
 */
const START_READY_MS = 2_000;
/** How often those ports are looked at meanwhile. */
const START_READY_POLL_MS = 10;
/** How long a daemonizing program's command may take to exit, and then its daemon to bind its UDP port. */
const DAEMON_LAUNCH_MS = 5_000;
const DAEMON_FIND_MS = 3_000;
/** How often a daemon (not netemu's child: no exit event) is looked at to hear its death. */
const DAEMON_POLL_MS = 250;
/** How long a probe (`vpcs -v`) may run. */
const PROBE_TIMEOUT_MS = 5_000;
/** What a log file gives back of a dead process (its last bytes). */
const OUTPUT_TAIL_BYTES = 4_096;
const RECORD = /^processes-(\d+)\.json$/;

interface Running {
  readonly spec: ProcessSpec;
  /** The pid pidOf answers: the child, or the daemon that serves the console. */
  readonly pid: number;
  /**
   * Every process it runs, ended with it and recorded for the next start: a foreground VPCS and the
   * console pty child it forks (in a session of its own, ignoring SIGHUP); a daemon and its instance.
   */
  processes: readonly KnownProcess[];
  /** Set once stop() asked: its exit is then not a death to report. */
  stopping: boolean;
  readonly exited: Promise<void>;
  /** Its exit code or signal, when netemu is its parent and heard them. */
  readonly status: () => { readonly code: number | null; readonly signal: string | null };
  /** Asks it to end (SIGTERM) or makes it (SIGKILL). */
  readonly signal: (signal: NodeJS.Signals) => void;
}

/** What a netemu process recorded of the host processes it runs: by its own pid and start time. */
interface ProcessesRecord {
  readonly pid: number;
  readonly started: string;
  readonly processes: readonly (KnownProcess & { readonly key: string })[];
}

/** The children of a process (Linux's /proc), empty where that cannot be read. */
function childrenOf(pid: number): number[] {
  try {
    return readFileSync(`/proc/${pid}/task/${pid}/children`, "utf8").trim().split(/\s+/).filter(Boolean).map(Number);
  } catch {
    return [];
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

const sleep = (ms: number): Promise<void> => new Promise((r) => setTimeout(r, ms));

/** The processes running `exe` in `cwd` (its links resolved as /proc shows them). */
function processesIn(exe: string, cwd: string): readonly number[] {
  try {
    return processesOf(exe, realpathSync(cwd), 0).all;
  } catch {
    return [];
  }
}

/** SIGKILL to each still known, and wait (up to the stop grace) until none runs: a refusal leaves nothing. */
async function endAll(processes: readonly KnownProcess[]): Promise<void> {
  for (const p of processes) signalKnown(p, "SIGKILL");
  const deadline = Date.now() + STOP_GRACE_MS;
  while (processes.some(stillRuns) && Date.now() < deadline) await sleep(20);
}

function known(pids: readonly number[]): KnownProcess[] {
  return pids.map(knownProcess).filter((p): p is KnownProcess => p !== undefined);
}

/**
 * Host processes (ADR 0081, 0088): a program that stays in the foreground is netemu's child, spawned in
 * its own process group with its output in a log file; one that daemonizes (VPCS 0.5b2) is found by the
 * UDP port it was told to bind, in its node's directory, and watched by polling. Each is ended by pid,
 * checked first to be the same process (start time, program), never by name; a death nobody asked for is
 * reported to the listeners. What runs is recorded in `<stateDir>/processes-<netemu pid>.json`, so that
 * what a netemu killed with -9 left is ended by the next start (endLeftovers). stopAll() at shutdown.
 */
export class ChildHostProcesses implements HostProcesses {
  private readonly running = new Map<string, Running>();
  private readonly listeners = new Set<(exit: ProcessExit) => void>();
  private netemuStarted: string | undefined;
  /** Record writes one at a time, in order. */
  private writing: Promise<void> = Promise.resolve();
  /** Starts wait for the leftovers of a netemu killed with -9 to be gone (they may hold the same ports). */
  private leftovers: Promise<unknown> = Promise.resolve();

  constructor(
    private readonly logger: Logger,
    private readonly stateDir?: string,
  ) {}

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

  async identify(program: string): Promise<string | undefined> {
    const file = programFile(program);
    if (file === undefined) return undefined;
    try {
      const s = await stat(file, { bigint: true });
      return `${file} ${s.dev}:${s.ino} ${s.size} ${s.mtimeNs} ${s.ctimeNs}`;
    } catch {
      return undefined;
    }
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
    await this.leftovers;
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
    const entry = spec.daemon === undefined ? await this.foreground(spec, child, spawned.right) : await this.daemon(spec, child, spec.daemon.udpPort);
    if (E.isLeft(entry)) return entry;
    this.running.set(spec.key, entry.right);
    void entry.right.exited.then(() => this.ended(entry.right));
    await this.record();
    this.logger.info("host process started", { key: spec.key, pid: entry.right.pid, pids: entry.right.processes.map((p) => p.pid), program: spec.program, args: spec.args.join(" ") });
    return E.right({ pid: entry.right.pid });
  }

  /** A program that stays in the foreground: netemu's child, its exit heard from the kernel. */
  private async foreground(spec: ProcessSpec, child: ChildProcess, pid: number): Promise<E.Either<string, Running>> {
    let status: { code: number | null; signal: string | null } | undefined;
    const exited = new Promise<void>((resolve) =>
      child.once("exit", (code, signal) => {
        status = { code, signal };
        resolve();
      }),
    );
    const self = knownProcess(pid);
    // A program that cannot run as told (a bad argument, a port in use) dies at once: a refused start, not a
    // death. One that names its ports is up once it listens on them; another gets a fixed time to die in.
    let settled = false;
    const listens = spec.listens;
    const up =
      listens === undefined
        ? sleep(START_SETTLE_MS)
        : (async () => {
            const deadline = Date.now() + START_READY_MS;
            while (!settled && Date.now() < deadline && !listenOn([pid, ...childrenOf(pid)], listens.tcpPort, listens.udpPort)) await sleep(START_READY_POLL_MS);
          })();
    await Promise.race([exited, up]);
    settled = true;
    const processes = [...(self === undefined ? [] : [self]), ...known(childrenOf(pid))];
    if (status !== undefined) {
      // What it forked before it died (0.8.3's console pty child, a session of its own) is no longer its
      // child: found as that program in the node's directory.
      const exe = self?.exe ?? programFile(spec.program);
      const left = exe === undefined ? [] : known(processesIn(exe, spec.cwd));
      await endAll([...processes, ...left]);
      const how = status.signal === null ? `exit code ${String(status.code)}` : `signal ${status.signal}`;
      return E.left(`it ended at once (${how}): ${tail(spec.logFile).trim()}`);
    }
    return E.right({
      spec,
      pid,
      processes,
      stopping: false,
      exited,
      status: () => status ?? { code: null, signal: null },
      signal: (signal) => {
        try {
          process.kill(-pid, signal);
        } catch {
          // The group is gone already.
        }
      },
    });
  }

  /**
   * A program that daemonizes (VPCS 0.5b2 with -p): the command exits once it has forked; the daemon
   * (the console) and its instance (the UDP socket) run in the node's directory. They are found as the
   * processes of that program in that directory, the instance being the one with the given UDP port
   * bound: VPCS 0.5b2 runs on without its UDP socket when the port is taken, so a start whose port no
   * process of it holds is refused and what it left is ended.
   */
  private async daemon(spec: ProcessSpec, launcher: ChildProcess, udpPort: number): Promise<E.Either<string, Running>> {
    const launched = await new Promise<{ code: number | null; signal: string | null } | undefined>((resolve) => {
      const timer = setTimeout(() => resolve(undefined), DAEMON_LAUNCH_MS);
      launcher.once("exit", (code, signal) => {
        clearTimeout(timer);
        resolve({ code, signal });
      });
    });
    if (launched === undefined) {
      try {
        process.kill(-(launcher.pid as number), "SIGKILL");
      } catch {
        // Gone already.
      }
      return E.left(`it was expected to daemonize, but still ran after ${DAEMON_LAUNCH_MS} ms: ${tail(spec.logFile).trim()}`);
    }
    if (launched.code !== 0) return E.left(`it ended (${launched.signal === null ? `exit code ${String(launched.code)}` : `signal ${launched.signal}`}): ${tail(spec.logFile).trim()}`);
    const exe = programFile(spec.program);
    let cwd: string;
    try {
      cwd = realpathSync(spec.cwd);
    } catch (e) {
      return E.left((e as Error).message);
    }
    if (exe === undefined) return E.left(`${spec.program} was not found`);
    const deadline = Date.now() + DAEMON_FIND_MS;
    let found = processesOf(exe, cwd, udpPort);
    while (found.boundPort.length === 0 && Date.now() < deadline) {
      await sleep(50);
      found = processesOf(exe, cwd, udpPort);
    }
    const instance = found.boundPort[0];
    if (instance === undefined) {
      await endAll(known(found.all));
      return E.left(`no process of it bound UDP port ${udpPort} within ${DAEMON_FIND_MS} ms (the port taken, or its console port: VPCS 0.5b2 then exits 0 or runs without it): ${tail(spec.logFile).trim()}`);
    }
    const parent = parentOf(instance);
    const daemonPid = parent !== undefined && found.all.includes(parent) ? parent : instance;
    const processes = known([...new Set([daemonPid, instance, ...found.all])]);
    const main = processes.find((p) => p.pid === daemonPid);
    if (main === undefined || !processes.some((p) => p.pid === instance)) return E.left(`it ended at once: ${tail(spec.logFile).trim()}`);
    // Not netemu's child: its death is seen by looking (the instance or the daemon gone ends both).
    let timer: NodeJS.Timeout | undefined;
    const exited = new Promise<void>((resolve) => {
      timer = setInterval(() => {
        if (!entry.processes.every(stillRuns)) {
          clearInterval(timer);
          resolve();
        }
      }, DAEMON_POLL_MS);
      timer.unref();
    });
    const entry: Running = {
      spec,
      pid: daemonPid,
      processes,
      stopping: false,
      exited,
      status: () => ({ code: null, signal: null }),
      signal: (signal) => {
        // The daemon ends its instance on SIGTERM; SIGKILL goes to each.
        if (signal === "SIGTERM") signalKnown(main, signal);
        else for (const p of entry.processes) signalKnown(p, signal);
      },
    };
    return E.right(entry);
  }

  private ended(entry: Running): void {
    if (this.running.get(entry.spec.key) === entry) this.running.delete(entry.spec.key);
    // Whatever it forked ends with it: no console pty, no daemon without its instance, left behind.
    entry.signal("SIGKILL");
    for (const p of entry.processes) signalKnown(p, "SIGKILL");
    void this.record();
    if (entry.stopping) return;
    const { code, signal } = entry.status();
    const exit: ProcessExit = { key: entry.spec.key, pid: entry.pid, code, signal, output: tail(entry.spec.logFile) };
    this.logger.warn("host process ended on its own", { key: exit.key, pid: exit.pid, code: exit.code, signal: exit.signal });
    for (const listener of this.listeners) {
      try {
        listener(exit);
      } catch (e) {
        this.logger.error("a listener of host process exits threw", { reason: (e as Error).message });
      }
    }
  }

  async stop(key: string): Promise<void> {
    const entry = this.running.get(key);
    if (entry === undefined) return;
    entry.stopping = true;
    entry.signal("SIGTERM");
    let timer: NodeJS.Timeout | undefined;
    const killed = new Promise<void>((resolve) => {
      timer = setTimeout(() => {
        entry.signal("SIGKILL");
        resolve();
      }, STOP_GRACE_MS);
    });
    await Promise.race([entry.exited, killed]);
    await entry.exited;
    clearTimeout(timer);
    if (this.running.get(key) === entry) this.running.delete(key);
    await this.record();
  }

  pidOf(key: string): number | undefined {
    return this.running.get(key)?.pid;
  }

  onExit(listener: (exit: ProcessExit) => void): () => void {
    this.listeners.add(listener);
    return () => void this.listeners.delete(listener);
  }

  async stopAll(): Promise<void> {
    await Promise.all([...this.running.keys()].map((key) => this.stop(key)));
    await this.writing;
  }

  private get recordFile(): string | undefined {
    return this.stateDir === undefined ? undefined : join(this.stateDir, `processes-${process.pid}.json`);
  }

  /** Writes down what runs now (its pids, start times, programs), or removes the record when nothing does. */
  private record(): Promise<void> {
    const file = this.recordFile;
    if (file === undefined || this.stateDir === undefined) return Promise.resolve();
    const stateDir = this.stateDir;
    const write = async (): Promise<void> => {
      const processes = [...this.running.values()].flatMap((r) => r.processes.map((p) => ({ key: r.spec.key, ...p })));
      try {
        if (processes.length === 0) {
          await rm(file, { force: true });
          return;
        }
        this.netemuStarted ??= knownProcess(process.pid)?.started ?? "";
        await mkdir(stateDir, { recursive: true });
        const record: ProcessesRecord = { pid: process.pid, started: this.netemuStarted, processes };
        await writeFileAtomic(file, `${JSON.stringify(record, null, 2)}\n`);
      } catch (e) {
        this.logger.error("the record of running host processes could not be written", { path: file, reason: (e as Error).message });
      }
    };
    this.writing = this.writing.then(write, write);
    return this.writing;
  }

  /**
   * Ends the host processes a netemu that is gone (killed with -9) recorded: each only while it is still
   * the process recorded (pid, start time, program); a record of a netemu that still runs is its own.
   * Starts wait for it. Answers the pids ended.
   */
  endLeftovers(): Promise<readonly number[]> {
    const run = async (): Promise<number[]> => {
      if (this.stateDir === undefined) return [];
      let files: string[];
      try {
        files = await readdir(this.stateDir);
      } catch {
        return [];
      }
      const ended: number[] = [];
      for (const file of files) {
        const match = RECORD.exec(file);
        if (match === null || Number(match[1]) === process.pid) continue;
        const path = join(this.stateDir, file);
        let record: ProcessesRecord;
        try {
          record = JSON.parse(await readFile(path, "utf8")) as ProcessesRecord;
        } catch {
          continue;
        }
        const maker = knownProcess(Number(match[1]));
        if (maker !== undefined && record.started !== "" && maker.started === record.started) continue;
        const leftovers = (Array.isArray(record.processes) ? record.processes : []).filter(
          (p) => typeof p?.pid === "number" && Number.isInteger(p.pid) && p.pid > 1 && typeof p.started === "string" && typeof p.exe === "string",
        );
        for (const p of leftovers) if (signalKnown(p, "SIGKILL")) ended.push(p.pid);
        const deadline = Date.now() + STOP_GRACE_MS;
        while (leftovers.some(stillRuns) && Date.now() < deadline) await sleep(20);
        await rm(path, { force: true });
        if (ended.length > 0) this.logger.warn("ended the host processes a netemu that is gone left running", { record: path, pids: ended });
      }
      return ended;
    };
    const done = run();
    this.leftovers = done.catch(() => undefined);
    return done;
  }
}
