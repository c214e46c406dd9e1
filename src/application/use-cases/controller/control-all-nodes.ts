import { inject, injectable } from "tsyringe";
import * as E from "fp-ts/lib/Either.js";
import type { NodeRepository } from "../../ports/repositories.js";
import { TOKENS } from "../../ports/tokens.js";
import { CONTROLLER_PROJECT_LOOKUP_REFUSALS, type Refusal } from "../../errors.js";
import { ControllerLookup } from "./controller-lookup.js";
import { CONTROL_NODE_REFUSALS, ControlNode, type NodeAction } from "./control-node.js";

/** What ControlAllNodes can answer instead of its result. */
export const CONTROL_ALL_NODES_REFUSALS = [...CONTROLLER_PROJECT_LOOKUP_REFUSALS, ...CONTROL_NODE_REFUSALS] as const;
export type ControlAllNodesError = Refusal<typeof CONTROL_ALL_NODES_REFUSALS>;

/** The GUI's Start all, Stop all, Suspend all and Reload all on a project. */
@injectable()
export class ControlAllNodes {
  constructor(
    private readonly lookup: ControllerLookup,
    private readonly controlNode: ControlNode,
    @inject(TOKENS.NodeRepository) private readonly nodes: NodeRepository,
  ) {}

  async execute(input: { readonly projectId: string; readonly action: NodeAction }): Promise<E.Either<ControlAllNodesError, void>> {
    const project = await this.lookup.openedProject(input.projectId);
    if (E.isLeft(project)) return project;
    for (const node of await this.nodes.listByProject(input.projectId)) {
      const done = await this.controlNode.execute({ projectId: input.projectId, nodeId: node.nodeId, action: input.action });
      if (E.isLeft(done)) return done;
    }
    return E.right(undefined);
  }
}
