import { inject, injectable } from "tsyringe";
import type { NodeStatus } from "../../../domain/switching/compute-node.js";
import type { ControllerNode } from "../../../domain/topology/node.js";
import type { ComputeNodeRepository } from "../../ports/repositories.js";
import { TOKENS } from "../../ports/tokens.js";

/** A controller node as clients see it: its record and the live status of its switch or hub. */
export interface ControllerNodeView {
  readonly node: ControllerNode;
  readonly status: NodeStatus;
}

/** Reads each node's status from the compute, where start, stop and suspend change it. */
@injectable()
export class NodeViews {
  constructor(@inject(TOKENS.ComputeNodeRepository) private readonly computeNodes: ComputeNodeRepository) {}

  async of(node: ControllerNode): Promise<ControllerNodeView> {
    // A node whose compute node is gone (its project is closing) is not running.
    return { node, status: (await this.computeNodes.get(node.nodeId))?.status ?? "stopped" };
  }

  all(nodes: readonly ControllerNode[]): Promise<ControllerNodeView[]> {
    return Promise.all(nodes.map((n) => this.of(n)));
  }
}
