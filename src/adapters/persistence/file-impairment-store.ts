import { constants } from "node:fs";
import { copyFile, type FileHandle, lstat, mkdir, open, rename } from "node:fs/promises";
import { join } from "node:path";
import * as E from "fp-ts/lib/Either.js";
import type { Impairment, ImpairmentTarget } from "../../domain/switching/impairment-overlay.js";
import { parseFilterSettings, renderFilterSettings } from "../../domain/filters/filter-settings.js";
import { scheduleFromFile, scheduleToFile } from "./schedule-file-form.js";
import type { ImpairmentChange, ImpairmentStore, ImpairmentStoreRefusal } from "../../application/ports/impairment-store.js";
import type { Logger } from "../../application/ports/system.js";
import { removeStaleTemporaries, writeFileAtomic } from "../shared/atomic-file.js";
import { ImpairmentIndex } from "./impairment-index.js";
import { jsonErrorLine } from "./json-error-line.js";
import { readRegularFile, type UnreadFile } from "./regular-file.js";

/** The snapshot, in the config directory: it outlives compute projects, which GNS3 closes and opens at will (ADR 0067). */
const SNAPSHOT_FILE = "impairments.json";
/** The changes made since the snapshot was written, one line per change, appended (ADR 0071). */
const JOURNAL_FILE = "impairments.journal";

/** 10,000 impairments with filters on both directions take ~3 MB; a bpf at its limit takes 64 KiB more each. */
const DEFAULT_MAX_FILE_BYTES = 64 * 1024 * 1024;
/** The journal is folded into the snapshot once it is larger than this and than the snapshot. */
const DEFAULT_COMPACT_AFTER_BYTES = 1024 * 1024;

export interface FileImpairmentStoreOptions {
  /** Larger files are moved aside unread; a change that would make either file larger is refused (default 64 MiB). */
  readonly maxFileBytes?: number;
  /** The journal is folded into the snapshot when it is larger than this and than the snapshot (default 1 MiB). */
  readonly compactAfterBytes?: number;
  readonly now?: () => number;
}

/** A change waiting for the writer, with its journal line; answered once the line is on disk. */
interface Pending {
  readonly changes: readonly ImpairmentChange[];
  /** Each set entry as the snapshot writes it, by the change's index. */
  readonly rendered: ReadonlyMap<number, string>;
  readonly line: string;
  readonly resolve: (r: E.Either<ImpairmentStoreRefusal, void>) => void;
}

/** A host failure, as the refusal's code and words. */
interface HostFailure {
  readonly code: string;
  readonly detail: string;
}

const keyOf = (t: ImpairmentTarget): string => `${t.projectId}/${t.nodeId}/${t.portNumber}`;

/**
 * netemu's impairments on GNS3 ports, kept in the config directory so that they survive a restart of
 * netemu (ADR 0071): `impairments.json`, a snapshot in the format netemu has always written, and
 * `impairments.journal`, the changes made since, one JSON line each. The records live in memory; one
 * writer appends the changes waiting, as many as have come, in one write and one fsync, and answers
 * each only then (group commit): a change costs its own line, not the whole list. When the journal
 * outgrows the snapshot it is folded into a new snapshot (written atomically, ADR 0047) and emptied.
 *
 * The files are read once, on first use, only as regular files under a size bound, never through a
 * link and never in a way that can wait (regular-file.ts); anything else is moved aside with an error
 * line and the store starts without it. Reads never fail: the data plane's own work (a NIO, a link,
 * a node start) goes on whatever the files are; only a change that cannot be made durable is refused.
 */
export class FileImpairmentStore implements ImpairmentStore {
  private readonly entries = new ImpairmentIndex();
  /** Each entry as the snapshot writes it (rendered once, when set), by target. */
  private readonly rendered = new Map<string, string>();
  private renderedBytes = 0;
  private loaded: Promise<void> | undefined;
  private queue: Pending[] = [];
  private writer: Promise<void> = Promise.resolve();
  /** Set while the writer runs: a change queued meanwhile is taken by its loop. */
  private draining = false;
  private journal: { readonly handle: FileHandle; readonly dev: number; readonly ino: number } | undefined;
  /** Set when the journal was found removed or replaced while open: the snapshot is written afresh before the next append. */
  private journalLost = false;
  /** The journal's length up to its last whole change. */
  private journalBytes = 0;
  /** Bytes past journalBytes (a torn line, a failed append): cut before the next append. */
  private journalTail = false;
  private snapshotBytes = 0;
  private compactAt: number;
  private compactionFailing = false;
  /** Set when a file could not be read nor moved aside: nothing is written over it, changes are refused. */
  private blocked: HostFailure | undefined;
  private readonly maxFileBytes: number;
  private readonly compactAfterBytes: number;
  private readonly now: () => number;

  constructor(private readonly configDir: string, private readonly logger: Logger, options: FileImpairmentStoreOptions = {}) {
    this.maxFileBytes = options.maxFileBytes ?? DEFAULT_MAX_FILE_BYTES;
    this.compactAfterBytes = options.compactAfterBytes ?? DEFAULT_COMPACT_AFTER_BYTES;
    this.now = options.now ?? Date.now;
    this.compactAt = this.compactAfterBytes;
  }

  async list(): Promise<readonly Impairment[]> {
    await this.ready();
    return this.entries.all();
  }

  async ofNode(nodeId: string): Promise<readonly Impairment[]> {
    await this.ready();
    return this.entries.ofNode(nodeId);
  }

  async apply(changes: readonly ImpairmentChange[]): Promise<E.Either<ImpairmentStoreRefusal, void>> {
    await this.ready();
    if (this.blocked !== undefined) return E.left(this.refusal(this.blocked));
    if (changes.length === 0) return E.right(undefined);
    const rendered = new Map<number, string>();
    const parts = changes.map((c, index) => {
      if (c._tag === "Remove") return `{"remove":${JSON.stringify(targetToFile(c.target))}}`;
      const entry = JSON.stringify(toFile(c.impairment));
      rendered.set(index, entry);
      return `{"set":${entry}}`;
    });
    const line = `{"changes":[${parts.join(",")}]}\n`;
    return new Promise((resolve) => {
      this.queue.push({ changes, rendered, line, resolve });
      if (!this.draining) {
        this.draining = true;
        this.writer = this.drain();
      }
    });
  }

  /** Waits for the changes in flight and closes the journal (shutdown). */
  async close(): Promise<void> {
    await this.writer;
    const journal = this.journal;
    this.journal = undefined;
    await journal?.handle.close().catch(() => undefined);
  }

  private get snapshotPath(): string {
    return join(this.configDir, SNAPSHOT_FILE);
  }

  private get journalPath(): string {
    return join(this.configDir, JOURNAL_FILE);
  }

  private refusal(failure: HostFailure): ImpairmentStoreRefusal {
    return { _tag: "ImpairmentsUnwritable", path: this.journalPath, code: failure.code, detail: failure.detail };
  }

  /** The one writer: every change waiting goes in one append and one fsync, then each is answered. */
  private async drain(): Promise<void> {
    try {
      await this.drainQueue();
    } finally {
      // Cleared in the same turn the loop saw the queue empty: no change can be queued in between unseen.
      this.draining = false;
    }
  }

  private async drainQueue(): Promise<void> {
    while (this.queue.length > 0) {
      const batch = this.queue.splice(0);
      const accepted: Pending[] = [];
      let journalBytes = this.journalBytes;
      let heldBytes = this.renderedBytes;
      for (const p of batch) {
        const lineBytes = Buffer.byteLength(p.line);
        // Counted as if every set were new: a bound that holds for the worst case holds.
        const grows = [...p.rendered.values()].reduce((n, r) => n + Buffer.byteLength(r) + 2, 0);
        if (journalBytes + lineBytes > this.maxFileBytes || heldBytes + grows > this.maxFileBytes) {
          // Never written: a file larger than the bound would be moved aside, unread, at the next start.
          p.resolve(E.left(this.refusal({ code: "EFBIG", detail: `the impairments would take more than the ${this.maxFileBytes} bytes netemu reads back` })));
          continue;
        }
        journalBytes += lineBytes;
        heldBytes += grows;
        accepted.push(p);
      }
      if (accepted.length === 0) continue;
      const failed = await this.append(accepted.map((p) => p.line).join(""));
      if (failed !== undefined) {
        for (const p of accepted) p.resolve(E.left(this.refusal(failed)));
        continue;
      }
      for (const p of accepted) {
        this.remember(p.changes, p.rendered);
        p.resolve(E.right(undefined));
      }
      if (this.journalBytes > this.compactAt) await this.compact();
    }
  }

  /** The changes in memory, as the files now say. */
  private remember(changes: readonly ImpairmentChange[], rendered: ReadonlyMap<number, string>): void {
    for (const [index, c] of changes.entries()) {
      const target = c._tag === "Set" ? c.impairment : c.target;
      const key = keyOf(target);
      const old = this.rendered.get(key);
      if (old !== undefined) this.renderedBytes -= Buffer.byteLength(old) + 2;
      if (c._tag === "Set") {
        const entry = rendered.get(index) ?? JSON.stringify(toFile(c.impairment));
        this.entries.set(c.impairment);
        this.rendered.set(key, entry);
        this.renderedBytes += Buffer.byteLength(entry) + 2;
      } else {
        this.entries.remove(c.target);
        this.rendered.delete(key);
      }
    }
  }

  /** Appends whole lines to the journal and flushes them to disk: undefined once durable, or why not. */
  private async append(text: string): Promise<HostFailure | undefined> {
    try {
      if (this.journal !== undefined && !(await this.journalStillThere(this.journal))) {
        // Removed or replaced while open (by hand): what was appended to it is on no path any more.
        await this.journal.handle.close().catch(() => undefined);
        this.journal = undefined;
        this.journalBytes = 0;
        this.journalTail = false;
        this.journalLost = true;
      }
      if (this.journal === undefined) {
        await mkdir(this.configDir, { recursive: true });
        // Never through a link, never waiting on a FIFO put in its place.
        const handle = await open(this.journalPath, constants.O_WRONLY | constants.O_CREAT | constants.O_NOFOLLOW | constants.O_NONBLOCK, 0o644);
        const info = await handle.stat();
        if (!info.isFile()) {
          await handle.close();
          return { code: "EINVAL", detail: `${JOURNAL_FILE} is not a regular file` };
        }
        if (this.journalLost) {
          // The changes the lost journal held are in memory: the snapshot takes them before the new journal starts.
          await writeFileAtomic(this.snapshotPath, renderSnapshot([...this.rendered.values()]));
          await handle.truncate(0);
          this.journalLost = false;
          this.logger.warn("impairments journal was removed or replaced while netemu ran: impairments.json written afresh from memory", { file: this.journalPath });
        }
        this.journal = { handle, dev: info.dev, ino: info.ino };
        // The journal's name itself must survive a power loss, once.
        await syncDirectory(this.configDir);
      }
      const journal = this.journal.handle;
      if (this.journalTail) await journal.truncate(this.journalBytes);
      this.journalTail = true;
      const data = Buffer.from(text, "utf8");
      for (let written = 0; written < data.length; ) {
        const { bytesWritten } = await journal.write(data, written, data.length - written, this.journalBytes + written);
        written += bytesWritten;
      }
      await journal.datasync();
      this.journalBytes += data.length;
      this.journalTail = false;
      return undefined;
    } catch (err) {
      const e = err as NodeJS.ErrnoException;
      return { code: e.code ?? "EIO", detail: e.message };
    }
  }

  /** Whether the journal's path still names the file this store appends to (an lstat: microseconds beside an fsync). */
  private async journalStillThere(journal: { readonly dev: number; readonly ino: number }): Promise<boolean> {
    try {
      const info = await lstat(this.journalPath);
      return info.isFile() && info.dev === journal.dev && info.ino === journal.ino;
    } catch {
      return false;
    }
  }

  /**
   * Folds the journal into a new snapshot, then empties it. A crash between the two leaves changes the
   * snapshot already holds in the journal: reading them again gives the same impairments (each change
   * sets or removes one whole entry).
   */
  private async compact(): Promise<void> {
    const text = renderSnapshot([...this.rendered.values()]);
    try {
      await mkdir(this.configDir, { recursive: true });
      await writeFileAtomic(this.snapshotPath, text);
      this.snapshotBytes = Buffer.byteLength(text);
      if (this.journal !== undefined) {
        await this.journal.handle.truncate(0);
        await this.journal.handle.datasync();
      }
      this.journalBytes = 0;
      this.journalTail = false;
      this.compactAt = Math.max(this.compactAfterBytes, this.snapshotBytes);
      if (this.compactionFailing) this.logger.info("impairments journal folded into impairments.json again", { file: this.snapshotPath });
      this.compactionFailing = false;
    } catch (err) {
      // Nothing is lost: the journal still holds every change; it is folded after more have come.
      this.compactAt = this.journalBytes + this.compactAfterBytes;
      const e = err as NodeJS.ErrnoException;
      if (!this.compactionFailing) this.logger.warn("impairments journal could not be folded into impairments.json: tried again after more changes", { file: this.snapshotPath, code: e.code, reason: e.message });
      this.compactionFailing = true;
    }
  }

  private ready(): Promise<void> {
    return (this.loaded ??= this.load().catch((err: unknown) => {
      // Not knowing what the files hold, nothing may be written over them; reads answer what was read.
      const e = err as NodeJS.ErrnoException;
      this.blocked = { code: e.code ?? "EIO", detail: e.message };
      this.logger.error("impairments could not be read: changes are refused until netemu restarts", { file: this.snapshotPath, code: e.code, reason: e.message });
    }));
  }

  private async load(): Promise<void> {
    const removed = await removeStaleTemporaries(this.configDir, (name) => name === SNAPSHOT_FILE).catch(() => [] as string[]);
    if (removed.length > 0) this.logger.warn("removed what an interrupted impairments write left", { path: this.configDir, files: removed });
    const snapshot = await this.readPart(this.snapshotPath);
    if (snapshot !== undefined) {
      const parsed = fromSnapshot(snapshot.text);
      if (E.isLeft(parsed)) await this.moveAside(this.snapshotPath, "impairments file unreadable: moved aside, starting with none", parsed.left);
      else {
        for (const i of parsed.right) this.remember([{ _tag: "Set", impairment: i }], new Map());
        this.snapshotBytes = snapshot.bytes.length;
      }
    }
    const journal = await this.readPart(this.journalPath);
    if (journal === undefined) return;
    const read = fromJournal(journal.bytes);
    for (const changes of read.changes) this.remember(changes, new Map());
    this.journalBytes = read.wholeBytes;
    this.journalTail = read.wholeBytes < journal.bytes.length;
    this.compactAt = Math.max(this.compactAfterBytes, this.snapshotBytes);
    if (read.damaged !== undefined) {
      // Kept for whoever wants to look: the next change cuts the journal at the last change read.
      const copy = `${this.journalPath}.damaged-${this.now()}`;
      await copyFile(this.journalPath, copy).catch(() => undefined);
      this.logger.error("impairments journal damaged: read up to the last whole change before it", { file: this.journalPath, copy, line: read.damaged.line, reason: read.damaged.problem, changesRead: read.changes.length });
    } else if (this.journalTail) {
      this.logger.warn("impairments journal ends in a change cut short (netemu stopped while writing it, unanswered): read up to the last whole change", { file: this.journalPath, changesRead: read.changes.length });
    }
  }

  /** A file's text and bytes, or undefined when it is not there or was moved aside (saying why). */
  private async readPart(file: string): Promise<{ readonly text: string; readonly bytes: Buffer } | undefined> {
    const read = await readRegularFile(file, this.maxFileBytes);
    if ("text" in read) return read;
    if (read.unread._tag === "missing") return undefined;
    const what = file === this.snapshotPath ? "impairments file unreadable: moved aside, starting with none" : "impairments journal unreadable: moved aside, reading impairments.json alone";
    await this.moveAside(file, what, describeUnread(read.unread, this.maxFileBytes));
    return undefined;
  }

  /** Renames the file (a link itself, never its target) out of the way, so that netemu neither reads it again nor writes over it. */
  private async moveAside(file: string, message: string, reason: string): Promise<void> {
    const movedTo = `${file}.unreadable-${this.now()}`;
    try {
      await rename(file, movedTo);
      this.logger.error(message, { file, movedTo, reason });
    } catch (err) {
      const e = err as NodeJS.ErrnoException;
      this.blocked = { code: e.code ?? "EIO", detail: `${file} (${reason}) could not be moved aside: ${e.message}` };
      this.logger.error("impairments file unreadable and could not be moved aside: starting with none, changes are refused until it is", { file, reason, code: e.code });
    }
  }
}

async function syncDirectory(path: string): Promise<void> {
  const directory = await open(path, "r");
  try {
    await directory.sync();
  } finally {
    await directory.close();
  }
}

function describeUnread(unread: Exclude<UnreadFile, { _tag: "missing" }>, maxBytes: number): string {
  switch (unread._tag) {
    case "not-regular":
      return `${unread.kind}: only a regular file is read (links are not followed)`;
    case "too-large":
      return `${unread.size === undefined ? "more than" : `${unread.size} bytes, more than`} the ${maxBytes} bytes netemu reads`;
    case "replaced":
      return "replaced while it was read";
  }
}

/** The snapshot in the format of impairments.json since ADR 0067, one entry a line. */
function renderSnapshot(entries: readonly string[]): string {
  return entries.length === 0 ? `{"impairments":[]}\n` : `{"impairments":[\n${entries.join(",\n")}\n]}\n`;
}

function targetToFile(t: ImpairmentTarget): Record<string, unknown> {
  return { project_id: t.projectId, node_id: t.nodeId, port_number: t.portNumber };
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
    ...scheduleToFile("schedule_in", i.scheduleIn),
    ...scheduleToFile("schedule_out", i.scheduleOut),
  };
}

/** Parses JSON, or says where it goes wrong by line: Node's message may quote the text. */
function parseJson(text: string): E.Either<string, unknown> {
  try {
    return E.right(JSON.parse(text));
  } catch {
    return E.left(`not JSON (line ${jsonErrorLine(text)})`);
  }
}

/** The snapshot's impairments, each checked as at the route (the filters by the domain's one parse), or why not. */
function fromSnapshot(text: string): E.Either<string, readonly Impairment[]> {
  const doc = parseJson(text);
  if (E.isLeft(doc)) return doc;
  const list = (doc.right as { impairments?: unknown } | null)?.impairments;
  if (!Array.isArray(list)) return E.left("no impairments list");
  const out: Impairment[] = [];
  for (const [index, raw] of list.entries()) {
    const entry = entryFromFile(raw, `impairments[${index}]`);
    if (E.isLeft(entry)) return entry;
    out.push(entry.right);
  }
  return E.right(out);
}

function entryFromFile(raw: unknown, at: string): E.Either<string, Impairment> {
  const r = raw as Record<string, unknown>;
  const texts = ["project_id", "project_name", "node_id", "node_name", "port_name"] as const;
  if (typeof r !== "object" || r === null || texts.some((k) => typeof r[k] !== "string") || !Number.isSafeInteger(r["port_number"])) {
    return E.left(`${at}: project_id, project_name, node_id, node_name, port_name and port_number are required`);
  }
  const filtersIn = parseFilterSettings(r["filters_in"] ?? {}, `${at}.filters_in`);
  if (E.isLeft(filtersIn)) return E.left(`${at}.filters_in does not parse: ${filtersIn.left.problem.problem}`);
  const filtersOut = parseFilterSettings(r["filters_out"] ?? {}, `${at}.filters_out`);
  if (E.isLeft(filtersOut)) return E.left(`${at}.filters_out does not parse: ${filtersOut.left.problem.problem}`);
  const scheduleIn = scheduleFromFile(r["schedule_in"], `${at}.schedule_in`);
  if (E.isLeft(scheduleIn)) return scheduleIn;
  const scheduleOut = scheduleFromFile(r["schedule_out"], `${at}.schedule_out`);
  if (E.isLeft(scheduleOut)) return scheduleOut;
  return E.right(
    Object.freeze({
      projectId: r["project_id"] as string,
      projectName: r["project_name"] as string,
      nodeId: r["node_id"] as string,
      nodeName: r["node_name"] as string,
      portNumber: r["port_number"] as number,
      portName: r["port_name"] as string,
      in: filtersIn.right,
      out: filtersOut.right,
      ...(scheduleIn.right === undefined ? {} : { scheduleIn: scheduleIn.right }),
      ...(scheduleOut.right === undefined ? {} : { scheduleOut: scheduleOut.right }),
    }),
  );
}

function targetFromFile(raw: unknown): E.Either<string, ImpairmentTarget> {
  const r = raw as Record<string, unknown>;
  if (typeof r !== "object" || r === null || typeof r["project_id"] !== "string" || typeof r["node_id"] !== "string" || !Number.isSafeInteger(r["port_number"])) {
    return E.left("a remove needs project_id, node_id and port_number");
  }
  return E.right({ projectId: r["project_id"], nodeId: r["node_id"], portNumber: r["port_number"] as number });
}

function changesFromLine(line: string): E.Either<string, ImpairmentChange[]> {
  const doc = parseJson(line);
  if (E.isLeft(doc)) return doc;
  const list = (doc.right as { changes?: unknown } | null)?.changes;
  if (!Array.isArray(list)) return E.left("no changes list");
  const out: ImpairmentChange[] = [];
  for (const [index, raw] of list.entries()) {
    const c = raw as Record<string, unknown> | null;
    if (typeof c === "object" && c !== null && "set" in c) {
      const entry = entryFromFile(c["set"], `changes[${index}].set`);
      if (E.isLeft(entry)) return entry;
      out.push({ _tag: "Set", impairment: entry.right });
    } else if (typeof c === "object" && c !== null && "remove" in c) {
      const target = targetFromFile(c["remove"]);
      if (E.isLeft(target)) return E.left(`changes[${index}]: ${target.left}`);
      out.push({ _tag: "Remove", target: target.right });
    } else return E.left(`changes[${index}] is neither a set nor a remove`);
  }
  return E.right(out);
}

/**
 * The journal's changes, line by line, up to the last whole one: a line without its newline was cut
 * short by a crash while it was written (never answered: a change is answered once its whole line is
 * on disk); a whole line that does not parse ends the reading there.
 */
function fromJournal(bytes: Buffer): { readonly changes: ImpairmentChange[][]; readonly wholeBytes: number; readonly damaged?: { readonly line: number; readonly problem: string } } {
  const changes: ImpairmentChange[][] = [];
  // By bytes: the offset of the last whole line is where the next append goes (a newline byte is never part of a UTF-8 sequence).
  let at = 0;
  for (let line = 1; ; line++) {
    const end = bytes.indexOf(0x0a, at);
    if (end < 0) break;
    const parsed = changesFromLine(bytes.toString("utf8", at, end));
    if (E.isLeft(parsed)) return { changes, wholeBytes: at, damaged: { line, problem: parsed.left } };
    changes.push(parsed.right);
    at = end + 1;
  }
  return { changes, wholeBytes: at };
}
