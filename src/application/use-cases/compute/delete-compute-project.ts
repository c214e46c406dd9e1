import { inject, injectable } from "tsyringe";
import type * as E from "fp-ts/lib/Either.js";
import type { ProjectFiles } from "../../ports/project-files.js";
import { TOKENS } from "../../ports/tokens.js";
import { COMPUTE_PROJECT_LOOKUP_REFUSALS, type Refusal } from "../../errors.js";
import { ComputeProjectClosing } from "./compute-project-closing.js";
import { ImpairmentOverlay } from "./impairment-overlay.js";

/** What DeleteComputeProject can answer instead of its result. */
export const DELETE_COMPUTE_PROJECT_REFUSALS = COMPUTE_PROJECT_LOOKUP_REFUSALS;
export type DeleteComputeProjectError = Refusal<typeof DELETE_COMPUTE_PROJECT_REFUSALS>;

/** DELETE of a compute project: closed as by close, and its directory removed from disk, as in GNS3. */
@injectable()
export class DeleteComputeProject {
  constructor(
    private readonly closing: ComputeProjectClosing,
    @inject(TOKENS.ProjectFiles) private readonly files: ProjectFiles,
    private readonly impairments: ImpairmentOverlay,
  ) {}

  execute({ projectId }: { readonly projectId: string }): Promise<E.Either<DeleteComputeProjectError, void>> {
    return this.closing.close(projectId, async () => {
      await this.files.remove(projectId);
      // Deleted, not closed: GNS3 will not make this project again (ADR 0067).
      await this.impairments.forget({ projectId });
    });
  }
}
