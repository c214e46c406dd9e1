import { inject, injectable } from "tsyringe";
import type { Notifications } from "../../ports/notifications.js";
import type { ProjectEvents } from "../../ports/project-events.js";
import type { NodeRepository } from "../../ports/repositories.js";
import { TOKENS } from "../../ports/tokens.js";
import { viewOf } from "./node-views.js";

/**
 * A node's live changes on the local compute (started, stopped, a VPCS that died, a worker that took
 * it back) as the controller's node.updated, as GNS3's controller turns its computes' node.updated
 * into its own: whatever changed the node (a client, the host, the data plane), the project's clients
 * hear it once, with the node's whole controller answer.
 */
@injectable()
export class NodeStatusRelay {
  private stop: (() => void) | undefined;

  constructor(
    @inject(TOKENS.Notifications) private readonly compute: Notifications,
    @inject(TOKENS.ProjectEvents) private readonly events: ProjectEvents,
    @inject(TOKENS.NodeRepository) private readonly nodes: NodeRepository,
  ) {}

  /** Starts relaying (once; a second call does nothing). */
  start(): void {
    if (this.stop !== undefined) return;
    this.stop = this.compute.subscribe((n) => {
      if (n.kind !== "node.updated" && n.kind !== "node.restored") return;
      const computeNode = n.node;
      // A node the controller does not hold (placed by a GNS3 controller on this compute) is not the controller's to tell.
      void this.nodes.get(computeNode.projectId, computeNode.nodeId).then(
        (node) => {
          if (node !== undefined) this.events.publish({ kind: "node.updated", projectId: node.projectId, node: viewOf(node, computeNode) });
        },
        () => undefined,
      );
    });
  }

  close(): void {
    this.stop?.();
    this.stop = undefined;
  }
}
