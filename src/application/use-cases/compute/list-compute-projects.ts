import { inject, injectable } from "tsyringe";
import type { ComputeProject } from "../../../domain/topology/project.js";
import type { ComputeProjectRepository } from "../../ports/repositories.js";
import { TOKENS } from "../../ports/tokens.js";

/** The projects opened on this compute. */
@injectable()
export class ListComputeProjects {
  constructor(@inject(TOKENS.ComputeProjectRepository) private readonly projects: ComputeProjectRepository) {}

  execute(): Promise<readonly ComputeProject[]> {
    return this.projects.list();
  }
}
