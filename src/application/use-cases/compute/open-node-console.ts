import { injectable } from "tsyringe";
import * as E from "fp-ts/lib/Either.js";
import type { ComputeNode, ComputeNodeType } from "../../../domain/switching/compute-node.js";
import { COMPUTE_NODE_LOOKUP_REFUSALS, type ErrorOf, type Refusal } from "../../errors.js";
import { ComputeLookup } from "./compute-lookup.js";

/** What opening a node's web console can answer instead of its telnet port (GNS3's refusals, ADR 0095). */
export const OPEN_NODE_CONSOLE_REFUSALS = [...COMPUTE_NODE_LOOKUP_REFUSALS, "NodeNotStarted", "ConsoleNotTelnet"] as const;
export type OpenNodeConsoleError = Refusal<typeof OPEN_NODE_CONSOLE_REFUSALS>;

/** Where a node's telnet console listens on this compute. */
export interface NodeConsole {
  readonly nodeName: string;
  readonly port: number;
}

/** Whether a node's console can be relayed now: GNS3's checks, in its order (started, then telnet). */
export function consoleOf(node: ComputeNode): E.Either<ErrorOf<"NodeNotStarted" | "ConsoleNotTelnet">, NodeConsole> {
  // A hub has no console fields at all: its console is none, as a switch's.
  if (!("consoleType" in node)) return E.left({ _tag: "ConsoleNotTelnet", nodeName: node.name, consoleType: "none" });
  if (node.status !== "started") return E.left({ _tag: "NodeNotStarted", nodeName: node.name, nodeType: node.nodeType });
  if (node.consoleType !== "telnet" || node.console === null) return E.left({ _tag: "ConsoleNotTelnet", nodeName: node.name, consoleType: node.consoleType });
  return E.right({ nodeName: node.name, port: node.console });
}

/** The telnet console a web console relays to (`GET .../{node_type}/nodes/{node_id}/console/ws`, ADR 0095). */
@injectable()
export class OpenNodeConsole {
  constructor(private readonly lookup: ComputeLookup) {}

  async execute(input: { readonly projectId: string; readonly nodeId: string; readonly nodeType: ComputeNodeType }): Promise<E.Either<OpenNodeConsoleError, NodeConsole>> {
    const node = await this.lookup.nodeOf(input.projectId, input.nodeId, input.nodeType);
    return E.isLeft(node) ? node : consoleOf(node.right);
  }
}
