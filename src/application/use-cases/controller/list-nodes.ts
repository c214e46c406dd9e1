import { inject, injectable } from "tsyringe";
import * as E from "fp-ts/lib/Either.js";
import type { NodeRepository } from "../../ports/repositories.js";
import { TOKENS } from "../../ports/tokens.js";
import { CONTROLLER_PROJECT_LOOKUP_REFUSALS, type Refusal } from "../../errors.js";
import { ControllerLookup } from "./controller-lookup.js";
import { type ControllerNodeView, NodeViews } from "./node-views.js";

/** What ListNodes can answer instead of its result. */
export const LIST_NODES_REFUSALS = CONTROLLER_PROJECT_LOOKUP_REFUSALS;
export type ListNodesError = Refusal<typeof LIST_NODES_REFUSALS>;

@injectable()
export class ListNodes {
  constructor(
    private readonly lookup: ControllerLookup,
    private readonly views: NodeViews,
    @inject(TOKENS.NodeRepository) private readonly nodes: NodeRepository,
  ) {}

  async execute({ projectId }: { readonly projectId: string }): Promise<E.Either<ListNodesError, readonly ControllerNodeView[]>> {
    const project = await this.lookup.openedProject(projectId);
    if (E.isLeft(project)) return project;
    return E.right(await this.views.all(await this.nodes.listByProject(projectId)));
  }
}
