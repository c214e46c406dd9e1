import { inject, injectable } from "tsyringe";
import * as E from "fp-ts/lib/Either.js";
import type { ProjectFiles } from "../../ports/project-files.js";
import { TOKENS } from "../../ports/tokens.js";
import type { NetemuError } from "../../errors.js";
import { CloseComputeProject } from "./close-compute-project.js";

/** DELETE of a compute project: closed as by close, and its directory removed from disk, as in GNS3. */
@injectable()
export class DeleteComputeProject {
  constructor(
    private readonly close: CloseComputeProject,
    @inject(TOKENS.ProjectFiles) private readonly files: ProjectFiles,
  ) {}

  async execute(projectId: string): Promise<E.Either<NetemuError, void>> {
    const closed = await this.close.execute(projectId);
    if (E.isLeft(closed)) return closed;
    await this.files.remove(projectId);
    return closed;
  }
}
