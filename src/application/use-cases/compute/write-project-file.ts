import { inject, injectable } from "tsyringe";
import * as E from "fp-ts/lib/Either.js";
import { projectRelativePath } from "../../../domain/topology/project-path.js";
import type { ProjectFiles } from "../../ports/project-files.js";
import { TOKENS } from "../../ports/tokens.js";
import { COMPUTE_PROJECT_LOOKUP_REFUSALS, type Refusal } from "../../errors.js";
import { ComputeLookup } from "./compute-lookup.js";

/** What WriteProjectFile can answer instead of its result. */
export const WRITE_PROJECT_FILE_REFUSALS = [...COMPUTE_PROJECT_LOOKUP_REFUSALS, "PathOutsideProject", "ProjectFileUnwritable", "ProjectFileNameTooLong", "PayloadTooLarge"] as const;
export type WriteProjectFileError = Refusal<typeof WRITE_PROJECT_FILE_REFUSALS>;

/** Writes a file into a compute project (a controller importing or duplicating a project). */
@injectable()
export class WriteProjectFile {
  constructor(
    private readonly lookup: ComputeLookup,
    @inject(TOKENS.ProjectFiles) private readonly files: ProjectFiles,
  ) {}

  /** `declaredBytes` is the size the client announced (Content-Length), when it did. */
  async execute({ projectId, path, content, declaredBytes }: { readonly projectId: string; readonly path: string; readonly content: AsyncIterable<Uint8Array>; readonly declaredBytes?: number | undefined }): Promise<E.Either<WriteProjectFileError, void>> {
    const project = await this.lookup.project(projectId);
    if (E.isLeft(project)) return project;
    const inside = projectRelativePath(path);
    if (E.isLeft(inside)) return E.left({ _tag: "PathOutsideProject", path });
    if (inside.right === "") return E.left({ _tag: "PathOutsideProject", path });
    const written = await this.files.write(projectId, inside.right, content, declaredBytes);
    if (E.isRight(written)) return written;
    const refusal = written.left;
    switch (refusal._tag) {
      case "outside":
        return E.left({ _tag: "PathOutsideProject", path });
      case "name-too-long":
        return E.left({ _tag: "ProjectFileNameTooLong", what: refusal.what, name: refusal.name, limit: refusal.limit });
      case "too-large":
        return E.left({ _tag: "PayloadTooLarge", what: refusal.what, limit: refusal.limit });
      case "failed":
        return E.left({ _tag: "ProjectFileUnwritable", path: inside.right, reason: refusal.reason });
    }
  }
}
