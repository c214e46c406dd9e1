import { createHash, randomUUID } from "node:crypto";
import { createReadStream } from "node:fs";
import { lstat, mkdir, open, readdir, realpath, rename, rm, stat } from "node:fs/promises";
import { join, relative, sep } from "node:path";
import * as E from "fp-ts/lib/Either.js";
import type { ProjectFileEntry, ProjectFiles, ProjectFileWriteRefusal, UploadLimits } from "../../application/ports/project-files.js";
import type { Logger } from "../../application/ports/system.js";

/** Where uploads are received before they become a project's file: one directory, swept at start and stop. */
const UPLOADS_DIRECTORY = ".uploads";

/** The longest name of one path component on the file systems netemu runs on (NAME_MAX, in bytes). */
const NAME_MAX_BYTES = 255;
/** The longest path the kernel takes (PATH_MAX, 4096 bytes with its NUL). */
const PATH_MAX_BYTES = 4095;

/** What versions before ADR 0060 named an upload in progress, next to its target. */
const LEGACY_UPLOAD = /\.[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}\.upload$/;

/** The regular files under `dir`, depth first in name order; a directory that cannot be read has none. */
async function* regularFilesUnder(dir: string): AsyncGenerator<string> {
  let entries;
  try {
    entries = await readdir(dir, { withFileTypes: true });
  } catch {
    return;
  }
  for (const entry of entries.sort((a, b) => (a.name < b.name ? -1 : 1))) {
    const full = join(dir, entry.name);
    if (entry.isDirectory()) yield* regularFilesUnder(full);
    else if (entry.isFile()) yield full;
  }
}

/** Whether `path` is `root` or inside it (both real paths). */
function within(root: string, path: string): boolean {
  const rel = relative(root, path);
  return rel === "" || (rel !== ".." && !rel.startsWith(`..${sep}`) && !rel.startsWith(sep));
}

/** Thrown into an upload's loop to end it; never leaves this file. */
class UploadStopped extends Error {
  constructor(readonly refusal: ProjectFileWriteRefusal) {
    super("upload stopped");
  }
}

interface InFlight {
  readonly projectId: string;
  written: number;
  stop(refusal: ProjectFileWriteRefusal): void;
  readonly done: Promise<unknown>;
}

/**
 * The compute role's project files, in `<compute root>/<project id>` (ADR 0060): captures
 * (project-files/captures) and what a controller uploads. The controller's own projects never live
 * under the compute root, so nothing here can reach them.
 *
 * An upload is received into `<compute root>/.uploads/<uuid>` (a name of fixed length whatever the
 * target's), counted against the caps as it streams, and renamed into place only once whole; the
 * path is checked component by component before anything is created, and the directories it needs
 * are made only after the content has arrived. What a killed process left in `.uploads` is removed
 * at start (`ready`); close() stops the uploads in flight and removes their temporaries.
 */
export class ProjectDirectoryFiles implements ProjectFiles {
  /** Settles once what an earlier run left is swept; uploads wait for it, so the sweep never meets a live one. */
  readonly ready: Promise<void>;
  private readonly inFlight = new Set<InFlight>();
  private closed = false;

  constructor(
    private readonly root: string,
    private readonly limits: UploadLimits,
    private readonly logger?: Logger,
    /** Where versions before ADR 0060 kept compute projects, swept once for their upload temporaries. */
    private readonly legacyRoot?: string,
  ) {
    this.ready = this.sweep();
  }

  private directory(projectId: string): string {
    return join(this.root, projectId);
  }

  private get uploads(): string {
    return join(this.root, UPLOADS_DIRECTORY);
  }

  private async sweep(): Promise<void> {
    try {
      const left = await readdir(this.uploads).catch(() => [] as string[]);
      await rm(this.uploads, { recursive: true, force: true });
      if (left.length > 0) this.logger?.warn("removed uploads an earlier run left unfinished", { path: this.uploads, files: left.length });
      if (this.legacyRoot !== undefined) {
        const legacy = await this.legacyTemporaries(this.legacyRoot, 0);
        for (const file of legacy) await rm(file, { force: true });
        if (legacy.length > 0) this.logger?.warn("removed uploads an earlier version left unfinished", { path: this.legacyRoot, files: legacy });
      }
    } catch (err) {
      this.logger?.warn("unfinished uploads could not be removed", { path: this.uploads, reason: (err as Error).message });
    }
  }

  /** The old temporaries, `<name>.<uuid>.upload`, in project directories (not in this compute root). */
  private async legacyTemporaries(dir: string, depth: number): Promise<string[]> {
    if (depth > 16) return [];
    let entries;
    try {
      entries = await readdir(dir, { withFileTypes: true });
    } catch {
      return [];
    }
    const found: string[] = [];
    for (const entry of entries) {
      const full = join(dir, entry.name);
      if (full === this.root) continue;
      if (entry.isDirectory()) found.push(...(await this.legacyTemporaries(full, depth + 1)));
      else if (entry.isFile() && LEGACY_UPLOAD.test(entry.name)) found.push(full);
    }
    return found;
  }

  async create(projectId: string): Promise<void> {
    await mkdir(this.directory(projectId), { recursive: true });
  }

  async list(projectId: string): Promise<readonly ProjectFileEntry[]> {
    const root = this.directory(projectId);
    const files: ProjectFileEntry[] = [];
    for await (const full of regularFilesUnder(root)) {
      const md5sum = await this.md5(full);
      if (md5sum !== undefined) files.push({ path: relative(root, full).split(sep).join("/"), md5sum });
    }
    return files;
  }

  private async md5(path: string): Promise<string | undefined> {
    try {
      const hash = createHash("md5");
      for await (const chunk of createReadStream(path)) hash.update(chunk as Buffer);
      return hash.digest("hex");
    } catch {
      // Gone or unreadable while listing: left out, as GNS3 does.
      return undefined;
    }
  }

  async read(projectId: string, path: string): Promise<E.Either<"missing", AsyncIterable<Uint8Array>>> {
    const full = join(this.directory(projectId), path);
    try {
      const [root, real] = await Promise.all([realpath(this.directory(projectId)), realpath(full)]);
      if (!within(root, real) || !(await stat(real)).isFile()) return E.left("missing");
      // Opened now, so that a file removed after this answer still streams whole.
      const handle = await open(real, "r");
      return E.right(handle.createReadStream());
    } catch {
      return E.left("missing");
    }
  }

  /**
   * Where `path` leads, checked without creating anything: each existing component is looked at
   * with lstat, and a symbolic link must resolve inside the project. Right is the number of leading
   * directories that exist (the rest are made after the upload).
   */
  private async check(projectRoot: string, parts: readonly string[]): Promise<E.Either<ProjectFileWriteRefusal, void>> {
    const realRoot = await realpath(projectRoot);
    let at = projectRoot;
    for (const [i, part] of parts.entries()) {
      at = join(at, part);
      let info;
      try {
        info = await lstat(at);
      } catch (err) {
        if ((err as NodeJS.ErrnoException).code === "ENOENT") return E.right(undefined);
        throw err;
      }
      const last = i === parts.length - 1;
      if (info.isSymbolicLink()) {
        let real: string;
        try {
          real = await realpath(at);
        } catch {
          // A dangling link: where it would lead is not known, so it leads nowhere allowed.
          return E.left({ _tag: "outside" });
        }
        if (!within(realRoot, real)) return E.left({ _tag: "outside" });
        if (last) return E.right(undefined);
        info = await stat(at);
      }
      if (!last && !info.isDirectory()) return E.left({ _tag: "failed", reason: `${parts.slice(0, i + 1).join("/")} is not a directory` });
      if (last && info.isDirectory()) return E.left({ _tag: "failed", reason: "it is a directory" });
    }
    return E.right(undefined);
  }

  /** Bytes of the project's files but `except` (the file an upload replaces). */
  private async projectBytes(projectRoot: string, except: string): Promise<number> {
    let total = 0;
    for await (const full of regularFilesUnder(projectRoot)) {
      if (full !== except) total += (await lstat(full).catch(() => ({ size: 0 }))).size;
    }
    return total;
  }

  async write(projectId: string, path: string, content: AsyncIterable<Uint8Array>, declaredBytes?: number): Promise<E.Either<ProjectFileWriteRefusal, void>> {
    await this.ready;
    if (this.closed) return E.left({ _tag: "failed", reason: "the server is shutting down" });
    const parts = path.split("/");
    const long = parts.find((p) => Buffer.byteLength(p) > NAME_MAX_BYTES);
    if (long !== undefined) return E.left({ _tag: "name-too-long", what: "name", name: long, limit: NAME_MAX_BYTES });
    // What is left of PATH_MAX once the project's own directory is counted.
    const pathRoom = PATH_MAX_BYTES - Buffer.byteLength(this.directory(projectId)) - 1;
    if (Buffer.byteLength(path) > pathRoom) return E.left({ _tag: "name-too-long", what: "path", name: path, limit: pathRoom });
    if (declaredBytes !== undefined && declaredBytes > this.limits.maxUploadBytes) {
      return E.left({ _tag: "too-large", what: "upload", limit: this.limits.maxUploadBytes });
    }
    const projectRoot = this.directory(projectId);
    const full = join(projectRoot, ...parts);
    const temp = join(this.uploads, randomUUID());
    let stopped: ((refusal: ProjectFileWriteRefusal) => void) | undefined;
    const stop = new Promise<never>((_, reject) => (stopped = (refusal) => reject(new UploadStopped(refusal))));
    stop.catch(() => undefined);
    let finish: () => void = () => undefined;
    const flight: InFlight = { projectId, written: 0, stop: (r) => stopped?.(r), done: new Promise<void>((resolve) => (finish = resolve)) };
    this.inFlight.add(flight);
    const iterator = content[Symbol.asyncIterator]();
    try {
      await mkdir(projectRoot, { recursive: true });
      const checked = await this.check(projectRoot, parts);
      if (E.isLeft(checked)) return checked;
      const others = [...this.inFlight].filter((f) => f !== flight && f.projectId === projectId).reduce((n, f) => n + f.written, 0);
      const room = this.limits.maxProjectFilesBytes - (await this.projectBytes(projectRoot, full)) - others;
      if (declaredBytes !== undefined && declaredBytes > room) {
        return E.left({ _tag: "too-large", what: "project", limit: this.limits.maxProjectFilesBytes });
      }
      await mkdir(this.uploads, { recursive: true });
      const file = await open(temp, "w", 0o644);
      try {
        for (;;) {
          const next = await Promise.race([iterator.next(), stop]);
          if (next.done === true) break;
          const chunk = next.value;
          flight.written += chunk.byteLength;
          // Counted as it streams: the upload stops at the first byte over a cap, not at its end.
          if (flight.written > this.limits.maxUploadBytes) throw new UploadStopped({ _tag: "too-large", what: "upload", limit: this.limits.maxUploadBytes });
          if (flight.written > room) throw new UploadStopped({ _tag: "too-large", what: "project", limit: this.limits.maxProjectFilesBytes });
          await file.write(chunk);
        }
      } finally {
        await file.close();
      }
      // Checked again now that the content is here: a link planted meanwhile is still refused.
      const again = await this.check(projectRoot, parts);
      if (E.isLeft(again)) return again;
      if (parts.length > 1) await mkdir(join(projectRoot, ...parts.slice(0, -1)), { recursive: true });
      // Written whole or not at all: a client that goes away mid-upload leaves no half file.
      await rename(temp, full);
      return E.right(undefined);
    } catch (err) {
      if (err instanceof UploadStopped) return E.left(err.refusal);
      // The code, not the message: messages carry absolute paths of the server.
      const e = err as NodeJS.ErrnoException;
      // A file system with shorter limits than Linux's usual ones.
      if (e.code === "ENAMETOOLONG") return E.left({ _tag: "failed", reason: "the name is longer than the file system allows (ENAMETOOLONG)" });
      return E.left({ _tag: "failed", reason: e.code === undefined ? "the upload was interrupted" : `${e.syscall ?? "write"} failed with ${e.code}` });
    } finally {
      // Whatever ended the upload, the request is not read any further. Not awaited: an async
      // generator's return() waits behind a pending next(), which a stalled client never ends.
      void Promise.resolve(iterator.return?.()).catch(() => undefined);
      await rm(temp, { force: true }).catch(() => undefined);
      this.inFlight.delete(flight);
      finish();
    }
  }

  async remove(projectId: string): Promise<void> {
    await rm(this.directory(projectId), { recursive: true, force: true });
  }

  /**
   * Stops every upload in flight and removes its temporary (shutdown): each answers that the server
   * is going away, and no upload starts after. Idempotent.
   */
  async close(): Promise<void> {
    this.closed = true;
    await this.ready;
    const flights = [...this.inFlight];
    for (const f of flights) f.stop({ _tag: "failed", reason: "the server is shutting down" });
    await Promise.all(flights.map((f) => f.done));
    await rm(this.uploads, { recursive: true, force: true }).catch(() => undefined);
    if (flights.length > 0) this.logger?.info("shutdown: uploads in progress stopped and removed", { uploads: flights.length });
  }
}
