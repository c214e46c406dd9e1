import { mkdir, readFile, rename, writeFile } from "node:fs/promises";
import { dirname, join } from "node:path";
import type { SettingsStore } from "../../application/ports/settings-store.js";
import { DEFAULT_IOU_LICENSE, type IouLicense } from "../../domain/server/iou-license.js";
import { jsonErrorLine } from "./json-error-line.js";

export class CorruptSettingsFile extends Error {
  constructor(readonly path: string, detail: string) {
    super(`The settings file ${path} is not valid: ${detail}. Fix or move it; netemu does not overwrite it.`);
  }
}

/**
 * The controller settings file (`gns3_controller.conf`, JSON as in GNS3), holding `iou_license`
 * among keys netemu keeps untouched. Written to a temporary file then renamed, so a crash never
 * leaves half a file.
 */
export class FileSettingsStore implements SettingsStore {
  readonly path: string;
  private cache: Record<string, unknown> | undefined;

  constructor(configDir: string) {
    this.path = join(configDir, "gns3_controller.conf");
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
    return (this.cache = parsed as Record<string, unknown>);
  }

  async loadIouLicense(): Promise<IouLicense> {
    const stored = (await this.load())["iou_license"];
    if (typeof stored !== "object" || stored === null) return DEFAULT_IOU_LICENSE;
    const s = stored as Record<string, unknown>;
    return {
      iourc_content: typeof s["iourc_content"] === "string" ? s["iourc_content"] : DEFAULT_IOU_LICENSE.iourc_content,
      license_check: typeof s["license_check"] === "boolean" ? s["license_check"] : DEFAULT_IOU_LICENSE.license_check,
    };
  }

  async saveIouLicense(license: IouLicense): Promise<void> {
    const next = { ...(await this.load()), iou_license: license };
    await mkdir(dirname(this.path), { recursive: true });
    const temporary = `${this.path}.${process.pid}.tmp`;
    await writeFile(temporary, JSON.stringify(next, null, 4) + "\n", { mode: 0o600 });
    await rename(temporary, this.path);
    this.cache = next;
  }
}

/** Node's JSON errors do not always give a position; people want a line. */
function describeJsonError(text: string, err: Error): string {
  return `line ${jsonErrorLine(text)}: ${err.message.split("\n")[0]}`;
}
