import { inject, injectable } from "tsyringe";
import * as E from "fp-ts/lib/Either.js";
import { projectRelativePath } from "../../../domain/topology/project-path.js";
import type { ProjectFiles } from "../../ports/project-files.js";
import { TOKENS } from "../../ports/tokens.js";
import { COMPUTE_PROJECT_LOOKUP_REFUSALS, type Refusal } from "../../errors.js";
import { ComputeLookup } from "./compute-lookup.js";

/** What ReadProjectFile can answer instead of its result. */
export const READ_PROJECT_FILE_REFUSALS = [...COMPUTE_PROJECT_LOOKUP_REFUSALS, "PathOutsideProject", "FileNotFound"] as const;
export type ReadProjectFileError = Refusal<typeof READ_PROJECT_FILE_REFUSALS>;

/** One file of a compute project, as a stream of bytes; a path leaving the project is refused. */
@injectable()
export class ReadProjectFile {
  constructor(
    private readonly lookup: ComputeLookup,
    @inject(TOKENS.ProjectFiles) private readonly files: ProjectFiles,
  ) {}

  async execute({ projectId, path }: { readonly projectId: string; readonly path: string }): Promise<E.Either<ReadProjectFileError, AsyncIterable<Uint8Array>>> {
    const project = await this.lookup.project(projectId);
    if (E.isLeft(project)) return project;
    const inside = projectRelativePath(path);
    if (E.isLeft(inside)) return E.left({ _tag: "PathOutsideProject", path });
    if (inside.right === "") return E.left({ _tag: "FileNotFound" });
    const content = await this.files.read(projectId, inside.right);
    return E.isLeft(content) ? E.left({ _tag: "FileNotFound" }) : content;
  }
}
