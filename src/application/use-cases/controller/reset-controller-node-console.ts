import { inject, injectable } from "tsyringe";
import * as E from "fp-ts/lib/Either.js";
import { KINDS_WITH_A_CONSOLE } from "../../../domain/switching/compute-node.js";
import { CONTROLLER_NODE_LOOKUP_REFUSALS, CONTROLLER_PROJECT_LOOKUP_REFUSALS, type Refusal } from "../../errors.js";
import { inPool, NODES_AT_ONCE } from "../../bounded-pool.js";
import type { ConsoleClients } from "../../ports/console-clients.js";
import type { ComputeNodeRepository, NodeRepository } from "../../ports/repositories.js";
import { TOKENS } from "../../ports/tokens.js";
import { ControllerLookup } from "./controller-lookup.js";
import { resetConsoleOf } from "../compute/reset-node-console.js";

export const RESET_CONTROLLER_NODE_CONSOLE_REFUSALS = [...CONTROLLER_NODE_LOOKUP_REFUSALS, "ConsoleResetNotServed", "ConsoleClientsNotDropped"] as const;
type ResetControllerNodeConsoleError = Refusal<typeof RESET_CONTROLLER_NODE_CONSOLE_REFUSALS>;

/**
 * The controller's console reset (`POST /v2/projects/{p}/nodes/{n}/console/reset`): GNS3 2.2.59 posts it
 * to the node's compute whatever its kind, and answers what the compute answers, a 404 for a kind without
 * the route. netemu's nodes run on its own compute under the same id: reset there directly (ADR 0099).
 */
@injectable()
export class ResetControllerNodeConsole {
  constructor(
    private readonly lookup: ControllerLookup,
    @inject(TOKENS.ComputeNodeRepository) private readonly computeNodes: ComputeNodeRepository,
    @inject(TOKENS.ConsoleClients) private readonly clients: ConsoleClients,
  ) {}

  async execute(input: { readonly projectId: string; readonly nodeId: string }): Promise<E.Either<ResetControllerNodeConsoleError, number>> {
    const node = await this.lookup.node(input.projectId, input.nodeId);
    if (E.isLeft(node)) return node;
    const { nodeType, nodeId } = node.right;
    if (!KINDS_WITH_A_CONSOLE.includes(nodeType)) return E.left({ _tag: "ConsoleResetNotServed", projectId: input.projectId, nodeType, nodeId });
    const onCompute = await this.computeNodes.get(nodeId);
    // A node the compute does not run yet (its project being opened) has no console client to drop.
    return onCompute === undefined ? E.right(0) : resetConsoleOf(onCompute, this.clients);
  }
}

export const RESET_PROJECT_CONSOLES_REFUSALS = [...CONTROLLER_PROJECT_LOOKUP_REFUSALS, "ConsoleClientsNotDropped"] as const;
type ResetProjectConsolesError = Refusal<typeof RESET_PROJECT_CONSOLES_REFUSALS>;

/**
 * Every node's console reset at once (`POST /v2/projects/{p}/nodes/console/reset`), as GNS3 2.2.59's
 * `reset_console_all`: an opened project, the nodes with a console a few at a time, the others skipped
 * (GNS3 asks only a node whose console is telnet); every node reset even when one fails, the first
 * failure answered.
 */
@injectable()
export class ResetProjectConsoles {
  constructor(
    private readonly lookup: ControllerLookup,
    @inject(TOKENS.NodeRepository) private readonly nodes: NodeRepository,
    @inject(TOKENS.ComputeNodeRepository) private readonly computeNodes: ComputeNodeRepository,
    @inject(TOKENS.ConsoleClients) private readonly clients: ConsoleClients,
  ) {}

  async execute(input: { readonly projectId: string }): Promise<E.Either<ResetProjectConsolesError, number>> {
    const project = await this.lookup.openedProject(input.projectId);
    if (E.isLeft(project)) return project;
    const withConsoles = (await this.nodes.listByProject(input.projectId)).filter((n) => KINDS_WITH_A_CONSOLE.includes(n.nodeType));
    const results = await inPool(withConsoles, NODES_AT_ONCE, async (node) => {
      const onCompute = await this.computeNodes.get(node.nodeId);
      return onCompute === undefined ? E.right(0) : resetConsoleOf(onCompute, this.clients);
    });
    const refused = results.find(E.isLeft);
    return refused ?? E.right(results.reduce((sum, r) => sum + (E.isRight(r) ? r.right : 0), 0));
  }
}
