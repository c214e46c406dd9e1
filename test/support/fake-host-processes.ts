import * as E from "fp-ts/lib/Either.js";
import type { HostProcesses, ProcessExit, ProcessSpec } from "../../src/application/ports/host-processes.js";

/**
 * Host processes that run nothing: a VPCS 0.8.3 by its version, a pid per start, the files in memory.
 * `die(key)` ends one as a crash would. For tests of what surrounds the processes (routes, answers).
 */
export class FakeHostProcesses implements HostProcesses {
  readonly started: ProcessSpec[] = [];
  readonly files = new Map<string, string>();
  private readonly running = new Map<string, number>();
  private readonly listeners = new Set<(exit: ProcessExit) => void>();
  private nextPid = 100_000;

  /** When set, every start fails with this reason (a program that dies at once). */
  failStart: string | undefined;
  /** When set, the starts of these keys fail with this reason, the others run. */
  readonly failStartOf = new Map<string, string>();
  /** How long each start takes (a real one waits to see the program live): lets starts overlap. */
  startDelayMs = 0;
  /** How many starts ran at once at most, and how many run now. */
  maxStartsAtOnce = 0;
  private startsNow = 0;
  /** How long each stop takes (a real one waits for the process to end), and how many ran at once at most. */
  stopDelayMs = 0;
  maxStopsAtOnce = 0;
  private stopsNow = 0;
  /** How many times a program was probed (`vpcs -v`). */
  probes = 0;
  /** The program file's identity identify() answers; change it to replace the binary, undefined: not found. */
  programIdentity: string | undefined = "vpcs 1";

  constructor(private readonly version = "0.8.3") {}

  async identify(): Promise<string | undefined> {
    return this.programIdentity;
  }

  async probe(): Promise<E.Either<string, string>> {
    this.probes++;
    return E.right(`Welcome to Virtual PC Simulator, version ${this.version}\n`);
  }

  async writeFile(path: string, content: string): Promise<E.Either<string, void>> {
    this.files.set(path, content);
    return E.right(undefined);
  }

  async readFile(path: string): Promise<string | undefined> {
    return this.files.get(path);
  }

  async start(spec: ProcessSpec): Promise<E.Either<string, { readonly pid: number }>> {
    this.startsNow++;
    this.maxStartsAtOnce = Math.max(this.maxStartsAtOnce, this.startsNow);
    try {
      if (this.startDelayMs > 0) await new Promise((r) => setTimeout(r, this.startDelayMs));
    } finally {
      this.startsNow--;
    }
    if (this.failStart !== undefined) return E.left(this.failStart);
    const failure = this.failStartOf.get(spec.key);
    if (failure !== undefined) return E.left(failure);
    const pid = this.nextPid++;
    this.started.push(spec);
    this.running.set(spec.key, pid);
    return E.right({ pid });
  }

  async stop(key: string): Promise<void> {
    if (this.running.has(key) && this.stopDelayMs > 0) {
      this.stopsNow++;
      this.maxStopsAtOnce = Math.max(this.maxStopsAtOnce, this.stopsNow);
      await new Promise((r) => setTimeout(r, this.stopDelayMs));
      this.stopsNow--;
    }
    this.running.delete(key);
  }

  pidOf(key: string): number | undefined {
    return this.running.get(key);
  }

  onExit(listener: (exit: ProcessExit) => void): () => void {
    this.listeners.add(listener);
    return () => void this.listeners.delete(listener);
  }

  /** All at once, as the real one stops them: one stop's time for all. */
  async stopAll(): Promise<void> {
    if (this.running.size > 0 && this.stopDelayMs > 0) await new Promise((r) => setTimeout(r, this.stopDelayMs));
    this.running.clear();
  }

  /** The key's process ends on its own with `code` (null: a daemon, whose status netemu never sees), having written `output`. */
  die(key: string, code: number | null, output = ""): void {
    const pid = this.running.get(key);
    if (pid === undefined) return;
    this.running.delete(key);
    for (const l of this.listeners) l({ key, pid, code, signal: null, output });
  }
}
