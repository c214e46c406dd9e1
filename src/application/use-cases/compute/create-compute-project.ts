import { inject, injectable } from "tsyringe";
import * as E from "fp-ts/lib/Either.js";
import type { ComputeProject } from "../../../domain/topology/project.js";
import type { ComputeProjectRepository } from "../../ports/repositories.js";
import type { IdGenerator } from "../../ports/system.js";
import type { ProjectFiles } from "../../ports/project-files.js";
import { TOKENS } from "../../ports/tokens.js";
import type { NetemuError } from "../../errors.js";

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
  ) {}

  async execute(input: CreateComputeProjectInput): Promise<E.Either<NetemuError, ComputeProject>> {
    const projectId = input.projectId ?? this.ids.uuid();
    const existing = await this.projects.get(projectId);
    if (existing !== undefined) return E.right(existing);
    const project: ComputeProject = { projectId, name: input.name, variables: input.variables ?? null };
    await this.files.create(projectId);
    await this.projects.save(project);
    return E.right(project);
  }
}
