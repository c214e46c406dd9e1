import { mkdir, rm, writeFile } from "node:fs/promises";
import { join } from "node:path";
import * as E from "fp-ts/lib/Either.js";
import type { ErrorOf } from "../../application/errors.js";
import type { DebugBundleFile, DebugBundleWriter } from "../../application/ports/system.js";

/** Replaces <config dir>/debug with the bundle's files, as GNS3 does. */
export class DirectoryDebugBundleWriter implements DebugBundleWriter {
  constructor(private readonly configDir: string) {}

  async write(files: readonly DebugBundleFile[]): Promise<E.Either<ErrorOf<"DebugBundleUnwritable">, string>> {
    const dir = join(this.configDir, "debug");
    try {
      await rm(dir, { recursive: true, force: true });
      await mkdir(dir, { recursive: true });
      for (const file of files) await writeFile(join(dir, file.name), file.content, { mode: 0o600 });
    } catch (err) {
      const e = err as NodeJS.ErrnoException;
      return E.left({ _tag: "DebugBundleUnwritable", path: dir, code: e.code ?? "EIO", detail: e.message });
    }
    return E.right(dir);
  }
}
