import { inject, injectable } from "tsyringe";
import * as E from "fp-ts/lib/Either.js";
import type { ComputeNodeRepository } from "../ports/repositories.js";
import type { DataPlane } from "../ports/data-plane.js";
import type { Logger } from "../ports/system.js";
import { TOKENS } from "../ports/tokens.js";
import { KeyedLock } from "../keyed-lock.js";
import { ImpairmentOverlay } from "../use-cases/compute/impairment-overlay.js";
import { ScheduleClockwork } from "./schedule-clockwork.js";

/**
 * When a node's next scheduled step begins, the node is synced again as it is now, under its lock,
 * through the path every change takes (ImpairmentOverlay.of, DataPlane.sync): the data plane sees
 * only that a direction's filters changed, and reconciles by value (ADR 0055, ADR 0102).
 */
@injectable()
export class ScheduleResync {
  constructor(
    clockwork: ScheduleClockwork,
    private readonly overlay: ImpairmentOverlay,
    @inject(TOKENS.ComputeNodeRepository) private readonly nodes: ComputeNodeRepository,
    @inject(TOKENS.DataPlane) private readonly dataPlane: DataPlane,
    @inject(TOKENS.KeyedLock) private readonly lock: KeyedLock,
    @inject(TOKENS.Logger) private readonly logger: Logger,
  ) {
    clockwork.onDue((nodeId) => void this.resync(nodeId, clockwork));
  }

  /** Syncs the node again; a node that is gone forgets its alarms. Answers once the data plane has it. */
  async resync(nodeId: string, clockwork: ScheduleClockwork): Promise<void> {
    await this.lock.run(nodeId, async () => {
      const node = await this.nodes.get(nodeId);
      if (node === undefined) {
        clockwork.forget(nodeId);
        return;
      }
      try {
        const synced = await this.dataPlane.sync(await this.overlay.of(node));
        if (E.isLeft(synced)) this.logger.error("a scheduled step could not be applied: the port keeps the step before", { nodeId, name: node.name, reason: synced.left });
      } catch (error) {
        this.logger.error("a scheduled step could not be applied: the port keeps the step before", { nodeId, name: node.name, reason: String(error) });
      }
    });
  }
}
