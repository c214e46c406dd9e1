import { closeSync, linkSync, mkdirSync, openSync, readFileSync, renameSync, unlinkSync, writeFileSync, writeSync } from "node:fs";
import { hostname } from "node:os";
import { join } from "node:path";
import type { Logger } from "../../application/ports/system.js";

export const LOCK_FILE_NAME = ".netemu.lock";

/** Who holds a projects path: what the lock file says. */
export interface LockHolder {
  readonly pid: number;
  readonly host: string;
  /** Where the holder serves HTTP (its port is 0 until it listens). */
  readonly address: string;
  readonly port: number;
  readonly startedAt: string;
}

/** A second server on a projects path another one serves: refused, naming the holder (ADR 0058). */
export class ProjectsPathLocked extends Error {
  constructor(
    readonly projectsPath: string,
    readonly lockFile: string,
    readonly holder: LockHolder | undefined,
  ) {
    super(
      holder === undefined
        ? `the projects path ${projectsPath} is in use: ${lockFile} exists and cannot be read (remove it if no netemu serves that path)`
        : `the projects path ${projectsPath} is in use by netemu pid ${holder.pid} on ${holder.host} serving http://${shownAddress(holder.address)}:${holder.port} since ${holder.startedAt}` +
            ` (stop it, or use another --projects-path; ${lockFile} names it)`,
    );
  }
}

/** The projects path cannot hold its lock file (not a directory, not writable). */
export class ProjectsPathUnusable extends Error {
  constructor(
    readonly projectsPath: string,
    readonly code: string,
  ) {
    super(`cannot lock the projects path ${projectsPath}: ${code}`);
  }
}

const shownAddress = (address: string): string => (address.includes(":") ? `[${address}]` : address);

/** What the host answers about a process id: whether it is alive (the seam for tests). */
export interface ProcessProbe {
  readonly hostname: string;
  readonly pid: number;
  isAlive(pid: number): boolean;
}

const THIS_HOST: ProcessProbe = {
  hostname: hostname(),
  pid: process.pid,
  isAlive(pid) {
    try {
      process.kill(pid, 0);
      return true;
    } catch (err) {
      // EPERM: alive, but another user's.
      return (err as NodeJS.ErrnoException).code !== "ESRCH";
    }
  },
};

function parseHolder(text: string): LockHolder | undefined {
  try {
    const v = JSON.parse(text) as Partial<LockHolder>;
    if (!Number.isSafeInteger(v.pid) || (v.pid as number) <= 0 || typeof v.host !== "string") return undefined;
    return {
      pid: v.pid as number,
      host: v.host,
      address: typeof v.address === "string" ? v.address : "?",
      port: typeof v.port === "number" ? v.port : 0,
      startedAt: typeof v.startedAt === "string" ? v.startedAt : "?",
    };
  } catch {
    return undefined;
  }
}

function readOrUndefined(path: string): string | undefined {
  try {
    return readFileSync(path, "utf8");
  } catch (err) {
    if ((err as NodeJS.ErrnoException).code === "ENOENT") return undefined;
    throw err;
  }
}

/**
 * One server per projects path (ADR 0058): `<projects_path>/.netemu.lock`, created with O_EXCL (of two
 * racing starts exactly one creates it), holding the holder's pid, host, address and start time. A
 * lock whose pid is dead on this host (a server killed with -9) is taken over, with a log line; a live
 * holder, or one on another host, is refused. Synchronous: it runs once, before anything reads or
 * writes the projects.
 */
export class ProjectsPathLock {
  private released = false;
  private holder: LockHolder;
  private readonly onExit = (): void => this.release();

  private constructor(
    readonly path: string,
    holder: LockHolder,
  ) {
    this.holder = holder;
    // A process that exits without shutting down (an uncaught error, process.exit) leaves no lock.
    process.once("exit", this.onExit);
  }

  static acquire(projectsPath: string, where: { address: string; port: number }, logger: Logger, probe: ProcessProbe = THIS_HOST): ProjectsPathLock {
    const path = join(projectsPath, LOCK_FILE_NAME);
    const holder: LockHolder = { pid: probe.pid, host: probe.hostname, address: where.address, port: where.port, startedAt: new Date().toISOString() };
    try {
      mkdirSync(projectsPath, { recursive: true });
    } catch (err) {
      throw new ProjectsPathUnusable(projectsPath, (err as NodeJS.ErrnoException).code ?? (err as Error).message);
    }
    try {
      return ProjectsPathLock.take(path, holder, projectsPath, logger, probe);
    } catch (err) {
      if (err instanceof ProjectsPathLocked || err instanceof ProjectsPathUnusable) throw err;
      // A lock path that is a directory, a file that cannot be read or renamed: a path it cannot use.
      throw new ProjectsPathUnusable(projectsPath, (err as NodeJS.ErrnoException).code ?? (err as Error).message);
    }
  }

  private static take(path: string, holder: LockHolder, projectsPath: string, logger: Logger, probe: ProcessProbe): ProjectsPathLock {
    // Bounded: each turn either creates the file, refuses, or removed a stale lock another start may race for.
    for (let attempt = 0; attempt < 5; attempt++) {
      if (createExclusive(path, holder, projectsPath)) return new ProjectsPathLock(path, holder);
      const text = readOrUndefined(path);
      if (text === undefined) continue;
      const found = parseHolder(text);
      if (found === undefined || found.host !== probe.hostname || found.pid === probe.pid || probe.isAlive(found.pid)) {
        throw new ProjectsPathLocked(projectsPath, path, found);
      }
      if (takeOverStale(path, text, probe.pid)) logger.warn("took over the lock of a netemu that is gone", { lockFile: path, deadPid: found.pid, since: found.startedAt });
    }
    throw new ProjectsPathLocked(projectsPath, path, parseHolder(readOrUndefined(path) ?? ""));
  }

  /** Rewrites the lock with the address actually served (a port 0 is only known once listening). */
  listening(address: string, port: number): void {
    if (this.released) return;
    this.holder = { ...this.holder, address, port };
    const temporary = `${this.path}.${this.holder.pid}.tmp`;
    try {
      writeFileSync(temporary, JSON.stringify(this.holder) + "\n");
      renameSync(temporary, this.path);
    } catch {
      // The lock still holds, naming the configured port: a second start is refused all the same.
    }
  }

  /** Removes the lock if it is still this process's. Idempotent. */
  release(): void {
    if (this.released) return;
    this.released = true;
    process.off("exit", this.onExit);
    try {
      const found = parseHolder(readOrUndefined(this.path) ?? "");
      if (found?.pid === this.holder.pid && found.startedAt === this.holder.startedAt) unlinkSync(this.path);
    } catch {
      // Gone or unreadable: nothing of ours to remove.
    }
  }
}

function createExclusive(path: string, holder: LockHolder, projectsPath: string): boolean {
  let fd: number;
  try {
    fd = openSync(path, "wx", 0o644);
  } catch (err) {
    const code = (err as NodeJS.ErrnoException).code;
    if (code === "EEXIST") return false;
    throw new ProjectsPathUnusable(projectsPath, code ?? (err as Error).message);
  }
  try {
    writeSync(fd, JSON.stringify(holder) + "\n");
  } finally {
    closeSync(fd);
  }
  return true;
}

/**
 * Removes a stale lock without removing a fresh one a racing start just created in its place: the
 * file is renamed aside (atomic), and if what was renamed is not the stale text read before, it is
 * linked back (link never replaces an existing file). Answers whether the stale lock was removed.
 */
function takeOverStale(path: string, staleText: string, pid: number): boolean {
  const aside = `${path}.stale.${pid}`;
  try {
    renameSync(path, aside);
  } catch (err) {
    if ((err as NodeJS.ErrnoException).code === "ENOENT") return false;
    throw err;
  }
  const moved = readOrUndefined(aside);
  if (moved !== staleText) {
    try {
      linkSync(aside, path);
    } catch {
      // Someone created a lock meanwhile: theirs stands.
    }
  }
  unlinkSync(aside);
  return moved === staleText;
}
