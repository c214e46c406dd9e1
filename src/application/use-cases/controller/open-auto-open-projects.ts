import { inject, injectable } from "tsyringe";
import * as E from "fp-ts/lib/Either.js";
import type { ProjectRepository } from "../../ports/repositories.js";
import type { Logger } from "../../ports/system.js";
import { TOKENS } from "../../ports/tokens.js";
import { OpenProject } from "./open-project.js";

/**
 * At start, opens every closed project whose `auto_open` is set, as GNS3's controller does: a lab that
 * was running comes back live after a restart without anyone opening it. Answers the ids it opened;
 * a project that cannot be opened is logged and left closed.
 */
@injectable()
export class OpenAutoOpenProjects {
  constructor(
    private readonly openProject: OpenProject,
    @inject(TOKENS.ProjectRepository) private readonly projects: ProjectRepository,
    @inject(TOKENS.Logger) private readonly logger: Logger,
  ) {}

  async execute(): Promise<readonly string[]> {
    const opened: string[] = [];
    for (const project of await this.projects.list()) {
      if (!project.autoOpen || project.status === "opened") continue;
      const r = await this.openProject.execute({ projectId: project.projectId });
      if (E.isLeft(r)) {
        this.logger.warn("auto_open project could not be opened", { projectId: project.projectId, name: project.name, error: r.left._tag });
        continue;
      }
      this.logger.info("project opened at start (auto_open)", { projectId: project.projectId, name: project.name });
      opened.push(project.projectId);
    }
    return opened;
  }
}
