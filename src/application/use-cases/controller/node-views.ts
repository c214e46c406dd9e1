import { inject, injectable } from "tsyringe";
import type { NodeStatus } from "../../../domain/switching/compute-node.js";
import type { ControllerNode } from "../../../domain/topology/node.js";
import type { ComputeNodeRepository } from "../../ports/repositories.js";
import type { DataPlane, PortCounters } from "../../ports/data-plane.js";
import { TOKENS } from "../../ports/tokens.js";

/** A controller node as clients see it: its record and the live status of its switch or hub. */
export interface ControllerNodeView {
  readonly node: ControllerNode;
  readonly status: NodeStatus;
}

/** A node as GET answers it: its view and the live counters of each of its ports with a NIO. */
export interface ControllerNodeDetail extends ControllerNodeView {
  readonly counters: ReadonlyMap<number, PortCounters>;
}

/** Reads each node's status from the compute, where start, stop and suspend change it. */
@injectable()
export class NodeViews {
  constructor(
    @inject(TOKENS.ComputeNodeRepository) private readonly computeNodes: ComputeNodeRepository,
    @inject(TOKENS.DataPlane) private readonly dataPlane: DataPlane,
  ) {}

  /** The compute node carries the controller node's id, and its port numbers are the node's (adapter 0). */
  async detailed(node: ControllerNode): Promise<ControllerNodeDetail> {
    const [view, counters] = await Promise.all([this.of(node), this.dataPlane.counters(node.nodeId)]);
    return { ...view, counters };
  }

  async of(node: ControllerNode): Promise<ControllerNodeView> {
    // A node whose compute node is gone (its project is closing) is not running.
    return { node, status: (await this.computeNodes.get(node.nodeId))?.status ?? "stopped" };
  }

  async all(nodes: readonly ControllerNode[]): Promise<ControllerNodeView[]> {
    if (nodes.length <= 16) return Promise.all(nodes.map((n) => this.of(n)));
    // One read of the compute's nodes rather than a lookup (and a promise) per node: 100,000 of
    // those held the event loop for most of a second.
    const statuses = new Map((await this.computeNodes.list()).map((c) => [c.nodeId, c.status]));
    return nodes.map((node) => ({ node, status: statuses.get(node.nodeId) ?? "stopped" }));
  }
}
