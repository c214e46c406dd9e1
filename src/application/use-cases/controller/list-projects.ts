import { inject, injectable } from "tsyringe";
import type { Project } from "../../../domain/topology/project.js";
import type { ProjectRepository } from "../../ports/repositories.js";
import { TOKENS } from "../../ports/tokens.js";

@injectable()
export class ListProjects {
  constructor(@inject(TOKENS.ProjectRepository) private readonly projects: ProjectRepository) {}

  execute(): Promise<readonly Project[]> {
    return this.projects.list();
  }
}
