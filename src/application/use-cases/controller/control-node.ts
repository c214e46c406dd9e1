import { injectable } from "tsyringe";
import * as E from "fp-ts/lib/Either.js";
import type { NodeStatus } from "../../../domain/switching/compute-node.js";
import { CONTROLLER_NODE_LOOKUP_REFUSALS, type Refusal } from "../../errors.js";
import { CHANGE_NODE_STATUS_REFUSALS, ChangeNodeStatus } from "../compute/change-node-status.js";
import { ControllerLookup } from "./controller-lookup.js";
import { type ControllerNodeView, NodeViews } from "./node-views.js";

/** What ControlNode can answer instead of its result. */
export const CONTROL_NODE_REFUSALS = [...CONTROLLER_NODE_LOOKUP_REFUSALS, ...CHANGE_NODE_STATUS_REFUSALS] as const;
export type ControlNodeError = Refusal<typeof CONTROL_NODE_REFUSALS>;

export type NodeAction = "start" | "stop" | "suspend" | "reload";

/** The status each action leads to; reload is a stop then a start (a switch forgets its MAC table). */
const STEPS: Readonly<Record<NodeAction, readonly NodeStatus[]>> = {
  start: ["started"],
  stop: ["stopped"],
  suspend: ["suspended"],
  reload: ["stopped", "started"],
};

/** The GUI's Start, Stop, Suspend and Reload on one switch or hub. */
@injectable()
export class ControlNode {
  constructor(
    private readonly lookup: ControllerLookup,
    private readonly changeStatus: ChangeNodeStatus,
    private readonly views: NodeViews,
  ) {}

  async execute(input: { readonly projectId: string; readonly nodeId: string; readonly action: NodeAction }): Promise<E.Either<ControlNodeError, ControllerNodeView>> {
    const node = await this.lookup.node(input.projectId, input.nodeId);
    if (E.isLeft(node)) return node;
    for (const status of STEPS[input.action]) {
      const changed = await this.changeStatus.execute({ projectId: input.projectId, nodeId: input.nodeId, status });
      if (E.isLeft(changed)) return changed;
    }
    return E.right(await this.views.of(node.right));
  }
}
