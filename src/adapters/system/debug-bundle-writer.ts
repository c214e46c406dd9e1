import { mkdir, rm, writeFile } from "node:fs/promises";
import { join } from "node:path";
import type { DebugBundleFile, DebugBundleWriter } from "../../application/ports/system.js";

/** Replaces <config dir>/debug with the bundle's files, as GNS3 does. */
export class DirectoryDebugBundleWriter implements DebugBundleWriter {
  constructor(private readonly configDir: string) {}

  async write(files: readonly DebugBundleFile[]): Promise<string> {
    const dir = join(this.configDir, "debug");
    await rm(dir, { recursive: true, force: true });
    await mkdir(dir, { recursive: true });
    for (const file of files) await writeFile(join(dir, file.name), file.content, { mode: 0o600 });
    return dir;
  }
}
