import { inject, injectable } from "tsyringe";
import * as E from "fp-ts/lib/Either.js";
import type { ComputeProject, ProjectVariable } from "../../../domain/topology/project.js";
import type { ComputeProjectRepository } from "../../ports/repositories.js";
import { TOKENS } from "../../ports/tokens.js";
import { COMPUTE_PROJECT_LOOKUP_REFUSALS, type Refusal } from "../../errors.js";
import { KeyedLock } from "../../keyed-lock.js";
import { readJsonValue } from "../../../domain/configuration/read.js";
import { CONFIGURATION_LIMITS } from "../../../domain/configuration/limits.js";
import { ComputeLookup } from "./compute-lookup.js";
import { computeProjectKey } from "./compute-project-closing.js";

/** What UpdateComputeProject can answer instead of its result. */
export const UPDATE_COMPUTE_PROJECT_REFUSALS = [...COMPUTE_PROJECT_LOOKUP_REFUSALS, "InvalidConfiguration"] as const;
export type UpdateComputeProjectError = Refusal<typeof UPDATE_COMPUTE_PROJECT_REFUSALS>;

/** PUT on a compute project: the controller sends the project's variables when they change. */
@injectable()
export class UpdateComputeProject {
  constructor(
    private readonly lookup: ComputeLookup,
    @inject(TOKENS.ComputeProjectRepository) private readonly projects: ComputeProjectRepository,
    @inject(TOKENS.KeyedLock) private readonly lock: KeyedLock,
  ) {}

  execute({ projectId, variables }: { readonly projectId: string; readonly variables: readonly ProjectVariable[] | null }): Promise<E.Either<UpdateComputeProjectError, ComputeProject>> {
    const bounded = readJsonValue(variables, "variables", CONFIGURATION_LIMITS.jsonDepth);
    if (E.isLeft(bounded)) return Promise.resolve(bounded);
    return this.lock.run(computeProjectKey(projectId), async () => {
      const found = await this.lookup.project(projectId);
      if (E.isLeft(found)) return found;
      const project: ComputeProject = { ...found.right, variables };
      await this.projects.save(project);
      return E.right(project);
    });
  }
}
