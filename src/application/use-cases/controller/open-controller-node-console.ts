import { inject, injectable } from "tsyringe";
import * as E from "fp-ts/lib/Either.js";
import { CONTROLLER_NODE_LOOKUP_REFUSALS, type Refusal } from "../../errors.js";
import type { ComputeNodeRepository } from "../../ports/repositories.js";
import { TOKENS } from "../../ports/tokens.js";
import { ControllerLookup } from "./controller-lookup.js";
import { type NodeConsole, consoleOf } from "../compute/open-node-console.js";

export const OPEN_CONTROLLER_NODE_CONSOLE_REFUSALS = [...CONTROLLER_NODE_LOOKUP_REFUSALS, "NodeNotStarted", "ConsoleNotTelnet"] as const;
export type OpenControllerNodeConsoleError = Refusal<typeof OPEN_CONTROLLER_NODE_CONSOLE_REFUSALS>;

/**
 * The controller's web console of a node (`GET /v2/projects/{p}/nodes/{n}/console/ws`): its nodes run on
 * netemu's own compute, whose node carries the same id, so the telnet console is relayed directly
 * rather than through a second websocket to the compute as GNS3 does (ADR 0095).
 */
@injectable()
export class OpenControllerNodeConsole {
  constructor(
    private readonly lookup: ControllerLookup,
    @inject(TOKENS.ComputeNodeRepository) private readonly computeNodes: ComputeNodeRepository,
  ) {}

  async execute(input: { readonly projectId: string; readonly nodeId: string }): Promise<E.Either<OpenControllerNodeConsoleError, NodeConsole>> {
    const node = await this.lookup.node(input.projectId, input.nodeId);
    if (E.isLeft(node)) return node;
    const onCompute = await this.computeNodes.get(node.right.nodeId);
    // A node the compute does not run (a project being opened) has no console to reach yet.
    if (onCompute === undefined) return E.left({ _tag: "NodeNotStarted", nodeName: node.right.name, nodeType: node.right.nodeType });
    return consoleOf(onCompute);
  }
}
