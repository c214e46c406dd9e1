import { inject, injectable } from "tsyringe";
import * as E from "fp-ts/lib/Either.js";
import type { Impairment } from "../../../domain/switching/impairment-overlay.js";
import type { ComputeNodeRepository } from "../../ports/repositories.js";
import type { DataPlane } from "../../ports/data-plane.js";
import type { ImpairmentStore } from "../../ports/impairment-store.js";
import type { Logger } from "../../ports/system.js";
import { TOKENS } from "../../ports/tokens.js";
import type { Refusal, SyncError } from "../../errors.js";
import { KeyedLock } from "../../keyed-lock.js";
import { ImpairmentOverlay } from "./impairment-overlay.js";
import { type ImpairmentSelection, selects } from "./impairment-list.js";

/**
 * What ClearImpairments can answer instead of what it removed: nothing was changed. Not PortNotFound,
 * which the data plane gives for a NIO on a port not in the node's ports_mapping: a clear changes only the
 * filters of NIOs the node's record holds, and a record never holds a NIO off its mapping (a node with NIOs
 * cannot be remapped), so the data plane saying so here is a defect, not a refusal.
 */
export const CLEAR_IMPAIRMENTS_REFUSALS = ["ImpairmentsUnwritable", "UdpConnectionFailed", "NioDeviceFailed", "InvalidFilterSettings", "InvalidConfiguration"] as const;
type ClearImpairmentsError = Refusal<typeof CLEAR_IMPAIRMENTS_REFUSALS>;

/** The data plane's refusal of a clear's sync, which cannot be about a port (see CLEAR_IMPAIRMENTS_REFUSALS). */
function refusedClear(error: SyncError): ClearImpairmentsError {
  if (error._tag === "PortNotFound") throw new Error(`the data plane found no port ${error.portNumber} on ${error.nodeName} while clearing its impairments: a NIO off its node's ports_mapping`);
  return error;
}

/**
 * Removes the impairments the selection names (all of them when it names nothing): the ports of a
 * node that runs go back to their NIOs' own filters at once. Clearing what is not there is no error
 * (the answer lists what was removed), so a script can clear before it sets.
 */
@injectable()
export class ClearImpairments {
  constructor(
    private readonly overlay: ImpairmentOverlay,
    @inject(TOKENS.ImpairmentStore) private readonly store: ImpairmentStore,
    @inject(TOKENS.ComputeNodeRepository) private readonly nodes: ComputeNodeRepository,
    @inject(TOKENS.DataPlane) private readonly dataPlane: DataPlane,
    @inject(TOKENS.KeyedLock) private readonly lock: KeyedLock,
    @inject(TOKENS.Logger) private readonly logger: Logger,
  ) {}

  async execute(selection: ImpairmentSelection = {}): Promise<E.Either<ClearImpairmentsError, readonly Impairment[]>> {
    const chosen = (await this.store.list()).filter((i) => selects(selection, i));
    const removed: Impairment[] = [];
    for (const nodeId of new Set(chosen.map((i) => i.nodeId))) {
      const cleared = await this.lock.run(nodeId, async (): Promise<E.Either<ClearImpairmentsError, readonly Impairment[]>> => {
        const mine = (await this.store.ofNode(nodeId)).filter((i) => selects(selection, i));
        if (mine.length === 0) return E.right([]);
        // Removed from the record first (a store that cannot record it leaves the live port as it was), put back if the data plane refuses.
        const recorded = await this.store.apply(mine.map((target) => ({ _tag: "Remove", target })));
        if (E.isLeft(recorded)) return recorded;
        const node = await this.nodes.get(nodeId);
        if (node !== undefined) {
          const synced = await this.dataPlane.sync(await this.overlay.of(node));
          if (E.isLeft(synced)) {
            await this.overlay.restore(mine.map((impairment) => ({ _tag: "Set", impairment })));
            return E.left(refusedClear(synced.left));
          }
        }
        return E.right(mine);
      });
      if (E.isLeft(cleared)) return cleared;
      removed.push(...cleared.right);
    }
    if (removed.length > 0) this.logger.info("impairments cleared", { count: removed.length, ...selection });
    return E.right(removed);
  }
}
