import { inject, injectable } from "tsyringe";
import * as E from "fp-ts/lib/Either.js";
import type { ComputeProject } from "../../../domain/topology/project.js";
import { isValidUuid } from "../../../domain/topology/ids.js";
import type { ComputeProjectRepository } from "../../ports/repositories.js";
import type { IdGenerator } from "../../ports/system.js";
import type { ProjectFiles } from "../../ports/project-files.js";
import { TOKENS } from "../../ports/tokens.js";
import { KeyedLock } from "../../keyed-lock.js";
import { computeProjectKey } from "./compute-project-closing.js";
import type { Refusal } from "../../errors.js";
import { readJsonValue } from "../../../domain/configuration/read.js";
import { CONFIGURATION_LIMITS } from "../../../domain/configuration/limits.js";

/** What CreateComputeProject can answer instead of its result. */
export const CREATE_COMPUTE_PROJECT_REFUSALS = ["InvalidUuid", "InvalidConfiguration"] as const;
export type CreateComputeProjectError = Refusal<typeof CREATE_COMPUTE_PROJECT_REFUSALS>;

export interface CreateComputeProjectInput {
  readonly name: string;
  readonly projectId?: string | undefined;
  readonly variables?: unknown;
}

/** A compute project and its directory; GNS3 returns the existing project when the id is already known. */
@injectable()
export class CreateComputeProject {
  constructor(
    @inject(TOKENS.ComputeProjectRepository) private readonly projects: ComputeProjectRepository,
    @inject(TOKENS.IdGenerator) private readonly ids: IdGenerator,
    @inject(TOKENS.ProjectFiles) private readonly files: ProjectFiles,
    @inject(TOKENS.KeyedLock) private readonly lock: KeyedLock,
  ) {}

  async execute(input: CreateComputeProjectInput): Promise<E.Either<CreateComputeProjectError, ComputeProject>> {
    if (input.projectId !== undefined && !isValidUuid(input.projectId)) return E.left({ _tag: "InvalidUuid", what: "Project", id: input.projectId });
    const variables = readJsonValue(input.variables ?? null, "variables", CONFIGURATION_LIMITS.jsonDepth);
    if (E.isLeft(variables)) return variables;
    const projectId = input.projectId ?? this.ids.uuid();
    return this.lock.run(computeProjectKey(projectId), async () => {
      const existing = await this.projects.get(projectId);
      if (existing !== undefined) return E.right(existing);
      const project: ComputeProject = { projectId, name: input.name, variables: input.variables ?? null };
      await this.files.create(projectId);
      await this.projects.save(project);
      return E.right(project);
    });
  }
}
