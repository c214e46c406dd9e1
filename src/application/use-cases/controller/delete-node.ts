import { inject, injectable } from "tsyringe";
import * as E from "fp-ts/lib/Either.js";
import type { LinkRepository, NodeRepository } from "../../ports/repositories.js";
import { TOKENS } from "../../ports/tokens.js";
import type { ProjectEvents } from "../../ports/project-events.js";
import { CONTROLLER_NODE_LOOKUP_REFUSALS, type Refusal } from "../../errors.js";
import { KeyedLock } from "../../keyed-lock.js";
import { DeleteComputeNode } from "../compute/delete-compute-node.js";
import { ControllerLookup } from "./controller-lookup.js";
import { LinkWiring } from "./link-wiring.js";
import { NodeViews } from "./node-views.js";

/** What DeleteNode can answer instead of its result. */
export const DELETE_NODE_REFUSALS = CONTROLLER_NODE_LOOKUP_REFUSALS;
export type DeleteNodeError = Refusal<typeof DELETE_NODE_REFUSALS>;

/** Deletes the node's links first (as GNS3 does), then the switch or hub on the compute. */
@injectable()
export class DeleteNode {
  constructor(
    private readonly lookup: ControllerLookup,
    private readonly wiring: LinkWiring,
    private readonly deleteComputeNode: DeleteComputeNode,
    private readonly views: NodeViews,
    @inject(TOKENS.NodeRepository) private readonly nodes: NodeRepository,
    @inject(TOKENS.LinkRepository) private readonly links: LinkRepository,
    @inject(TOKENS.KeyedLock) private readonly lock: KeyedLock,
    @inject(TOKENS.ProjectEvents) private readonly events: ProjectEvents,
  ) {}

  execute({ projectId, nodeId }: { readonly projectId: string; readonly nodeId: string }): Promise<E.Either<DeleteNodeError, void>> {
    return this.lock.run(`project:${projectId}`, async () => {
      const node = await this.lookup.node(projectId, nodeId);
      if (E.isLeft(node)) return node;
      for (const link of await this.links.listByProject(projectId)) {
        if (link.nodes.some((n) => n.nodeId === nodeId)) {
          await this.wiring.unwire(link);
          await this.links.delete(projectId, link.linkId);
          this.events.publish({ kind: "link.deleted", projectId, link });
        }
      }
      const gone = await this.views.of(node.right);
      await this.deleteComputeNode.execute({ projectId, nodeId });
      await this.nodes.delete(projectId, nodeId);
      this.events.publish({ kind: "node.deleted", projectId, node: { ...gone, status: "stopped" } });
      return E.right(undefined);
    });
  }
}
