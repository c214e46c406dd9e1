import { inject, injectable } from "tsyringe";
import * as E from "fp-ts/lib/Either.js";
import { type ComputeNode, answerChanged } from "../../../domain/switching/compute-node.js";
import type { ComputeNodeRepository } from "../../ports/repositories.js";
import type { DataPlane } from "../../ports/data-plane.js";
import type { Notifications } from "../../ports/notifications.js";
import { TOKENS } from "../../ports/tokens.js";
import type { Logger } from "../../ports/system.js";
import type { SyncError } from "../../errors.js";
import { ImpairmentOverlay } from "./impairment-overlay.js";

/**
 * How a changed switch or hub takes effect, the same for every use case that changes one: the live
 * node is made to match the record, the record is saved, and listeners hear node.updated when its
 * answer changed.
 */
@injectable()
export class NodeChanges {
  constructor(
    @inject(TOKENS.ComputeNodeRepository) private readonly nodes: ComputeNodeRepository,
    @inject(TOKENS.DataPlane) private readonly dataPlane: DataPlane,
    @inject(TOKENS.Notifications) private readonly notifications: Notifications,
    @inject(TOKENS.Logger) private readonly logger: Logger,
    private readonly impairments: ImpairmentOverlay,
  ) {}

  async apply(before: ComputeNode, after: ComputeNode): Promise<E.Either<SyncError, void>> {
    const synced = await this.dataPlane.sync(await this.impairments.of(after));
    if (E.isLeft(synced)) return synced;
    await this.nodes.save(after);
    if (before.status !== after.status) {
      this.logger.info("node status changed", { projectId: after.projectId, nodeId: after.nodeId, name: after.name, from: before.status, to: after.status });
    }
    if (answerChanged(before, after)) this.notifications.publish({ kind: "node.updated", node: after });
    return synced;
  }
}
