import { inject, injectable } from "tsyringe";
import * as E from "fp-ts/lib/Either.js";
import { KINDS_WITH_A_CONSOLE } from "../../../domain/switching/compute-node.js";
import { CONTROLLER_PROJECT_LOOKUP_REFUSALS, type Refusal } from "../../errors.js";
import { inPool, NODES_AT_ONCE } from "../../bounded-pool.js";
import type { ConsoleClients } from "../../ports/console-clients.js";
import type { ComputeNodeRepository, NodeRepository } from "../../ports/repositories.js";
import { TOKENS } from "../../ports/tokens.js";
import { ControllerLookup } from "./controller-lookup.js";
import { resetConsoleOf } from "../compute/reset-node-console.js";

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
    const results = await inPool(withConsoles, NODES_AT_ONCE, async (node) => resetConsoleOf(await this.computeNodes.get(node.nodeId), this.clients));
    const refused = results.find(E.isLeft);
    return refused ?? E.right(results.reduce((sum, r) => sum + (E.isRight(r) ? r.right : 0), 0));
  }
}
