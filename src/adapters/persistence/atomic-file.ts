import { open, readdir, rename, rm } from "node:fs/promises";
import { basename, dirname, join } from "node:path";

/** The few file operations an atomic write needs; the tests give one that records the order. */
export interface DurableFileSystem {
  open(path: string, flags: "w" | "r", mode?: number): Promise<{ writeFile(data: string): Promise<void>; sync(): Promise<void>; close(): Promise<void> }>;
  rename(from: string, to: string): Promise<void>;
  remove(path: string): Promise<void>;
}

export const NODE_FILE_SYSTEM: DurableFileSystem = {
  open: (path, flags, mode) => open(path, flags, mode),
  rename,
  remove: (path) => rm(path, { force: true }),
};

/** `<file>.<pid>.tmp`: the writer's pid in the name tells a later start whether the writer is gone. */
function temporaryOf(path: string, pid: number): string {
  return `${path}.${pid}.tmp`;
}

/**
 * Replaces the file with the content so that, whatever moment the process or the machine stops,
 * the file is either the old one or the new one, whole (ADR 0047): a temporary file in the same
 * directory, written, fsynced, renamed over the file, then the directory fsynced so the rename
 * itself is on disk.
 */
export async function writeFileAtomically(path: string, content: string, mode: number, fs: DurableFileSystem = NODE_FILE_SYSTEM): Promise<void> {
  const temporary = temporaryOf(path, process.pid);
  try {
    const file = await fs.open(temporary, "w", mode);
    try {
      await file.writeFile(content);
      await file.sync();
    } finally {
      await file.close();
    }
    await fs.rename(temporary, path);
  } catch (err) {
    await fs.remove(temporary).catch(() => undefined);
    throw err;
  }
  const directory = await fs.open(dirname(path), "r");
  try {
    await directory.sync();
  } finally {
    await directory.close();
  }
}

function isRunning(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch (err) {
    // EPERM: the process exists but belongs to someone else.
    return (err as NodeJS.ErrnoException).code === "EPERM";
  }
}

/**
 * Removes the temporaries of the file that writers killed mid-write left behind (`<file>.<pid>.tmp`
 * whose process is gone); a live writer's temporary is left alone. Answers the paths removed.
 */
export async function removeStaleTemporaries(path: string): Promise<readonly string[]> {
  const name = basename(path);
  const removed: string[] = [];
  let entries: string[];
  try {
    entries = await readdir(dirname(path));
  } catch (err) {
    if ((err as NodeJS.ErrnoException).code === "ENOENT") return removed;
    throw err;
  }
  for (const entry of entries) {
    if (!entry.startsWith(`${name}.`) || !entry.endsWith(".tmp")) continue;
    const pid = entry.slice(name.length + 1, -".tmp".length);
    if (!/^\d+$/.test(pid) || Number(pid) === process.pid || isRunning(Number(pid))) continue;
    await rm(join(dirname(path), entry), { force: true });
    removed.push(join(dirname(path), entry));
  }
  return removed;
}
