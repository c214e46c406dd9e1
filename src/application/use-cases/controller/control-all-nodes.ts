import { inject, injectable } from "tsyringe";
import * as E from "fp-ts/lib/Either.js";
import type { NodeRepository } from "../../ports/repositories.js";
import { TOKENS } from "../../ports/tokens.js";
import { CONTROLLER_PROJECT_LOOKUP_REFUSALS, type Refusal } from "../../errors.js";
import { inPool, NODES_AT_ONCE } from "../../bounded-pool.js";
import { ControllerLookup } from "./controller-lookup.js";
import { CONTROL_NODE_REFUSALS, ControlNode, type NodeAction } from "./control-node.js";

/** What ControlAllNodes can answer instead of its result. */
export const CONTROL_ALL_NODES_REFUSALS = [...CONTROLLER_PROJECT_LOOKUP_REFUSALS, ...CONTROL_NODE_REFUSALS] as const;
export type ControlAllNodesError = Refusal<typeof CONTROL_ALL_NODES_REFUSALS>;

/**
 * The GUI's Start all, Stop all, Suspend all and Reload all on a project: its nodes a few at a time (GNS3's
 * pool), every node acted on even when one is refused, and the first refusal (in the nodes' order) answered.
 */
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
    const nodes = await this.nodes.listByProject(input.projectId);
    const done = await inPool(nodes, NODES_AT_ONCE, (node) => this.controlNode.execute({ projectId: input.projectId, nodeId: node.nodeId, action: input.action }));
    for (const answer of done) if (E.isLeft(answer)) return answer;
    return E.right(undefined);
  }
}
