import { inject, injectable } from "tsyringe";
import * as E from "fp-ts/lib/Either.js";
import { type ComputeNodeType, type NodeStatus, withStatus } from "../../../domain/switching/compute-node.js";
import { TOKENS } from "../../ports/tokens.js";
import { COMPUTE_NODE_LOOKUP_REFUSALS, type Refusal, SYNC_REFUSALS } from "../../errors.js";
import { KeyedLock } from "../../keyed-lock.js";
import { ComputeLookup } from "./compute-lookup.js";
import { NodeChanges } from "./node-changes.js";

/** What ChangeNodeStatus can answer instead of its result. */
export const CHANGE_NODE_STATUS_REFUSALS = [...COMPUTE_NODE_LOOKUP_REFUSALS, ...SYNC_REFUSALS] as const;
export type ChangeNodeStatusError = Refusal<typeof CHANGE_NODE_STATUS_REFUSALS>;

/**
 * start, stop and suspend a switch or hub: only a started node forwards frames (ADR 0032). The
 * controller learns the new status from the node.updated notification, as it does for VPCS.
 */
@injectable()
export class ChangeNodeStatus {
  constructor(
    private readonly lookup: ComputeLookup,
    private readonly changes: NodeChanges,
    @inject(TOKENS.KeyedLock) private readonly lock: KeyedLock,
  ) {}

  execute({ projectId, nodeId, status, nodeType }: { readonly projectId: string; readonly nodeId: string; readonly status: NodeStatus; readonly nodeType?: ComputeNodeType | undefined }): Promise<E.Either<ChangeNodeStatusError, void>> {
    return this.lock.run(nodeId, async () => {
      const found = await this.lookup.nodeOf(projectId, nodeId, nodeType);
      if (E.isLeft(found)) return found;
      if (found.right.status === status) return E.right(undefined);
      return this.changes.apply(found.right, withStatus(found.right, status));
    });
  }
}
