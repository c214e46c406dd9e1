import { mkdir, readdir, rm } from "node:fs/promises";
import { basename, dirname, join, resolve } from "node:path";
import * as E from "fp-ts/lib/Either.js";
import type { LinkRepository, NodeRepository, ProjectRepository } from "../../application/ports/repositories.js";
import type { Logger } from "../../application/ports/system.js";
import type { ProjectWrites, UnwrittenProject } from "../../application/ports/project-writes.js";
import type { SkippedTopologyFile, TopologyFiles } from "../../application/ports/topology-files.js";
import type { ErrorOf } from "../../application/errors.js";
import type { FilterPrograms } from "../../application/filter-programs.js";
import type { Project } from "../../domain/topology/project.js";
import type { ControllerNode } from "../../domain/topology/node.js";
import type { Link } from "../../domain/topology/link.js";
import { CONFIGURATION_LIMITS } from "../../domain/configuration/limits.js";
import { InMemoryLinkRepository, InMemoryNodeRepository, InMemoryProjectRepository } from "./in-memory-repositories.js";
import { describeProblem, fileEntryChanged, parseProjectFile, renderProjectFile } from "./gns3-project-format.js";
import { removeStaleTemporaries, writeFileAtomic } from "../shared/atomic-file.js";
import { readRegularFile } from "./regular-file.js";

const isProjectFile = (name: string): boolean => name.endsWith(".gns3");

/** The file operations a project write needs; a test passes one that fails on demand (a full disk). */
export interface ProjectFileWriter {
  makeDirectory(path: string): Promise<void>;
  /** Replaces the file whole or not at all (atomic-file.ts). */
  write(file: string, data: string): Promise<void>;
  remove(file: string): Promise<void>;
}

const NODE_PROJECT_FILE_WRITER: ProjectFileWriter = {
  makeDirectory: async (path) => void (await mkdir(path, { recursive: true })),
  write: (file, data) => writeFileAtomic(file, data),
  remove: (file) => rm(file, { force: true }),
};

/**
 * A timer that keeps the process alive: unwritten changes hold an exit until they are written or
 * flush() gives up on them (an unref'd one would let a shutdown end mid-flush, saying nothing).
 */
const timerPause = (ms: number, cancel: AbortSignal): Promise<void> =>
  new Promise((resolve) => {
    const timer = setTimeout(resolve, ms);
    cancel.addEventListener("abort", () => (clearTimeout(timer), resolve()), { once: true });
  });

export interface ProjectStoreOptions {
  /** Larger `.gns3` files are skipped with the reason, without being read (default 16 MiB). */
  readonly maxFileBytes?: number;
  /** Projects with more nodes are skipped with the reason (default, and at most, CONFIGURATION_LIMITS.nodesPerProject). */
  readonly maxNodes?: number;
  /** A failed write is tried again after `firstMs`, doubling up to `maxMs` (default 100 ms to 5 s). */
  readonly retry?: { readonly firstMs: number; readonly maxMs: number };
  /** How long flush() waits for writes that keep failing (default 10 s). */
  readonly flushTimeoutMs?: number;
  /**
   * When a changed project's file is written (ADR 0086): once no change came for `quietMs`, and at the
   * latest `maxMs` after the first change the file does not hold yet (defaults 100 ms and 1 s). Both 0:
   * at once after each change, as before ADR 0086.
   */
  readonly writeDelay?: WriteDelay;
  readonly writer?: ProjectFileWriter;
  /** Resolves after `ms`, or at once when `cancel` aborts (tests pass one they resolve by hand). */
  readonly pause?: (ms: number, cancel: AbortSignal) => Promise<void>;
  readonly now?: () => number;
}

const DEFAULT_MAX_PROJECT_FILE_BYTES = 16 * 1024 * 1024;

/** How long a project's changes wait before its file is written (ADR 0086). */
export interface WriteDelay {
  readonly quietMs: number;
  readonly maxMs: number;
}

export const DEFAULT_WRITE_DELAY: WriteDelay = { quietMs: 100, maxMs: 1000 };

/** A file's text, or why it is not read; only a regular file, never followed through a link, at most `maxBytes` (regular-file.ts). */
async function readProjectText(file: string, maxBytes: number, missing: string): Promise<{ readonly text: string } | { readonly skip: string }> {
  const read = await readRegularFile(file, maxBytes);
  if ("text" in read) return { text: read.text };
  const unread = read.unread;
  switch (unread._tag) {
    case "missing":
      return { skip: missing };
    case "not-regular":
      return { skip: `${unread.kind}: only regular files are read as projects` };
    case "too-large":
      return { skip: unread.size === undefined ? `more than the ${maxBytes} bytes netemu reads (--max-project-file-size)` : `${unread.size} bytes, more than the ${maxBytes} netemu reads (--max-project-file-size)` };
    case "replaced":
      return { skip: "replaced while it was read" };
  }
}

/**
 * GNS3 keeps an SVG over 1,000 characters (or one embedding an image) in `project-files/images/` and
 * writes the file's name in the drawing's `svg` (its `Drawing.svg` setter): such a drawing gets the
 * SVG back from that file when it is a text SVG within the bound. One that is not (a PNG GNS3 would
 * wrap, a missing file) keeps the name, so that the file netemu writes still points GNS3 at it.
 */
async function drawingsWithPictures(project: Project, logger: Logger): Promise<Project> {
  if (project.drawings.every((d) => d.svg.includes("<svg"))) return project;
  const drawings = await Promise.all(
    project.drawings.map(async (d) => {
      if (d.svg.includes("<svg")) return d;
      const file = join(project.path, "project-files", "images", basename(d.svg));
      const read = await readRegularFile(file, CONFIGURATION_LIMITS.drawingSvgLength).catch(() => undefined);
      if (read !== undefined && "text" in read && read.text.includes("<svg") && !read.text.includes("\uFFFD")) return { ...d, svg: read.text };
      logger.warn("drawing picture not read: its file name is kept", { projectId: project.projectId, drawingId: d.drawingId, file });
      return d;
    }),
  );
  return { ...project, drawings };
}

/** What reading one `.gns3` file came to: its project listed, the project already listed under its id, or why it was left out. */
type FileRead = { readonly listed: Project } | { readonly known: Project; readonly listedFrom: string } | { readonly skipped: string };

/** The error code of a failed write, its file and message. */
interface FailedWrite {
  readonly file: string | undefined;
  readonly code: string;
  readonly reason: string;
}

/** Writes of one project failing in a row, since the first (ADR 0057). */
interface Episode {
  file: string | undefined;
  code: string;
  readonly since: number;
  failedWrites: number;
}

/**
 * The controller's projects, nodes and links kept as GNS3 project files (ADR 0042): each project in
 * `<path>/<name>.gns3`, by default `<projects_path>/<project_id>/`. The records live in memory, as in
 * the in-memory repositories; every change marks its project for writing, and the file is rewritten
 * whole and atomically in the background, once the changes pause for `quietMs` and at the latest
 * `maxMs` after the first unwritten one (ADR 0086): a project built call by call is written about once
 * a second, not once per call (each write renders the whole project). Closing a project writes it at
 * once. Changes made during a write wait for the next one. A
 * write that fails is tried again, with a growing delay, until it succeeds: the change is kept in
 * memory meanwhile, and `unwritten()` says which projects the disk is behind on (ADR 0057).
 * `flush()` waits until every file says what memory says, within a bound. At start the projects
 * found under projects_path are read back, closed.
 */
export class Gns3ProjectStore implements ProjectWrites, TopologyFiles {
  readonly projects: ProjectRepository;
  readonly nodes: NodeRepository;
  readonly links: LinkRepository;
  private readonly projectRecords = new InMemoryProjectRepository();
  private readonly nodeRecords = new InMemoryNodeRepository();
  private readonly linkRecords = new InMemoryLinkRepository();
  /** Where each project's file was last written, to remove it when the project goes. */
  private readonly writtenFiles = new Map<string, string>();
  private readonly dirty = new Set<string>();
  /** When each dirty project's latest change came, and the first change its file does not hold yet. */
  private readonly lastChange = new Map<string, number>();
  private readonly unwrittenSince = new Map<string, number>();
  /** Projects to write without waiting out the quiet period (closed ones). */
  private readonly atOnce = new Set<string>();
  /** Each project's wait for a quiet moment, which a close ends early. */
  private readonly quietWaits = new Map<string, AbortController>();
  /** Set while flush() runs: nothing waits for a quiet moment then. */
  private flushing = 0;
  private writes = 0;
  private readonly writing = new Map<string, Promise<void>>();
  private readonly episodes = new Map<string, Episode>();
  private readonly failures = new Map<string, number>();
  /** Files and directories left out at start, by path (a file loaded since is taken off). */
  private readonly skippedFiles = new Map<string, string>();
  private readonly sleeping = new Set<AbortController>();
  private readonly loaded: Promise<void>;
  /** Set when flush() gave up on writes that kept failing: retries stop, so that the process can end. */
  private gaveUp = false;
  private readonly maxFileBytes: number;
  private readonly maxNodes: number;
  private readonly retry: { readonly firstMs: number; readonly maxMs: number };
  private readonly flushTimeoutMs: number;
  private readonly writeDelay: WriteDelay;
  private readonly files: ProjectFileWriter;
  private readonly pause: (ms: number, cancel: AbortSignal) => Promise<void>;
  private readonly now: () => number;

  constructor(
    private readonly projectsPath: string,
    private readonly gns3Version: string,
    private readonly programs: FilterPrograms,
    private readonly logger: Logger,
    options: ProjectStoreOptions = {},
  ) {
    this.maxFileBytes = options.maxFileBytes ?? DEFAULT_MAX_PROJECT_FILE_BYTES;
    this.maxNodes = Math.min(options.maxNodes ?? CONFIGURATION_LIMITS.nodesPerProject, CONFIGURATION_LIMITS.nodesPerProject);
    this.retry = options.retry ?? { firstMs: 100, maxMs: 5000 };
    this.flushTimeoutMs = options.flushTimeoutMs ?? 10_000;
    this.writeDelay = options.writeDelay ?? DEFAULT_WRITE_DELAY;
    this.files = options.writer ?? NODE_PROJECT_FILE_WRITER;
    this.pause = options.pause ?? timerPause;
    this.now = options.now ?? Date.now;
    this.loaded = this.load().catch((err: unknown) => this.logger.error("projects could not be read", { projectsPath, reason: (err as Error).message }));
    const ready = <A extends unknown[], R>(f: (...args: A) => Promise<R>) => async (...args: A): Promise<R> => {
      await this.loaded;
      return f(...args);
    };
    const changed = <A extends unknown[]>(projectIdOf: (...args: A) => string, f: (...args: A) => Promise<void>) => async (...args: A): Promise<void> => {
      await this.loaded;
      await f(...args);
      this.markDirty(projectIdOf(...args));
    };
    // A save writes the file only when the record's entry in it changed (not a link's new tunnel ports).
    const saved = <R>(projectIdOf: (r: R) => string, before: (r: R) => Promise<R | undefined>, save: (r: R) => Promise<void>, shows: (before: R | undefined, after: R) => boolean, now = (_before: R | undefined, _after: R) => false) => async (r: R): Promise<void> => {
      await this.loaded;
      const was = await before(r);
      await save(r);
      if (shows(was, r)) this.markDirty(projectIdOf(r));
      if (now(was, r)) this.writeNow(projectIdOf(r));
    };
    // A project closed is written without waiting for a quiet moment: whoever closed it may copy its directory next.
    const closing = (was: Project | undefined, project: Project): boolean => project.status === "closed" && was !== undefined && was.status !== "closed";
    const p = this.projectRecords;
    const n = this.nodeRecords;
    const l = this.linkRecords;
    this.projects = {
      get: ready((id: string) => p.get(id)),
      list: ready(() => p.list()),
      save: saved((project: Project) => project.projectId, (project) => p.get(project.projectId), (project) => p.save(project), fileEntryChanged.project, closing),
      delete: changed((id: string) => id, (id: string) => p.delete(id)),
    };
    this.nodes = {
      get: ready((projectId: string, nodeId: string) => n.get(projectId, nodeId)),
      listByProject: ready((projectId: string) => n.listByProject(projectId)),
      save: saved((node: ControllerNode) => node.projectId, (node) => n.get(node.projectId, node.nodeId), (node) => n.save(node), fileEntryChanged.node),
      delete: changed((projectId: string, _nodeId: string) => projectId, (projectId: string, nodeId: string) => n.delete(projectId, nodeId)),
    };
    this.links = {
      get: ready((projectId: string, linkId: string) => l.get(projectId, linkId)),
      listByProject: ready((projectId: string) => l.listByProject(projectId)),
      save: saved((link: Link) => link.projectId, (link) => l.get(link.projectId, link.linkId), (link) => l.save(link), fileEntryChanged.link),
      delete: changed((projectId: string, _linkId: string) => projectId, (projectId: string, linkId: string) => l.delete(projectId, linkId)),
    };
  }

  /**
   * Resolves once every project file says what memory says (shutdown waits for it), or once
   * `flushTimeoutMs` has passed while writes still fail: then it logs what is not written and stops
   * waiting, so that a disk that stays full cannot hold a shutdown forever.
   */
  async flush(): Promise<void> {
    await this.loaded;
    this.flushing += 1;
    let timedOut = false;
    const bound = new AbortController();
    try {
      // A retry waiting out its delay tries now (the disk may have room again), and a change waiting for a quiet moment is written now.
      for (const sleep of this.sleeping) sleep.abort();
      const deadline = this.pause(this.flushTimeoutMs, bound.signal).then(() => void (timedOut = !bound.signal.aborted));
      while (this.writing.size > 0 && !timedOut) await Promise.race([Promise.all(this.writing.values()), deadline]);
    } finally {
      bound.abort();
      this.flushing -= 1;
    }
    if (!timedOut) return;
    this.gaveUp = true;
    for (const sleep of this.sleeping) sleep.abort();
    // A write under way ends (it is not tried again) before the shutdown releases the projects path to another server.
    await Promise.all(this.writing.values());
    this.logger.error("project files not written at shutdown: their latest changes are lost", {
      waitedMs: this.flushTimeoutMs,
      projects: this.unwritten().map((u) => ({ projectId: u.projectId, file: u.file, code: u.code, since: u.since.toISOString() })),
    });
  }

  async skipped(): Promise<readonly SkippedTopologyFile[]> {
    await this.loaded;
    return [...this.skippedFiles].map(([path, reason]) => ({ path, reason }));
  }

  async read(path: string): Promise<E.Either<ErrorOf<"TopologyNotLoaded">, Project>> {
    await this.loaded;
    const file = resolve(path);
    const read = await this.loadFile(dirname(file), basename(file), "no such file");
    if ("skipped" in read) return E.left({ _tag: "TopologyNotLoaded", path, reason: read.skipped });
    this.skippedFiles.delete(file);
    return E.right("listed" in read ? read.listed : read.known);
  }

  unwritten(): readonly UnwrittenProject[] {
    return [...this.episodes].map(([projectId, e]) => ({ projectId, file: e.file, code: e.code, since: new Date(e.since), failedWrites: e.failedWrites }));
  }

  failedWrites(): ReadonlyMap<string, number> {
    return this.failures;
  }

  /** Project files written since start (a whole `.gns3` file, or a deleted project's removed). */
  completedWrites(): number {
    return this.writes;
  }

  private markDirty(projectId: string): void {
    const now = this.now();
    this.dirty.add(projectId);
    this.lastChange.set(projectId, now);
    if (!this.unwrittenSince.has(projectId)) this.unwrittenSince.set(projectId, now);
    if (this.writing.has(projectId)) return;
    const run = (async () => {
      try {
        while (this.dirty.has(projectId)) {
          await this.quietMoment(projectId);
          // Once flush() gave up, nothing more is written (the quiet moment ends at once then): the shutdown goes on to release the projects path.
          if (this.gaveUp) break;
          const since = this.unwrittenSince.get(projectId) ?? now;
          // The write takes every change made until it starts: later ones wait for the next write.
          this.dirty.delete(projectId);
          this.unwrittenSince.delete(projectId);
          this.atOnce.delete(projectId);
          const failed = await this.write(projectId);
          if (failed === undefined) this.writeSucceeded(projectId);
          else {
            // The change stays unwritten: memory keeps it, and the write is tried again after a delay.
            this.dirty.add(projectId);
            this.unwrittenSince.set(projectId, Math.min(since, this.unwrittenSince.get(projectId) ?? since));
            const delay = this.failedWrite(projectId, failed);
            if (this.gaveUp) break;
            await this.sleep(delay);
          }
        }
      } finally {
        this.writing.delete(projectId);
        this.lastChange.delete(projectId);
        this.unwrittenSince.delete(projectId);
        this.atOnce.delete(projectId);
      }
    })();
    this.writing.set(projectId, run);
  }

  /** Writes the project's pending changes without waiting for a quiet moment (a close). */
  private writeNow(projectId: string): void {
    if (!this.dirty.has(projectId)) return;
    this.atOnce.add(projectId);
    this.quietWaits.get(projectId)?.abort();
  }

  /**
   * Waits until no change came for `quietMs`, or `maxMs` after the first change the file does not hold
   * (ADR 0086): a client making one call at a time gets a write a second, whatever its pace; a lone
   * change waits `quietMs`. Not while flush() runs, nor for a project being closed.
   */
  private async quietMoment(projectId: string): Promise<void> {
    for (;;) {
      if (this.flushing > 0 || this.gaveUp || this.atOnce.has(projectId)) return;
      const last = this.lastChange.get(projectId);
      const since = this.unwrittenSince.get(projectId);
      if (last === undefined || since === undefined) return;
      const wait = Math.min(last + this.writeDelay.quietMs, since + this.writeDelay.maxMs) - this.now();
      if (wait <= 0) return;
      const quiet = new AbortController();
      this.quietWaits.set(projectId, quiet);
      this.sleeping.add(quiet);
      try {
        await this.pause(wait, quiet.signal);
      } finally {
        this.sleeping.delete(quiet);
        this.quietWaits.delete(projectId);
      }
    }
  }

  /** Counts a failed write, logs the first of an episode, and answers how long to wait before the next. */
  private failedWrite(projectId: string, failed: FailedWrite): number {
    this.failures.set(failed.code, (this.failures.get(failed.code) ?? 0) + 1);
    const episode = this.episodes.get(projectId);
    if (episode === undefined) {
      this.episodes.set(projectId, { file: failed.file, code: failed.code, since: this.now(), failedWrites: 1 });
      // One line per episode, not per retry: a full disk would otherwise fill the log that tells of it.
      this.logger.error("project file could not be written: retrying until it can", { projectId, file: failed.file, code: failed.code, reason: failed.reason });
      return this.retry.firstMs;
    }
    episode.failedWrites += 1;
    episode.file = failed.file;
    episode.code = failed.code;
    return Math.min(this.retry.maxMs, this.retry.firstMs * 2 ** Math.min(episode.failedWrites - 1, 30));
  }

  private writeSucceeded(projectId: string): void {
    const episode = this.episodes.get(projectId);
    if (episode === undefined) return;
    this.episodes.delete(projectId);
    this.logger.info("project file written again", { projectId, file: episode.file, failedWrites: episode.failedWrites, ms: this.now() - episode.since });
  }

  /** Waits `ms`, or less when flush() asks every waiting retry to try now. */
  private async sleep(ms: number): Promise<void> {
    const sleep = new AbortController();
    this.sleeping.add(sleep);
    try {
      await this.pause(ms, sleep.signal);
    } finally {
      this.sleeping.delete(sleep);
    }
  }

  /** Writes the project's file as memory has it: undefined when done, or why it failed. */
  private async write(projectId: string): Promise<FailedWrite | undefined> {
    const project = await this.projectRecords.get(projectId);
    const previous = this.writtenFiles.get(projectId);
    let file: string | undefined;
    try {
      if (project === undefined) {
        file = previous;
        if (previous !== undefined) {
          await this.files.remove(previous);
          this.writes += 1;
        }
        this.writtenFiles.delete(projectId);
        return undefined;
      }
      // A file GNS3 wrote with nodes netemu does not run was not read whole: never overwrite it.
      if (project.unsupportedNodeTypes.length > 0) return undefined;
      file = join(project.path, project.filename);
      await this.files.makeDirectory(project.path);
      const topology = { project, nodes: await this.nodeRecords.listByProject(projectId), links: await this.linkRecords.listByProject(projectId) };
      await this.files.write(file, renderProjectFile(topology, this.gns3Version));
      this.writes += 1;
      if (previous !== undefined && previous !== file) await this.files.remove(previous);
      this.writtenFiles.set(projectId, file);
      return undefined;
    } catch (err) {
      return { file, code: (err as NodeJS.ErrnoException).code ?? "EUNKNOWN", reason: (err as Error).message };
    }
  }

  /**
   * Reads every `<projects_path>/<dir>/*.gns3`. A file (or a directory) that cannot be read is left as
   * it is and logged with the reason, and the others are read all the same: one bad file never hides
   * another.
   */
  private async load(): Promise<void> {
    let directories: string[];
    try {
      directories = (await readdir(this.projectsPath, { withFileTypes: true })).filter((d) => d.isDirectory()).map((d) => d.name).sort();
    } catch (err) {
      if ((err as NodeJS.ErrnoException).code === "ENOENT") return;
      throw err;
    }
    for (const directory of directories) {
      const path = join(this.projectsPath, directory);
      let files: string[];
      try {
        const removed = await removeStaleTemporaries(path, isProjectFile);
        if (removed.length > 0) this.logger.warn("removed what interrupted project file writes left", { path, files: removed });
        files = (await readdir(path)).filter(isProjectFile).sort();
      } catch (err) {
        this.logger.warn("project directory skipped", { path, reason: (err as Error).message });
        this.skippedFiles.set(path, `the directory could not be read: ${(err as Error).message}`);
        continue;
      }
      for (const filename of files) {
        const file = join(path, filename);
        try {
          const read = await this.loadFile(path, filename);
          if ("skipped" in read) {
            this.logger.warn("project file skipped", { file, reason: read.skipped });
            this.skippedFiles.set(file, read.skipped);
          } else if ("known" in read) {
            this.logger.warn("project file skipped: its project id is already listed", { file, projectId: read.known.projectId, listedFrom: read.listedFrom });
            this.skippedFiles.set(file, `its project id ${read.known.projectId} is already listed, from ${read.listedFrom}`);
          }
        } catch (err) {
          // A defect reading one file (not a refusal: those are values) must not cost the others.
          this.logger.error("project file skipped: reading it failed", { file, reason: (err as Error).stack ?? String(err) });
          this.skippedFiles.set(file, `reading it failed: ${(err as Error).message}`);
        }
      }
    }
    const count = (await this.projectRecords.list()).length;
    this.logger.info("projects read", { projectsPath: this.projectsPath, projects: count });
  }

  /** Whether every bpf and match expression of the links compiles (each distinct text once): the reason it does not. */
  private async uncompilable(links: readonly Link[]): Promise<string | undefined> {
    for (const link of links) {
      const sets = [["filters", link.filters], ...link.nodes.map((end, i) => [`nodes[${i}].filters`, end.filters] as const)] as const;
      for (const [field, settings] of sets) {
        if (settings === undefined) continue;
        const checked = await this.programs.check(settings, field);
        if (E.isLeft(checked)) return describeProblem({ _tag: "BadFilters", linkId: link.linkId, problem: checked.left });
      }
    }
    return undefined;
  }

  /** Reads one file and lists its project, or says why not; the caller logs and records a skip. */
  private async loadFile(path: string, filename: string, missing = "gone while it was read"): Promise<FileRead> {
    const file = join(path, filename);
    let read: Awaited<ReturnType<typeof readProjectText>>;
    try {
      read = await readProjectText(file, this.maxFileBytes, missing);
    } catch (err) {
      return { skipped: (err as Error).message };
    }
    if ("skip" in read) return { skipped: read.skip };
    const text = read.text;
    const parsed = parseProjectFile(text, path, filename, { maxNodes: this.maxNodes });
    if (E.isLeft(parsed)) return { skipped: describeProblem(parsed.left) };
    const uncompilable = await this.uncompilable(parsed.right.links);
    if (uncompilable !== undefined) return { skipped: uncompilable };
    const { nodes, links } = parsed.right;
    const project = await drawingsWithPictures(parsed.right.project, this.logger);
    const known = await this.projectRecords.get(project.projectId);
    if (known !== undefined) return { known, listedFrom: join(known.path, known.filename) };
    await this.projectRecords.save(project);
    for (const node of nodes) await this.nodeRecords.save(node);
    for (const link of links) await this.linkRecords.save(link);
    this.writtenFiles.set(project.projectId, file);
    if (project.unsupportedNodeTypes.length > 0) this.logger.warn("project listed, but it has nodes netemu does not run", { file, nodeTypes: project.unsupportedNodeTypes });
    return { listed: project };
  }
}
