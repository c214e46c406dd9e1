import { injectable } from "tsyringe";
import type * as E from "fp-ts/lib/Either.js";
import type { ComputeProject } from "../../../domain/topology/project.js";
import type { NetemuError } from "../../errors.js";
import { ComputeLookup } from "./compute-lookup.js";

@injectable()
export class GetComputeProject {
  constructor(private readonly lookup: ComputeLookup) {}

  execute(projectId: string): Promise<E.Either<NetemuError, ComputeProject>> {
    return this.lookup.project(projectId);
  }
}
