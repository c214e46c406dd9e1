import { mkdir, readdir, readFile, rm } from "node:fs/promises";
import { join } from "node:path";
import * as E from "fp-ts/lib/Either.js";
import type { LinkRepository, NodeRepository, ProjectRepository } from "../../application/ports/repositories.js";
import type { Logger } from "../../application/ports/system.js";
import type { FilterPrograms } from "../../application/filter-programs.js";
import type { Project } from "../../domain/topology/project.js";
import type { ControllerNode } from "../../domain/topology/node.js";
import type { Link } from "../../domain/topology/link.js";
import { InMemoryLinkRepository, InMemoryNodeRepository, InMemoryProjectRepository } from "./in-memory-repositories.js";
import { describeProblem, fileEntryChanged, parseProjectFile, renderProjectFile } from "./gns3-project-format.js";
import { removeStaleTemporaries, writeFileAtomic } from "./atomic-file.js";

const isProjectFile = (name: string): boolean => name.endsWith(".gns3");

/**
 * The controller's projects, nodes and links kept as GNS3 project files (ADR 0042): each project in
 * `<path>/<name>.gns3`, by default `<projects_path>/<project_id>/`. The records live in memory, as in
 * the in-memory repositories; every change marks its project for writing, and the file is rewritten
 * atomically in the background (changes made during a write are coalesced into the next one).
 * `flush()` waits until every file says what memory says. At start the projects found under
 * projects_path are read back, closed.
 */
export class Gns3ProjectStore {
  readonly projects: ProjectRepository;
  readonly nodes: NodeRepository;
  readonly links: LinkRepository;
  private readonly projectRecords = new InMemoryProjectRepository();
  private readonly nodeRecords = new InMemoryNodeRepository();
  private readonly linkRecords = new InMemoryLinkRepository();
  /** Where each project's file was last written, to remove it when the project goes. */
  private readonly written = new Map<string, string>();
  private readonly dirty = new Set<string>();
  private readonly writing = new Map<string, Promise<void>>();
  private readonly loaded: Promise<void>;

  constructor(
    private readonly projectsPath: string,
    private readonly gns3Version: string,
    private readonly programs: FilterPrograms,
    private readonly logger: Logger,
  ) {
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
    const saved = <R>(projectIdOf: (r: R) => string, before: (r: R) => Promise<R | undefined>, save: (r: R) => Promise<void>, shows: (before: R | undefined, after: R) => boolean) => async (r: R): Promise<void> => {
      await this.loaded;
      const was = await before(r);
      await save(r);
      if (shows(was, r)) this.markDirty(projectIdOf(r));
    };
    const p = this.projectRecords;
    const n = this.nodeRecords;
    const l = this.linkRecords;
    this.projects = {
      get: ready((id: string) => p.get(id)),
      list: ready(() => p.list()),
      save: saved((project: Project) => project.projectId, (project) => p.get(project.projectId), (project) => p.save(project), fileEntryChanged.project),
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

  /** Resolves once every project file says what memory says (shutdown waits for it). */
  async flush(): Promise<void> {
    await this.loaded;
    while (this.writing.size > 0) await Promise.all(this.writing.values());
  }

  private markDirty(projectId: string): void {
    this.dirty.add(projectId);
    if (this.writing.has(projectId)) return;
    const run = (async () => {
      try {
        while (this.dirty.delete(projectId)) await this.write(projectId);
      } finally {
        this.writing.delete(projectId);
      }
    })();
    this.writing.set(projectId, run);
  }

  private async write(projectId: string): Promise<void> {
    const project = await this.projectRecords.get(projectId);
    const previous = this.written.get(projectId);
    try {
      if (project === undefined) {
        if (previous !== undefined) await rm(previous, { force: true });
        this.written.delete(projectId);
        return;
      }
      // A file GNS3 wrote with nodes netemu does not run was not read whole: never overwrite it.
      if (project.unsupportedNodeTypes.length > 0) return;
      const file = join(project.path, project.filename);
      await mkdir(project.path, { recursive: true });
      const topology = { project, nodes: await this.nodeRecords.listByProject(projectId), links: await this.linkRecords.listByProject(projectId) };
      await writeFileAtomic(file, renderProjectFile(topology, this.gns3Version));
      if (previous !== undefined && previous !== file) await rm(previous, { force: true });
      this.written.set(projectId, file);
    } catch (err) {
      // The records stay as they are; the next change of the project tries again.
      this.logger.error("project file could not be written", { projectId, path: project?.path, reason: (err as Error).message });
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
        continue;
      }
      for (const filename of files) {
        try {
          await this.loadFile(path, filename);
        } catch (err) {
          // A defect reading one file (not a refusal: those are values) must not cost the others.
          this.logger.error("project file skipped: reading it failed", { file: join(path, filename), reason: (err as Error).stack ?? String(err) });
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

  private async loadFile(path: string, filename: string): Promise<void> {
    const file = join(path, filename);
    let text: string;
    try {
      text = await readFile(file, "utf8");
    } catch (err) {
      this.logger.warn("project file skipped", { file, reason: (err as Error).message });
      return;
    }
    const parsed = parseProjectFile(text, path, filename);
    if (E.isLeft(parsed)) {
      this.logger.warn("project file skipped", { file, reason: describeProblem(parsed.left) });
      return;
    }
    const uncompilable = await this.uncompilable(parsed.right.links);
    if (uncompilable !== undefined) {
      this.logger.warn("project file skipped", { file, reason: uncompilable });
      return;
    }
    const { project, nodes, links } = parsed.right;
    const known = await this.projectRecords.get(project.projectId);
    if (known !== undefined) {
      this.logger.warn("project file skipped: its project id is already listed", { file, projectId: project.projectId, listedFrom: join(known.path, known.filename) });
      return;
    }
    await this.projectRecords.save(project);
    for (const node of nodes) await this.nodeRecords.save(node);
    for (const link of links) await this.linkRecords.save(link);
    this.written.set(project.projectId, file);
    if (project.unsupportedNodeTypes.length > 0) this.logger.warn("project listed, but it has nodes netemu does not run", { file, nodeTypes: project.unsupportedNodeTypes });
  }
}
