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

  constructor(private readonly version = "0.8.3") {}

  async probe(): Promise<E.Either<string, string>> {
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
    if (this.failStart !== undefined) return E.left(this.failStart);
    const pid = this.nextPid++;
    this.started.push(spec);
    this.running.set(spec.key, pid);
    return E.right({ pid });
  }

  async stop(key: string): Promise<void> {
    this.running.delete(key);
  }

  pidOf(key: string): number | undefined {
    return this.running.get(key);
  }

  onExit(listener: (exit: ProcessExit) => void): () => void {
    this.listeners.add(listener);
    return () => void this.listeners.delete(listener);
  }

  async stopAll(): Promise<void> {
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
