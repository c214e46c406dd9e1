import { inject, injectable } from "tsyringe";
import * as E from "fp-ts/lib/Either.js";
import type { Project } from "../../../domain/topology/project.js";
import type { LinkRepository, ProjectRepository } from "../../ports/repositories.js";
import { TOKENS } from "../../ports/tokens.js";
import type { ProjectEvents } from "../../ports/project-events.js";
import type { Refusal } from "../../errors.js";
import { KeyedLock } from "../../keyed-lock.js";
import { CloseComputeProject } from "../compute/close-compute-project.js";
import { ControllerLookup } from "./controller-lookup.js";

/** What CloseProject can answer instead of its result. */
export const CLOSE_PROJECT_REFUSALS = ["ProjectNotFound"] as const;
export type CloseProjectError = Refusal<typeof CLOSE_PROJECT_REFUSALS>;

/**
 * Closing a project keeps its topology (nodes, links, filters) but releases everything live:
 * the compute project with its switches, sockets and UDP ports. `open` builds them again.
 */
@injectable()
export class CloseProject {
  constructor(
    private readonly lookup: ControllerLookup,
    private readonly closeCompute: CloseComputeProject,
    @inject(TOKENS.ProjectRepository) private readonly projects: ProjectRepository,
    @inject(TOKENS.LinkRepository) private readonly links: LinkRepository,
    @inject(TOKENS.KeyedLock) private readonly lock: KeyedLock,
    @inject(TOKENS.ProjectEvents) private readonly events: ProjectEvents,
  ) {}

  execute({ projectId }: { readonly projectId: string }): Promise<E.Either<CloseProjectError, Project>> {
    return this.lock.run(`project:${projectId}`, async () => {
      const project = await this.lookup.project(projectId);
      if (E.isLeft(project)) return project;
      if (project.right.status === "closed") return project;
      // The local compute may not know the project if it never had a node: that is fine.
      await this.closeCompute.execute({ projectId });
      // Captures end with the sockets; the links must not say they are still capturing.
      for (const link of await this.links.listByProject(projectId)) {
        if (link.capture !== null) await this.links.save({ ...link, capture: null });
      }
      const closed: Project = { ...project.right, status: "closed" };
      await this.projects.save(closed);
      this.events.publish({ kind: "project.closed", project: closed });
      return E.right(closed);
    });
  }
}
