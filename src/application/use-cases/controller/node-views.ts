import { inject, injectable } from "tsyringe";
import type { ComputeNode, NodeStatus } from "../../../domain/switching/compute-node.js";
import type { ControllerNode } from "../../../domain/topology/node.js";
import { HOST_INSIDE_OFFSET } from "../../../domain/switching/node-kind.js";
import type { ComputeNodeRepository } from "../../ports/repositories.js";
import type { DataPlane, PortCounters } from "../../ports/data-plane.js";
import { TOKENS } from "../../ports/tokens.js";

/** A controller node as clients see it: its record and the live status of its switch or hub. */
export interface ControllerNodeView {
  readonly node: ControllerNode;
  readonly status: NodeStatus;
  /** A host's console port (a switch's and hub's are not opened: null). */
  readonly console: number | null;
  /** A host's command line and working directory, as GNS3 answers them (null for a switch or hub). */
  readonly commandLine: string | null;
  readonly directory: string | null;
}

/** A node's view from its compute node (none while its project closes: not running). */
export function viewOf(node: ControllerNode, computeNode: ComputeNode | undefined): ControllerNodeView {
  const host = computeNode !== undefined && computeNode.nodeType === "vpcs" ? computeNode : undefined;
  return {
    node,
    status: computeNode?.status ?? "stopped",
    console: host?.console ?? (node.nodeType === "vpcs" ? (node.console ?? null) : null),
    commandLine: host?.commandLine ?? (node.nodeType === "vpcs" ? "" : null),
    directory: host?.directory ?? (computeNode?.nodeType === "cloud" || computeNode?.nodeType === "netemu_host" ? computeNode.directory : null),
  };
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
    // A host's inside ports are netemu's own plumbing (ADR 0081): only its link ports are the node's.
    return { ...view, counters: new Map([...counters].filter(([port]) => port < HOST_INSIDE_OFFSET)) };
  }

  async of(node: ControllerNode): Promise<ControllerNodeView> {
    return viewOf(node, await this.computeNodes.get(node.nodeId));
  }

  async all(nodes: readonly ControllerNode[]): Promise<ControllerNodeView[]> {
    if (nodes.length <= 16) return Promise.all(nodes.map((n) => this.of(n)));
    // One read of the compute's nodes rather than a lookup (and a promise) per node: 100,000 of
    // those held the event loop for most of a second.
    const computeNodes = new Map((await this.computeNodes.list()).map((c) => [c.nodeId, c]));
    return nodes.map((node) => viewOf(node, computeNodes.get(node.nodeId)));
  }
}
