import { open } from "node:fs/promises";
import { Readable } from "node:stream";
import { setTimeout as sleep } from "node:timers/promises";

/**
 * Streams a growing file, like `tail -f`, until `isActive` says the writer stopped and the end is
 * reached (GNS3 polls every 0.1 s the same way). Stops reading at once when the client goes.
 */
export function followFile(path: string, isActive: () => Promise<boolean>, pollMs = 100): Readable {
  async function* chunks(): AsyncGenerator<Buffer> {
    const file = await open(path, "r");
    try {
      const buffer = Buffer.alloc(64 * 1024);
      let position = 0;
      for (;;) {
        const active = await isActive();
        const { bytesRead } = await file.read(buffer, 0, buffer.length, position);
        if (bytesRead > 0) {
          position += bytesRead;
          yield Buffer.from(buffer.subarray(0, bytesRead));
          continue;
        }
        if (!active) return;
        await sleep(pollMs);
      }
    } finally {
      await file.close();
    }
  }
  return Readable.from(chunks());
}
