import { inject, injectable } from "tsyringe";
import * as E from "fp-ts/lib/Either.js";
import type { ProjectRepository, NodeRepository, LinkRepository } from "../../ports/repositories.js";
import { TOKENS } from "../../ports/tokens.js";
import type { ProjectEvents } from "../../ports/project-events.js";
import type { ProjectFiles } from "../../ports/project-files.js";

import { ImpairmentOverlay } from "../compute/impairment-overlay.js";
import { CloseProject } from "./close-project.js";
import type { Refusal } from "../../errors.js";
import { CLOSE_PROJECT_REFUSALS } from "./close-project.js";

/** What DeleteProject can answer instead of its result. */
export const DELETE_PROJECT_REFUSALS = CLOSE_PROJECT_REFUSALS;
export type DeleteProjectError = Refusal<typeof DELETE_PROJECT_REFUSALS>;

/**
 * Closes the project (freeing its live resources), then forgets it with its nodes and links, and
 * removes what its local compute project wrote (captures), as GNS3's controller deletes the project
 * on each of its computes. Deleted, its ports' impairments (`netemu impair`) are forgotten with it, as a
 * compute forgets them when GNS3 deletes the project there (ADR 0067): its ids never come back, and a
 * lab deployed again under the same name must not list them as if they acted (ADR 0089).
 */
@injectable()
export class DeleteProject {
  constructor(
    private readonly closeProject: CloseProject,
    @inject(TOKENS.ProjectRepository) private readonly projects: ProjectRepository,
    @inject(TOKENS.NodeRepository) private readonly nodes: NodeRepository,
    @inject(TOKENS.LinkRepository) private readonly links: LinkRepository,
    @inject(TOKENS.ProjectFiles) private readonly computeFiles: ProjectFiles,
    private readonly impairments: ImpairmentOverlay,
    @inject(TOKENS.ProjectEvents) private readonly events: ProjectEvents,
  ) {}

  async execute({ projectId }: { readonly projectId: string }): Promise<E.Either<DeleteProjectError, void>> {
    const closed = await this.closeProject.execute({ projectId });
    if (E.isLeft(closed)) return closed;
    for (const link of await this.links.listByProject(projectId)) await this.links.delete(projectId, link.linkId);
    for (const node of await this.nodes.listByProject(projectId)) await this.nodes.delete(projectId, node.nodeId);
    await this.projects.delete(projectId);
    await this.computeFiles.remove(projectId);
    await this.impairments.forget({ projectId });
    this.events.publish({ kind: "project.deleted", project: closed.right });
    return E.right(undefined);
  }
}
