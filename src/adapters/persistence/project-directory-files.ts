import { createHash, randomUUID } from "node:crypto";
import { createReadStream } from "node:fs";
import { mkdir, open, readdir, realpath, rename, rm, stat } from "node:fs/promises";
import { dirname, join, relative, sep } from "node:path";
import * as E from "fp-ts/lib/Either.js";
import type { ProjectFileEntry, ProjectFiles } from "../../application/ports/project-files.js";

/** The temporary file of an upload still being received: not yet a file of the project. */
const UPLOAD_IN_PROGRESS = /\.[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}\.upload$/;

/** Whether `path` is `root` or inside it (both real paths). */
function within(root: string, path: string): boolean {
  const rel = relative(root, path);
  return rel === "" || (rel !== ".." && !rel.startsWith(`..${sep}`) && !rel.startsWith(sep));
}

/**
 * A compute project's files in `<projects path>/<project id>`, where captures also go
 * (project-files/captures), as GNS3 lays them out. Paths come in already normalised; a symbolic
 * link that leads out of the directory is still refused here, as GNS3 checks real paths.
 */
export class ProjectDirectoryFiles implements ProjectFiles {
  constructor(private readonly projectsPath: string) {}

  private directory(projectId: string): string {
    return join(this.projectsPath, projectId);
  }

  async create(projectId: string): Promise<void> {
    await mkdir(this.directory(projectId), { recursive: true });
  }

  async list(projectId: string): Promise<readonly ProjectFileEntry[]> {
    const root = this.directory(projectId);
    const files: ProjectFileEntry[] = [];
    const walk = async (dir: string): Promise<void> => {
      let entries;
      try {
        entries = await readdir(dir, { withFileTypes: true });
      } catch {
        return;
      }
      for (const entry of entries.sort((a, b) => (a.name < b.name ? -1 : 1))) {
        const full = join(dir, entry.name);
        if (entry.isDirectory()) await walk(full);
        else if (entry.isFile() && !UPLOAD_IN_PROGRESS.test(entry.name)) {
          const md5sum = await this.md5(full);
          if (md5sum !== undefined) files.push({ path: relative(root, full).split(sep).join("/"), md5sum });
        }
      }
    };
    await walk(root);
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

  async write(projectId: string, path: string, content: AsyncIterable<Uint8Array>): Promise<E.Either<"outside" | { readonly failed: string }, void>> {
    const root = this.directory(projectId);
    const full = join(root, path);
    // Each upload has its own temporary file: two uploads of one path never write into each other,
    // and the last one renamed is the file, whole.
    const temp = `${full}.${randomUUID()}.upload`;
    try {
      await mkdir(dirname(full), { recursive: true });
      if (!within(await realpath(root), await realpath(dirname(full)))) return E.left("outside");
      const file = await open(temp, "w", 0o644);
      try {
        for await (const chunk of content) await file.write(chunk);
      } finally {
        await file.close();
      }
      // Written whole or not at all: a client that goes away mid-upload leaves no half file.
      await rename(temp, full);
      return E.right(undefined);
    } catch (err) {
      await rm(temp, { force: true }).catch(() => undefined);
      // The code, not the message: messages carry absolute paths of the server.
      const e = err as NodeJS.ErrnoException;
      return E.left({ failed: e.code === undefined ? "the upload was interrupted" : `${e.syscall ?? "write"} failed with ${e.code}` });
    }
  }

  async remove(projectId: string): Promise<void> {
    await rm(this.directory(projectId), { recursive: true, force: true });
  }
}
