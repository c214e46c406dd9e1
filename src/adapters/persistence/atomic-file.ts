import { open, readdir, rename, rm } from "node:fs/promises";
import { dirname, join } from "node:path";

let sequence = 0;

/** The temporary name a write of `file` goes through: beside it, so that the rename stays on one file system. */
function temporaryName(file: string): string {
  return `${file}.${process.pid}.${++sequence}.tmp`;
}

/**
 * Replaces `file` with `data` so that a crash at any moment (kill -9, power loss) leaves either the
 * old content or the new one, never a mix: written to a temporary file in the same directory, flushed
 * to disk, renamed over the file, then the directory flushed so that the rename itself is durable.
 */
export async function writeFileAtomic(file: string, data: string): Promise<void> {
  const temporary = temporaryName(file);
  try {
    const handle = await open(temporary, "w", 0o644);
    try {
      await handle.writeFile(data, "utf8");
      await handle.sync();
    } finally {
      await handle.close();
    }
    await rename(temporary, file);
  } catch (err) {
    await rm(temporary, { force: true });
    throw err;
  }
  const directory = await open(dirname(file), "r");
  try {
    await directory.sync();
  } finally {
    await directory.close();
  }
}

const TEMPORARY = /^(.+)\.\d+\.\d+\.tmp$/;

/**
 * Removes from `directory` what interrupted atomic writes left behind, for the files `isOurs` names
 * (a crash between the temporary file and the rename); answers the names removed.
 */
export async function removeStaleTemporaries(directory: string, isOurs: (fileName: string) => boolean): Promise<string[]> {
  const left = (await readdir(directory)).filter((name) => {
    const target = TEMPORARY.exec(name)?.[1];
    return target !== undefined && isOurs(target);
  });
  for (const name of left) await rm(join(directory, name), { force: true });
  return left;
}
