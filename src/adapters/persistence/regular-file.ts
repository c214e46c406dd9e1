import { constants, type Stats } from "node:fs";
import { lstat, open } from "node:fs/promises";

/** What a directory entry is, in words for a log line. */
export function kindOf(info: Stats): string {
  if (info.isSymbolicLink()) return "a symbolic link";
  if (info.isDirectory()) return "a directory";
  if (info.isFIFO()) return "a FIFO";
  if (info.isSocket()) return "a socket";
  if (info.isCharacterDevice()) return "a character device";
  if (info.isBlockDevice()) return "a block device";
  return "not a regular file";
}

/** Why a file was not read: nothing of its content, only what it is (a log line must never quote a link's target). */
export type UnreadFile =
  | { readonly _tag: "missing" }
  | { readonly _tag: "not-regular"; readonly kind: string }
  | { readonly _tag: "too-large"; readonly size: number | undefined }
  | { readonly _tag: "replaced" };

/**
 * A file's text (and its bytes), or why it is not read (ADR 0057): only a regular file, never followed through a
 * symbolic link, never opened in a way that can wait (a FIFO), at most `maxBytes` read. Errors of
 * the host other than a missing file are thrown.
 */
export async function readRegularFile(file: string, maxBytes: number): Promise<{ readonly text: string; readonly bytes: Buffer } | { readonly unread: UnreadFile }> {
  // A file swapped by an atomic rename between the look and the open (netemu's own project writer does
  // that) is whole again at once: looked at anew, a few times, before it is called replaced.
  for (let attempt = 1; ; attempt++) {
    const read = await readOnce(file, maxBytes);
    if (!("unread" in read) || read.unread._tag !== "replaced" || attempt === REPLACED_ATTEMPTS) return read;
  }
}

const REPLACED_ATTEMPTS = 3;

async function readOnce(file: string, maxBytes: number): Promise<{ readonly text: string; readonly bytes: Buffer } | { readonly unread: UnreadFile }> {
  let info: Stats;
  try {
    info = await lstat(file);
  } catch (err) {
    if ((err as NodeJS.ErrnoException).code === "ENOENT") return { unread: { _tag: "missing" } };
    throw err;
  }
  // Only what sits there itself: a link could show any file of the host in a log line.
  if (!info.isFile()) return { unread: { _tag: "not-regular", kind: kindOf(info) } };
  if (info.size > maxBytes) return { unread: { _tag: "too-large", size: info.size } };
  // O_NONBLOCK: had a FIFO taken the file's place since lstat, opening it would wait for a writer forever.
  const handle = await open(file, constants.O_RDONLY | constants.O_NOFOLLOW | constants.O_NONBLOCK);
  try {
    const opened = await handle.stat();
    if (!opened.isFile() || opened.ino !== info.ino || opened.dev !== info.dev) return { unread: { _tag: "replaced" } };
    // One byte more than allowed tells a file that grew past the limit since it was looked at.
    const buffer = Buffer.alloc(Math.min(opened.size, maxBytes) + 1);
    let length = 0;
    for (;;) {
      const { bytesRead } = await handle.read(buffer, length, buffer.length - length, length);
      if (bytesRead === 0) break;
      length += bytesRead;
      if (length === buffer.length) break;
    }
    if (length > maxBytes) return { unread: { _tag: "too-large", size: undefined } };
    const bytes = buffer.subarray(0, length);
    return { text: bytes.toString("utf8"), bytes };
  } finally {
    await handle.close();
  }
}
