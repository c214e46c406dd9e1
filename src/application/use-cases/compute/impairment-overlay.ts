import { inject, injectable } from "tsyringe";
import type { ComputeNode } from "../../../domain/switching/compute-node.js";
import { type Impairment, impairedNode } from "../../../domain/switching/impairment-overlay.js";
import type { ImpairmentStore } from "../../ports/impairment-store.js";
import { TOKENS } from "../../ports/tokens.js";

/**
 * What the data plane runs for a node: its record with the impairments of its ports laid over. Every
 * sync of a node goes through here (NioAttachment, NodeChanges), so a NIO GNS3 re-creates gets the
 * port's impairment back whatever door re-created it (ADR 0067).
 */
@injectable()
export class ImpairmentOverlay {
  constructor(@inject(TOKENS.ImpairmentStore) private readonly store: ImpairmentStore) {}

  /**
   * Forgets the impairments of a node or project GNS3 deleted (its ids never come back); a close keeps
   * them, since GNS3 re-creates the same ids when it opens the project.
   */
  async forget(deleted: { readonly projectId: string } | { readonly nodeId: string }): Promise<void> {
    for (const i of await this.store.list()) {
      if ("nodeId" in deleted ? i.nodeId === deleted.nodeId : i.projectId === deleted.projectId) await this.store.remove(i);
    }
  }

  async of<N extends ComputeNode>(node: N, impairments?: readonly Impairment[]): Promise<N> {
    return impairedNode(node, impairments ?? (await this.store.list()));
  }
}
