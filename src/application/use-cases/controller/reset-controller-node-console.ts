import { inject, injectable } from "tsyringe";
import * as E from "fp-ts/lib/Either.js";
import { KINDS_WITH_A_CONSOLE } from "../../../domain/switching/compute-node.js";
import { CONTROLLER_NODE_LOOKUP_REFUSALS, type Refusal } from "../../errors.js";
import type { ConsoleClients } from "../../ports/console-clients.js";
import type { ComputeNodeRepository } from "../../ports/repositories.js";
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
    return resetConsoleOf(await this.computeNodes.get(nodeId), this.clients);
  }
}
