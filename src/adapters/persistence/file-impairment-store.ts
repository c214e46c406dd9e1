import { mkdir, readFile, rename } from "node:fs/promises";
import { join } from "node:path";
import * as E from "fp-ts/lib/Either.js";
import { type Impairment, type ImpairmentTarget, sameTarget } from "../../domain/switching/impairment-overlay.js";
import { parseFilterSettings } from "../../domain/filters/filter-settings.js";
import { renderFilterSettings } from "../../domain/filters/filter-settings.js";
import type { ImpairmentStore } from "../../application/ports/impairment-store.js";
import type { Logger } from "../../application/ports/system.js";
import { writeFileAtomic } from "./atomic-file.js";

/** The file, in the config directory: it outlives compute projects, which GNS3 closes and opens at will (ADR 0067). */
const IMPAIRMENTS_FILE = "impairments.json";

/**
 * netemu's impairments on GNS3 ports, kept in `<config dir>/impairments.json` so that they survive a
 * restart of netemu: read once, on first use; each change written whole and atomically (ADR 0047).
 * A file that does not parse is moved aside (never overwritten) and the store starts empty, saying so.
 */
export class FileImpairmentStore implements ImpairmentStore {
  private entries: Promise<readonly Impairment[]> | undefined;
  private writing: Promise<void> = Promise.resolve();

  constructor(private readonly configDir: string, private readonly logger: Logger) {}

  list(): Promise<readonly Impairment[]> {
    return (this.entries ??= this.load());
  }

  async put(impairment: Impairment): Promise<void> {
    const all = await this.list();
    await this.save([...all.filter((e) => !sameTarget(e, impairment)), impairment]);
  }

  async remove(target: ImpairmentTarget): Promise<void> {
    const all = await this.list();
    if (all.some((e) => sameTarget(e, target))) await this.save(all.filter((e) => !sameTarget(e, target)));
  }

  private get file(): string {
    return join(this.configDir, IMPAIRMENTS_FILE);
  }

  private async save(entries: readonly Impairment[]): Promise<void> {
    // One write at a time, in order: the file always ends as the last change left the list.
    const write = this.writing.then(async () => {
      await mkdir(this.configDir, { recursive: true });
      await writeFileAtomic(this.file, JSON.stringify({ impairments: entries.map(toFile) }, null, 2) + "\n");
    });
    this.writing = write.catch(() => undefined);
    await write;
    this.entries = Promise.resolve(entries);
  }

  private async load(): Promise<readonly Impairment[]> {
    let text: string;
    try {
      text = await readFile(this.file, "utf8");
    } catch (err) {
      if ((err as NodeJS.ErrnoException).code === "ENOENT") return [];
      throw err;
    }
    const parsed = fromFile(text);
    if (E.isRight(parsed)) return parsed.right;
    const aside = `${this.file}.unreadable-${Date.now()}`;
    await rename(this.file, aside);
    this.logger.error("impairments file unreadable: moved aside, starting with none", { file: this.file, movedTo: aside, reason: parsed.left });
    return [];
  }
}

function toFile(i: Impairment): Record<string, unknown> {
  return {
    project_id: i.projectId,
    project_name: i.projectName,
    node_id: i.nodeId,
    node_name: i.nodeName,
    port_number: i.portNumber,
    port_name: i.portName,
    filters_in: renderFilterSettings(i.in),
    filters_out: renderFilterSettings(i.out),
  };
}

/** The file's impairments, each checked as at the route (the filters by the domain's one parse), or why not. */
function fromFile(text: string): E.Either<string, readonly Impairment[]> {
  let doc: unknown;
  try {
    doc = JSON.parse(text);
  } catch (err) {
    return E.left(`not JSON: ${(err as Error).message}`);
  }
  const list = (doc as { impairments?: unknown } | null)?.impairments;
  if (!Array.isArray(list)) return E.left("no impairments list");
  const out: Impairment[] = [];
  for (const [index, raw] of list.entries()) {
    const r = raw as Record<string, unknown>;
    const texts = ["project_id", "project_name", "node_id", "node_name", "port_name"] as const;
    if (typeof r !== "object" || r === null || texts.some((k) => typeof r[k] !== "string") || !Number.isSafeInteger(r["port_number"])) {
      return E.left(`impairments[${index}]: project_id, project_name, node_id, node_name, port_name and port_number are required`);
    }
    const filtersIn = parseFilterSettings(r["filters_in"] ?? {}, `impairments[${index}].filters_in`);
    if (E.isLeft(filtersIn)) return E.left(`impairments[${index}].filters_in does not parse: ${filtersIn.left.problem.problem}`);
    const filtersOut = parseFilterSettings(r["filters_out"] ?? {}, `impairments[${index}].filters_out`);
    if (E.isLeft(filtersOut)) return E.left(`impairments[${index}].filters_out does not parse: ${filtersOut.left.problem.problem}`);
    out.push(
      Object.freeze({
        projectId: r["project_id"] as string,
        projectName: r["project_name"] as string,
        nodeId: r["node_id"] as string,
        nodeName: r["node_name"] as string,
        portNumber: r["port_number"] as number,
        portName: r["port_name"] as string,
        in: filtersIn.right,
        out: filtersOut.right,
      }),
    );
  }
  return E.right(out);
}
