import { injectable } from "tsyringe";
import type * as E from "fp-ts/lib/Either.js";
import { COMPUTE_PROJECT_LOOKUP_REFUSALS, type Refusal } from "../../errors.js";
import { ComputeProjectClosing } from "./compute-project-closing.js";

/** What CloseComputeProject can answer instead of its result. */
export const CLOSE_COMPUTE_PROJECT_REFUSALS = COMPUTE_PROJECT_LOOKUP_REFUSALS;
export type CloseComputeProjectError = Refusal<typeof CLOSE_COMPUTE_PROJECT_REFUSALS>;

/**
 * Closing a compute project deletes its switches and hubs, which closes their sockets, releases
 * every UDP port the project reserved, and forgets the project; its files stay on disk, as GNS3's
 * compute does.
 */
@injectable()
export class CloseComputeProject {
  constructor(private readonly closing: ComputeProjectClosing) {}

  execute({ projectId }: { readonly projectId: string }): Promise<E.Either<CloseComputeProjectError, void>> {
    return this.closing.close(projectId);
  }
}
