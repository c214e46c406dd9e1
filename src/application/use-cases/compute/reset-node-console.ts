import { inject, injectable } from "tsyringe";
import * as E from "fp-ts/lib/Either.js";
import type { ComputeNode, ComputeNodeType } from "../../../domain/switching/compute-node.js";
import { COMPUTE_NODE_LOOKUP_REFUSALS, type ErrorOf, type Refusal } from "../../errors.js";
import type { ConsoleClients } from "../../ports/console-clients.js";
import { TOKENS } from "../../ports/tokens.js";
import { ComputeLookup } from "./compute-lookup.js";

/** What resetting a node's console can answer instead of 204 (ADR 0099). */
export const RESET_NODE_CONSOLE_REFUSALS = [...COMPUTE_NODE_LOOKUP_REFUSALS, "ConsoleClientsNotDropped"] as const;
type ResetNodeConsoleError = Refusal<typeof RESET_NODE_CONSOLE_REFUSALS>;

/**
 * Drops whoever is connected to a running node's telnet console, so that a stuck session can be opened
 * again. As GNS3 2.2.59 (`VPCSVM.reset_console`): a stopped node, or one whose console is not telnet,
 * has none to reset, and the answer is the same.
 */
export async function resetConsoleOf(node: ComputeNode | undefined, clients: ConsoleClients): Promise<E.Either<ErrorOf<"ConsoleClientsNotDropped">, number>> {
  // A node the compute does not run (yet: its project being opened) has no console client to drop.
  if (node === undefined || !("consoleType" in node) || node.status !== "started" || node.consoleType !== "telnet" || node.console === null) return E.right(0);
  const dropped = await clients.dropAll(node.console);
  return E.isLeft(dropped) ? E.left({ _tag: "ConsoleClientsNotDropped", nodeName: node.name, reason: dropped.left }) : dropped;
}

/** `POST /v2/compute/projects/{p}/{node_type}/nodes/{n}/console/reset` (and /v3's): answers how many clients were dropped. */
@injectable()
export class ResetNodeConsole {
  constructor(
    private readonly lookup: ComputeLookup,
    @inject(TOKENS.ConsoleClients) private readonly clients: ConsoleClients,
  ) {}

  async execute(input: { readonly projectId: string; readonly nodeId: string; readonly nodeType: ComputeNodeType }): Promise<E.Either<ResetNodeConsoleError, number>> {
    const node = await this.lookup.nodeOf(input.projectId, input.nodeId, input.nodeType);
    return E.isLeft(node) ? node : resetConsoleOf(node.right, this.clients);
  }
}
