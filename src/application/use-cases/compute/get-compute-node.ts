import { inject, injectable } from "tsyringe";
import * as E from "fp-ts/lib/Either.js";
import type { ComputeNode, ComputeNodeType } from "../../../domain/switching/compute-node.js";
import type { DataPlane, PortCounters } from "../../ports/data-plane.js";
import { TOKENS } from "../../ports/tokens.js";
import { COMPUTE_NODE_LOOKUP_REFUSALS, type Refusal } from "../../errors.js";
import { ComputeLookup } from "./compute-lookup.js";

/** What GetComputeNode can answer instead of its result. */
export const GET_COMPUTE_NODE_REFUSALS = COMPUTE_NODE_LOOKUP_REFUSALS;
export type GetComputeNodeError = Refusal<typeof GET_COMPUTE_NODE_REFUSALS>;

export interface ComputeNodeView {
  readonly node: ComputeNode;
  /** The live counters of each port with a NIO. */
  readonly counters: ReadonlyMap<number, PortCounters>;
}

/** GET on a switch or hub: its record and its ports' counters. */
@injectable()
export class GetComputeNode {
  constructor(
    private readonly lookup: ComputeLookup,
    @inject(TOKENS.DataPlane) private readonly dataPlane: DataPlane,
  ) {}

  async execute(input: { readonly projectId: string; readonly nodeId: string; readonly nodeType?: ComputeNodeType }): Promise<E.Either<GetComputeNodeError, ComputeNodeView>> {
    const node = await this.lookup.nodeOf(input.projectId, input.nodeId, input.nodeType);
    if (E.isLeft(node)) return node;
    return E.right({ node: node.right, counters: await this.dataPlane.counters(input.nodeId) });
  }
}
