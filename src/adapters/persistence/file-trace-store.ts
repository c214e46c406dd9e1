import { mkdirSync, readFileSync, readdirSync } from "node:fs";
import { rm } from "node:fs/promises";
import { join } from "node:path";
import type { Logger } from "../../application/ports/system.js";
import type { StoredTrace, TraceStore } from "../../application/ports/trace-store.js";
import { type Trace, isTraceName, parseTrace } from "../../domain/traces/trace.js";
import { writeFileAtomic } from "../shared/atomic-file.js";

/** The uploaded traces in memory: an embedder's store (`createNetemu({ traceStore })`), and what the file store keeps in front of its files. */
export class InMemoryTraceStore implements TraceStore {
  protected readonly byName = new Map<string, StoredTrace>();

  traceNamed(name: string): Trace | undefined {
    return this.byName.get(name)?.trace;
  }
  list(): readonly StoredTrace[] {
    return [...this.byName.values()].sort((a, b) => (a.name < b.name ? -1 : a.name > b.name ? 1 : 0));
  }
  get(name: string): StoredTrace | undefined {
    return this.byName.get(name);
  }
  async put(stored: StoredTrace): Promise<void> {
    this.byName.set(stored.name, stored);
  }
  async delete(name: string): Promise<void> {
    this.byName.delete(name);
  }
}

/**
 * The uploaded traces as files, `<configDir>/traces/<name>`, each the text as uploaded (ADR 0103): read
 * once at start (a file that no longer parses, or whose name is not a trace name, is logged and
 * left out), kept in memory, written atomically before an upload is answered.
 */
export class FileTraceStore extends InMemoryTraceStore {
  private readonly directory: string;

  constructor(configDir: string, private readonly logger: Logger) {
    super();
    this.directory = join(configDir, "traces");
    let names: string[] = [];
    try {
      names = readdirSync(this.directory);
    } catch {
      return; // No directory yet: no trace was uploaded.
    }
    for (const name of names) {
      if (!isTraceName(name) || name.endsWith(".tmp")) continue;
      try {
        const text = readFileSync(join(this.directory, name), "utf8");
        const read = parseTrace(text);
        if (read.ok) this.byName.set(name, { name, text, trace: read.trace });
        else this.logger.warn("a stored trace no longer reads and is left out", { name, problem: read.problem });
      } catch (err) {
        this.logger.warn("a stored trace could not be read", { name, reason: err instanceof Error ? err.message : String(err) });
      }
    }
  }

  override async put(stored: StoredTrace): Promise<void> {
    mkdirSync(this.directory, { recursive: true });
    await writeFileAtomic(join(this.directory, stored.name), stored.text);
    await super.put(stored);
  }

  override async delete(name: string): Promise<void> {
    await rm(join(this.directory, name), { force: true });
    await super.delete(name);
  }
}
