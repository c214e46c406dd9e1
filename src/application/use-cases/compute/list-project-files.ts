import { inject, injectable } from "tsyringe";
import * as E from "fp-ts/lib/Either.js";
import type { ProjectFileEntry, ProjectFiles } from "../../ports/project-files.js";
import { TOKENS } from "../../ports/tokens.js";
import { COMPUTE_PROJECT_LOOKUP_REFUSALS, type Refusal } from "../../errors.js";
import { ComputeLookup } from "./compute-lookup.js";

/** What ListProjectFiles can answer instead of its result. */
export const LIST_PROJECT_FILES_REFUSALS = COMPUTE_PROJECT_LOOKUP_REFUSALS;
export type ListProjectFilesError = Refusal<typeof LIST_PROJECT_FILES_REFUSALS>;

/** Every file of a compute project with its MD5: what a controller copies for a snapshot or an export. */
@injectable()
export class ListProjectFiles {
  constructor(
    private readonly lookup: ComputeLookup,
    @inject(TOKENS.ProjectFiles) private readonly files: ProjectFiles,
  ) {}

  async execute({ projectId }: { readonly projectId: string }): Promise<E.Either<ListProjectFilesError, readonly ProjectFileEntry[]>> {
    const project = await this.lookup.project(projectId);
    if (E.isLeft(project)) return project;
    return E.right(await this.files.list(projectId));
  }
}
