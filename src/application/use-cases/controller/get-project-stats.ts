import { inject, injectable } from "tsyringe";
import * as E from "fp-ts/lib/Either.js";
import type { LinkRepository, NodeRepository } from "../../ports/repositories.js";
import { TOKENS } from "../../ports/tokens.js";
import type { Refusal } from "../../errors.js";
import { ControllerLookup } from "./controller-lookup.js";

/** What GetProjectStats can answer instead of its result. */
export const GET_PROJECT_STATS_REFUSALS = ["ProjectNotFound"] as const;
export type GetProjectStatsError = Refusal<typeof GET_PROJECT_STATS_REFUSALS>;

export interface ProjectStats {
  readonly nodes: number;
  readonly links: number;
  readonly drawings: number;
  /** netemu keeps no snapshots: always 0. */
  readonly snapshots: number;
}

/**
 * GET /v2/projects/{p}/stats (gns3fy's `Project.get()` reads it by default). A closed project
 * counts nothing, as in GNS3, whose closed projects hold no nodes or links until opened.
 */
@injectable()
export class GetProjectStats {
  constructor(
    private readonly lookup: ControllerLookup,
    @inject(TOKENS.NodeRepository) private readonly nodes: NodeRepository,
    @inject(TOKENS.LinkRepository) private readonly links: LinkRepository,
  ) {}

  async execute({ projectId }: { readonly projectId: string }): Promise<E.Either<GetProjectStatsError, ProjectStats>> {
    const project = await this.lookup.project(projectId);
    if (E.isLeft(project)) return project;
    if (project.right.status !== "opened") return E.right({ nodes: 0, links: 0, drawings: 0, snapshots: 0 });
    const [nodes, links] = await Promise.all([this.nodes.listByProject(projectId), this.links.listByProject(projectId)]);
    return E.right({ nodes: nodes.length, links: links.length, drawings: project.right.drawings.length, snapshots: 0 });
  }
}
