import { injectable } from "tsyringe";
import type * as E from "fp-ts/lib/Either.js";
import type { Project } from "../../../domain/topology/project.js";
import type { Refusal } from "../../errors.js";
import { ControllerLookup } from "./controller-lookup.js";

/** What GetProject can answer instead of its result. */
export const GET_PROJECT_REFUSALS = ["ProjectNotFound"] as const;
export type GetProjectError = Refusal<typeof GET_PROJECT_REFUSALS>;

@injectable()
export class GetProject {
  constructor(private readonly lookup: ControllerLookup) {}

  execute({ projectId }: { readonly projectId: string }): Promise<E.Either<GetProjectError, Project>> {
    return this.lookup.project(projectId);
  }
}
