import { injectable } from "tsyringe";
import type * as E from "fp-ts/lib/Either.js";
import type { ComputeProject } from "../../../domain/topology/project.js";
import { COMPUTE_PROJECT_LOOKUP_REFUSALS, type Refusal } from "../../errors.js";
import { ComputeLookup } from "./compute-lookup.js";

/** What GetComputeProject can answer instead of its result. */
export const GET_COMPUTE_PROJECT_REFUSALS = COMPUTE_PROJECT_LOOKUP_REFUSALS;
export type GetComputeProjectError = Refusal<typeof GET_COMPUTE_PROJECT_REFUSALS>;

@injectable()
export class GetComputeProject {
  constructor(private readonly lookup: ComputeLookup) {}

  execute({ projectId }: { readonly projectId: string }): Promise<E.Either<GetComputeProjectError, ComputeProject>> {
    return this.lookup.project(projectId);
  }
}
