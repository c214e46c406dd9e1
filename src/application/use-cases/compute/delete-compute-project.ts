import { inject, injectable } from "tsyringe";
import * as E from "fp-ts/lib/Either.js";
import type { ProjectFiles } from "../../ports/project-files.js";
import { TOKENS } from "../../ports/tokens.js";
import type { ComputeProjectLookupError } from "../../errors.js";
import { CloseComputeProject } from "./close-compute-project.js";

/** What DeleteComputeProject can answer instead of its result. */
export type DeleteComputeProjectError = ComputeProjectLookupError;

/** DELETE of a compute project: closed as by close, and its directory removed from disk, as in GNS3. */
@injectable()
export class DeleteComputeProject {
  constructor(
    private readonly close: CloseComputeProject,
    @inject(TOKENS.ProjectFiles) private readonly files: ProjectFiles,
  ) {}

  async execute({ projectId }: { readonly projectId: string }): Promise<E.Either<DeleteComputeProjectError, void>> {
    const closed = await this.close.execute({ projectId });
    if (E.isLeft(closed)) return closed;
    await this.files.remove(projectId);
    return closed;
  }
}
