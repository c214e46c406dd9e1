import { existsSync, readdirSync } from "node:fs";
import { join } from "node:path";
import { LOCK_FILE_NAME } from "../../src/adapters/persistence/projects-path-lock.js";

/** Every file under `dir`, relative to it and sorted, but the projects-path lock of the server (ADR 0058). */
export function filesUnder(dir: string): string[] {
  if (!existsSync(dir)) return [];
  return readdirSync(dir, { recursive: true, withFileTypes: true })
    .filter((e) => !e.isDirectory())
    .map((e) => join(e.parentPath, e.name).slice(dir.length + 1))
    .filter((f) => f !== LOCK_FILE_NAME)
    .sort();
}
