import { inject, injectable } from "tsyringe";
import * as E from "fp-ts/lib/Either.js";
import type { ComputeNode } from "../../../domain/switching/compute-node.js";
import { type HostNode, hostFabricRecord } from "../../../domain/switching/host-node.js";
import { isHostKind } from "../../../domain/switching/node-kind.js";
import { impairedNode, nioSchedules } from "../../../domain/switching/impairment-overlay.js";
import type { ImpairmentChange, ImpairmentStore } from "../../ports/impairment-store.js";
import type { ComputeProjectRepository } from "../../ports/repositories.js";
import type { Logger } from "../../ports/system.js";
import { TOKENS } from "../../ports/tokens.js";
import { ScheduleClockwork } from "../../schedules/schedule-clockwork.js";

/**
 * What the data plane runs for a node: its record with the impairments of its ports laid over. Every
 * sync of a node goes through here (NioAttachment, NodeChanges), so a NIO GNS3 re-creates gets the
 * port's impairment back whatever door re-created it (ADR 0067).
 */
@injectable()
export class ImpairmentOverlay {
  constructor(
    @inject(TOKENS.ImpairmentStore) private readonly store: ImpairmentStore,
    @inject(TOKENS.Logger) private readonly logger: Logger,
    // A scheduled direction runs its step of now, and the node is synced again when the next begins (ADR 0102).
    // Optional so that a hand-built overlay (an embedder's, a test's) without schedules keeps working.
    private readonly schedules?: ScheduleClockwork,
    // The project's name, for the metrics of a NIO's schedules (the node record has its id only).
    @inject(TOKENS.ComputeProjectRepository) private readonly projects?: ComputeProjectRepository,
  ) {}

  /**
   * Forgets the impairments of a node or project GNS3 deleted (its ids never come back); a close keeps
   * them, since GNS3 re-creates the same ids when it opens the project. Never fails the delete: an
   * impairment the store cannot forget acts on nothing (ADR 0071).
   */
  async forget(deleted: { readonly projectId: string } | { readonly nodeId: string }): Promise<void> {
    if ("nodeId" in deleted) this.schedules?.forget(deleted.nodeId);
    const gone = "nodeId" in deleted ? await this.store.ofNode(deleted.nodeId) : (await this.store.list()).filter((i) => i.projectId === deleted.projectId);
    if (gone.length === 0) return;
    const forgotten = await this.store.apply(gone.map((target) => ({ _tag: "Remove", target })));
    if (E.isLeft(forgotten)) this.logger.warn("impairments of a deleted node or project could not be forgotten: they are listed, and act on nothing", { ...deleted, impairments: gone.length, code: forgotten.left.code, reason: forgotten.left.detail });
  }

  /** Puts back what a change replaced, when the data plane refused it; a store that cannot is logged (the answer is the data plane's refusal). */
  async restore(changes: readonly ImpairmentChange[]): Promise<void> {
    const restored = await this.store.apply(changes);
    if (E.isLeft(restored)) this.logger.error("impairment change refused by the data plane, and the store could not put the one before back: listed as changed, not acting", { code: restored.left.code, reason: restored.left.detail });
  }

  /** A host's record has its inside ports laid in too (hostFabricRecord): the data plane pairs them with its link ports. */
  async of<N extends ComputeNode>(node: N): Promise<N> {
    const record = isHostKind(node.nodeType) ? (hostFabricRecord(node as HostNode) as N) : node;
    const own = await this.store.ofNode(node.nodeId);
    // A NIO's own schedules (a controller link's end, a compute NIO: ADR 0102) run as impairments of its port, laid first.
    let { node: plain, scheduled } = nioSchedules(record);
    // Asked only of a node with a scheduled NIO: every other sync costs nothing more.
    const projectName = scheduled.length === 0 ? undefined : (await this.projects?.get(node.projectId))?.name;
    if (projectName !== undefined) ({ node: plain, scheduled } = nioSchedules(record, projectName));
    if (this.schedules === undefined) return impairedNode(plain, own);
    return impairedNode(plain, this.schedules.activeNow(node.nodeId, [...scheduled, ...own], new Set(record.nios.keys())));
  }
}
