import { inject, injectable } from "tsyringe";
import * as E from "fp-ts/lib/Either.js";
import { type Project, type ProjectOptions, createProject } from "../../../domain/topology/project.js";
import type { ProjectRepository } from "../../ports/repositories.js";
import type { IdGenerator } from "../../ports/system.js";
import type { ServerSettings } from "../../ports/server-settings.js";
import { TOKENS } from "../../ports/tokens.js";
import type { ProjectEvents } from "../../ports/project-events.js";
import type { Refusal } from "../../errors.js";
import { KeyedLock } from "../../keyed-lock.js";
import { readJsonValue } from "../../../domain/configuration/read.js";
import { CONFIGURATION_LIMITS } from "../../../domain/configuration/limits.js";

/** What CreateProject can answer instead of its result. */
export const CREATE_PROJECT_REFUSALS = ["ProjectNameTaken", "InvalidConfiguration"] as const;
export type CreateProjectError = Refusal<typeof CREATE_PROJECT_REFUSALS>;

export interface CreateProjectInput {
  readonly name: string;
  readonly projectId?: string | undefined;
  readonly path?: string | undefined;
  readonly options?: ProjectOptions;
}

/** GNS3: a known id answers the existing project; another project with the same name is a 409. */
@injectable()
export class CreateProject {
  constructor(
    @inject(TOKENS.ProjectRepository) private readonly projects: ProjectRepository,
    @inject(TOKENS.IdGenerator) private readonly ids: IdGenerator,
    @inject(TOKENS.ServerSettings) private readonly settings: ServerSettings,
    @inject(TOKENS.KeyedLock) private readonly lock: KeyedLock,
    @inject(TOKENS.ProjectEvents) private readonly events: ProjectEvents,
  ) {}

  execute(input: CreateProjectInput): Promise<E.Either<CreateProjectError, Project>> {
    // Free-form values a client stores and gets back: bounded, so that writing and answering them cannot overflow.
    for (const [key, value] of [["supplier", input.options?.supplier], ["variables", input.options?.variables]] as const) {
      const bounded = readJsonValue(value ?? null, key, CONFIGURATION_LIMITS.jsonDepth);
      if (E.isLeft(bounded)) return Promise.resolve(bounded);
    }
    return this.lock.run("controller:projects", async () => {
      const projectId = input.projectId ?? this.ids.uuid();
      const existing = await this.projects.get(projectId);
      if (existing !== undefined) return E.right(existing);
      if ((await this.projects.list()).some((p) => p.name === input.name)) {
        return E.left({ _tag: "ProjectNameTaken", name: input.name });
      }
      const path = input.path ?? `${this.settings.projectsPath}/${projectId}`;
      const project = createProject(projectId, input.name, path, input.options);
      await this.projects.save(project);
      this.events.publish({ kind: "project.created", project });
      return E.right(project);
    });
  }
}
