import { renameSync, writeFileSync } from "node:fs";
import { threadId } from "node:worker_threads";

/**
 * Writes `sent` (frames given to the kernel, by local port) to `<NETEMU_TEST_SENDS_FILE>.<thread id>.<path>`
 * as JSON every 20 ms, for a test outside the thread to read; nothing when the variable is unset.
 * Written whole, then renamed: a reader never sees half a file.
 */
export function publishSendCounts(sent: Readonly<Record<number, number>>, path: "batched" | "dgram"): void {
  const file = process.env["NETEMU_TEST_SENDS_FILE"];
  if (file === undefined) return;
  const target = `${file}.${threadId}.${path}`;
  setInterval(() => {
    writeFileSync(`${target}.tmp`, JSON.stringify(sent));
    renameSync(`${target}.tmp`, target);
  }, 20).unref();
}
