import { once } from "node:events";
import { closeSync, mkdirSync, openSync } from "node:fs";
import { basename, dirname, resolve } from "node:path";
import { createStream } from "rotating-file-stream";

export class LogFileUnwritable extends Error {}

/** Where the log goes instead of stdout: a file rotated by size, keeping a bounded number of old ones. */
interface LogFileSettings {
  readonly path: string;
  /** Rotate once the file reaches this size: digits and B, K, M or G ("10M"). */
  readonly maxSize: string;
  /** How many rotated files to keep (`<path>.1` the newest, `<path>.<maxFiles>` the oldest). */
  readonly maxFiles: number;
}

interface LogFile {
  /** What pino writes to. */
  readonly stream: NodeJS.WritableStream;
  /** Writes out what is buffered and closes the file. */
  close(): Promise<void>;
}

/**
 * Opens the log file with classical rotation (ADR 0044): `netemu.log` is renamed `netemu.log.1`,
 * the older ones shift up, and the oldest beyond `maxFiles` is overwritten. A write is never split
 * between two files.
 */
export function openLogFile(settings: LogFileSettings): LogFile {
  const path = resolve(settings.path);
  // The stream opens the file later: a path that cannot be written is refused now, at start-up,
  // rather than leaving netemu running with no log at all.
  try {
    mkdirSync(dirname(path), { recursive: true });
    closeSync(openSync(path, "a"));
  } catch (err) {
    throw new LogFileUnwritable(`Cannot write the log file ${path}: ${(err as Error).message}`);
  }
  const stream = createStream(basename(path), {
    path: dirname(path),
    size: settings.maxSize,
    rotate: settings.maxFiles,
  });
  // An unwritable log must not end the process: the operator sees why on stderr, once.
  stream.on("error", (err: Error) => process.stderr.write(`netemu: the log file ${path} cannot be written: ${err.message}\n`));
  return {
    stream,
    async close() {
      if (stream.destroyed || stream.writableFinished) return;
      const finished = once(stream, "finish");
      stream.end();
      await finished;
    },
  };
}
