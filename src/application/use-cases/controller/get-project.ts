import { injectable } from "tsyringe";
import type * as E from "fp-ts/lib/Either.js";
import type { Project } from "../../../domain/topology/project.js";
import type { ErrorOf } from "../../errors.js";
import { ControllerLookup } from "./controller-lookup.js";

/** What GetProject can answer instead of its result. */
export type GetProjectError = ErrorOf<"ProjectNotFound">;

@injectable()
export class GetProject {
  constructor(private readonly lookup: ControllerLookup) {}

  execute({ projectId }: { readonly projectId: string }): Promise<E.Either<GetProjectError, Project>> {
    return this.lookup.project(projectId);
  }
}
