import { inject, injectable } from "tsyringe";
import * as E from "fp-ts/lib/Either.js";
import type { NodeRepository } from "../../ports/repositories.js";
import { TOKENS } from "../../ports/tokens.js";
import { CONTROLLER_PROJECT_LOOKUP_REFUSALS, type Refusal } from "../../errors.js";
import { inPool, NODES_AT_ONCE } from "../../bounded-pool.js";
import { ShutdownSignal } from "../../shutdown-signal.js";
import { ControllerLookup } from "./controller-lookup.js";
import { CONTROL_NODE_REFUSALS, ControlNode, type NodeAction } from "./control-node.js";

/** What ControlAllNodes can answer instead of its result. */
export const CONTROL_ALL_NODES_REFUSALS = [...CONTROLLER_PROJECT_LOOKUP_REFUSALS, ...CONTROL_NODE_REFUSALS, "ShuttingDown"] as const;
export type ControlAllNodesError = Refusal<typeof CONTROL_ALL_NODES_REFUSALS>;

/**
 * The GUI's Start all, Stop all, Suspend all and Reload all on a project: its nodes a few at a time (GNS3's
 * pool), every node acted on even when one is refused, and the first refusal (in the nodes' order) answered.
 * Once netemu begins to shut down no further node is taken: the nodes under way finish, and the answer
 * says how far it got (ADR 0090).
 */
@injectable()
export class ControlAllNodes {
  constructor(
    private readonly lookup: ControllerLookup,
    private readonly controlNode: ControlNode,
    @inject(TOKENS.NodeRepository) private readonly nodes: NodeRepository,
    private readonly shutdown: ShutdownSignal,
  ) {}

  async execute(input: { readonly projectId: string; readonly action: NodeAction }): Promise<E.Either<ControlAllNodesError, void>> {
    const project = await this.lookup.openedProject(input.projectId);
    if (E.isLeft(project)) return project;
    const nodes = await this.nodes.listByProject(input.projectId);
    let acted = 0;
    const done = await inPool(nodes, NODES_AT_ONCE, async (node) => {
      // Looked at as each node is taken: those under way when the shutdown began finish.
      if (this.shutdown.begun) return undefined;
      acted++;
      return this.controlNode.execute({ projectId: input.projectId, nodeId: node.nodeId, action: input.action });
    });
    if (acted < nodes.length) return E.left({ _tag: "ShuttingDown", action: input.action, acted, total: nodes.length });
    for (const answer of done) if (answer !== undefined && E.isLeft(answer)) return answer;
    return E.right(undefined);
  }
}
