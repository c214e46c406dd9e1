import { injectable } from "tsyringe";
import type * as E from "fp-ts/lib/Either.js";
import type { Project } from "../../../domain/topology/project.js";
import type { NetemuError } from "../../errors.js";
import { ControllerLookup } from "./controller-lookup.js";

@injectable()
export class GetProject {
  constructor(private readonly lookup: ControllerLookup) {}

  execute(projectId: string): Promise<E.Either<NetemuError, Project>> {
    return this.lookup.project(projectId);
  }
}
