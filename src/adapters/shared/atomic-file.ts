import { open, readdir, rename, rm } from "node:fs/promises";
import { dirname, join } from "node:path";

// In adapters/shared: the project, settings and impairment stores and the namespace hosts' state all write with it.

/** The few file operations an atomic write needs; a test passes one that records their order. */
export interface DurableFileSystem {
  open(path: string, flags: "w" | "r", mode?: number): Promise<{ writeFile(data: string, encoding: "utf8"): Promise<void>; sync(): Promise<void>; close(): Promise<void> }>;
  rename(from: string, to: string): Promise<void>;
  remove(path: string): Promise<void>;
}

export const NODE_FILE_SYSTEM: DurableFileSystem = {
  open: (path, flags, mode) => open(path, flags, mode),
  rename,
  remove: (path) => rm(path, { force: true }),
};

let sequence = 0;

/** The temporary name a write of `file` goes through: beside it, so that the rename stays on one file system. */
function temporaryName(file: string): string {
  return `${file}.${process.pid}.${++sequence}.tmp`;
}

/**
 * Replaces `file` with `data` so that a crash at any moment (kill -9, power loss) leaves either the
 * old content or the new one, never a mix: written to a temporary file in the same directory, flushed
 * to disk, renamed over the file, then the directory flushed so that the rename itself is durable
 * (ADR 0047). `mode` is the new file's (0o600 for one holding secrets).
 */
export async function writeFileAtomic(file: string, data: string, mode = 0o644, fs: DurableFileSystem = NODE_FILE_SYSTEM): Promise<void> {
  const temporary = temporaryName(file);
  try {
    const handle = await fs.open(temporary, "w", mode);
    try {
      await handle.writeFile(data, "utf8");
      await handle.sync();
    } finally {
      await handle.close();
    }
    await fs.rename(temporary, file);
  } catch (err) {
    await fs.remove(temporary).catch(() => undefined);
    throw err;
  }
  const directory = await fs.open(dirname(file), "r");
  try {
    await directory.sync();
  } finally {
    await directory.close();
  }
}

/**
 * The file a temporary was for: `<file>.<pid>.<n>.tmp`, or `<file>.<pid>.tmp` as netemu named them
 * before ADR 0047 (`gns3_controller.conf.<pid>.tmp` left by a writer killed mid-write).
 */
function targetsOf(name: string): string[] {
  return [/\.\d+\.\d+\.tmp$/, /\.\d+\.tmp$/].flatMap((suffix) => (suffix.test(name) ? [name.replace(suffix, "")] : []));
}

/**
 * Removes from `directory` what interrupted atomic writes left behind, for the files `isOurs` names
 * (a crash between the temporary file and the rename); answers the names removed. Meant for start-up,
 * before this process writes anything.
 */
export async function removeStaleTemporaries(directory: string, isOurs: (fileName: string) => boolean): Promise<string[]> {
  const left = (await readdir(directory)).filter((name) => targetsOf(name).some(isOurs));
  for (const name of left) await rm(join(directory, name), { force: true });
  return left;
}
