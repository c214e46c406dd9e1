import { injectable } from "tsyringe";
import * as E from "fp-ts/lib/Either.js";
import type { ComputeNode, ComputeNodeType } from "../../../domain/switching/compute-node.js";
import { COMPUTE_NODE_LOOKUP_REFUSALS, type Refusal } from "../../errors.js";
import { ComputeLookup } from "./compute-lookup.js";

/** What DuplicateComputeNode can answer instead of its result. */
export const DUPLICATE_COMPUTE_NODE_REFUSALS = COMPUTE_NODE_LOOKUP_REFUSALS;
export type DuplicateComputeNodeError = Refusal<typeof DUPLICATE_COMPUTE_NODE_REFUSALS>;

/**
 * GNS3's duplicate copies a node's working directory to the destination node, which the
 * controller created beforehand with the same properties. A switch or hub has no working
 * directory, so both must exist and the destination is answered unchanged.
 */
@injectable()
export class DuplicateComputeNode {
  constructor(private readonly lookup: ComputeLookup) {}

  async execute({ projectId, nodeId, destinationNodeId, nodeType }: { readonly projectId: string; readonly nodeId: string; readonly destinationNodeId: string; readonly nodeType?: ComputeNodeType | undefined }): Promise<E.Either<DuplicateComputeNodeError, ComputeNode>> {
    const source = await this.lookup.nodeOf(projectId, nodeId, nodeType);
    if (E.isLeft(source)) return source;
    return this.lookup.nodeOf(projectId, destinationNodeId, source.right.nodeType);
  }
}
