import { mkdir, open, readFile, rm } from "node:fs/promises";
import { JSON_DEPTH_LIMIT, gns3Json, jsonDepthExceeds } from "../shared/gns3-json.js";
import { basename, dirname, join } from "node:path";
import * as E from "fp-ts/lib/Either.js";
import type { ErrorOf } from "../../application/errors.js";
import type { SettingsStore } from "../../application/ports/settings-store.js";
import { DEFAULT_IOU_LICENSE, type IouLicense } from "../../domain/server/iou-license.js";
import { jsonErrorLine } from "./json-error-line.js";
import { removeStaleTemporaries, writeFileAtomic } from "../shared/atomic-file.js";

export class CorruptSettingsFile extends Error {
  constructor(readonly path: string, detail: string) {
    super(`The settings file ${path} is not valid: ${detail}. Fix or move it; netemu does not overwrite it.`);
  }
}

/** Start-up found the config directory or the settings file unusable: one line for the operator. */
export class UnusableConfigDirectory extends Error {
  constructor(readonly path: string, action: string, err: NodeJS.ErrnoException) {
    // Node's "ENOTDIR: not a directory, mkdir '/x'" repeats the path: keep the OS's words and code.
    const words = /^[A-Z]+: ([^,]+),/.exec(err.message)?.[1] ?? err.message;
    super(`Cannot ${action} ${path}: ${words}${err.code === undefined ? "" : ` (${err.code})`}`);
  }
}

type SettingsFileFailed = ErrorOf<"SettingsFileFailed">;

function failed(path: string, operation: "read" | "write", err: unknown): SettingsFileFailed {
  // A file edited into invalid JSON after start-up is EINVAL: not an OS failure, but as unusable.
  if (err instanceof CorruptSettingsFile) return { _tag: "SettingsFileFailed", path, operation, code: "EINVAL", detail: err.message };
  const e = err as NodeJS.ErrnoException;
  return { _tag: "SettingsFileFailed", path, operation, code: e.code ?? "EIO", detail: e.message };
}

/**
 * The controller settings file (`gns3_controller.conf`, JSON as in GNS3), holding `iou_license`
 * among keys netemu keeps untouched. Written atomically (ADR 0047): a crash leaves the old file or
 * the new one, never half of one.
 */
export class FileSettingsStore implements SettingsStore {
  readonly path: string;
  private cache: Record<string, unknown> | undefined;

  constructor(private readonly configDir: string) {
    this.path = join(configDir, "gns3_controller.conf");
  }

  /**
   * What `netemu serve` checks before it listens: the config directory exists (created if need
   * be) and can be written, temporaries of writers killed mid-write are removed, and the settings
   * file, if any, is valid. Throws UnusableConfigDirectory or CorruptSettingsFile; answers the
   * temporaries removed.
   */
  async prepare(): Promise<readonly string[]> {
    try {
      await mkdir(this.configDir, { recursive: true });
    } catch (err) {
      throw new UnusableConfigDirectory(this.configDir, "create the config directory", err as NodeJS.ErrnoException);
    }
    const probe = join(this.configDir, `.netemu-write-check.${process.pid}.tmp`);
    try {
      await (await open(probe, "w", 0o600)).close();
      await rm(probe, { force: true });
    } catch (err) {
      throw new UnusableConfigDirectory(this.configDir, "write in the config directory", err as NodeJS.ErrnoException);
    }
    let removed: readonly string[];
    try {
      const name = basename(this.path);
      removed = (await removeStaleTemporaries(this.configDir, (file) => file === name)).map((file) => join(this.configDir, file));
    } catch (err) {
      throw new UnusableConfigDirectory(this.configDir, "clean the config directory", err as NodeJS.ErrnoException);
    }
    try {
      await this.load();
    } catch (err) {
      if (err instanceof CorruptSettingsFile) throw err;
      throw new UnusableConfigDirectory(this.path, "read the settings file", err as NodeJS.ErrnoException);
    }
    return removed;
  }

  /** Reads the file once; a missing file is an empty one, a corrupt one an error naming its line. */
  async load(): Promise<Record<string, unknown>> {
    if (this.cache !== undefined) return this.cache;
    let text: string;
    try {
      text = await readFile(this.path, "utf8");
    } catch (err) {
      if ((err as NodeJS.ErrnoException).code === "ENOENT") return (this.cache = {});
      throw err;
    }
    let parsed: unknown;
    try {
      parsed = JSON.parse(text);
    } catch (err) {
      throw new CorruptSettingsFile(this.path, describeJsonError(text, err as Error));
    }
    if (typeof parsed !== "object" || parsed === null || Array.isArray(parsed)) {
      throw new CorruptSettingsFile(this.path, "line 1: the top level must be a JSON object");
    }
    // netemu writes the file back whole: a nesting it could not write is refused when it is read.
    if (jsonDepthExceeds(parsed)) throw new CorruptSettingsFile(this.path, `nested deeper than ${JSON_DEPTH_LIMIT} levels`);
    return (this.cache = parsed as Record<string, unknown>);
  }

  async loadIouLicense(): Promise<E.Either<SettingsFileFailed, IouLicense>> {
    let settings: Record<string, unknown>;
    try {
      settings = await this.load();
    } catch (err) {
      return E.left(failed(this.path, "read", err));
    }
    const stored = settings["iou_license"];
    if (typeof stored !== "object" || stored === null) return E.right(DEFAULT_IOU_LICENSE);
    const s = stored as Record<string, unknown>;
    return E.right({
      iourc_content: typeof s["iourc_content"] === "string" ? s["iourc_content"] : DEFAULT_IOU_LICENSE.iourc_content,
      license_check: typeof s["license_check"] === "boolean" ? s["license_check"] : DEFAULT_IOU_LICENSE.license_check,
    });
  }

  async saveIouLicense(license: IouLicense): Promise<E.Either<SettingsFileFailed, void>> {
    let current: Record<string, unknown>;
    try {
      current = await this.load();
    } catch (err) {
      return E.left(failed(this.path, "read", err));
    }
    const next = { ...current, iou_license: license };
    try {
      await mkdir(dirname(this.path), { recursive: true });
      // GNS3's json.dump(settings, f, indent=4, sort_keys=True), by the one writer of that layout (ADR 0053).
      await writeFileAtomic(this.path, gns3Json(next), 0o600);
    } catch (err) {
      return E.left(failed(this.path, "write", err));
    }
    this.cache = next;
    return E.right(undefined);
  }
}

/** Node's JSON errors do not always give a position; people want a line. */
function describeJsonError(text: string, err: Error): string {
  return `line ${jsonErrorLine(text)}: ${err.message.split("\n")[0]}`;
}
