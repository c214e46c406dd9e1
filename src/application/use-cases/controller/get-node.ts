import { injectable } from "tsyringe";
import * as E from "fp-ts/lib/Either.js";
import { CONTROLLER_NODE_LOOKUP_REFUSALS, type Refusal } from "../../errors.js";
import { ControllerLookup } from "./controller-lookup.js";
import { type ControllerNodeDetail, NodeViews } from "./node-views.js";

/** What GetNode can answer instead of its result. */
export const GET_NODE_REFUSALS = CONTROLLER_NODE_LOOKUP_REFUSALS;
export type GetNodeError = Refusal<typeof GET_NODE_REFUSALS>;

/** GET on a controller node: its view and its ports' counters. */
@injectable()
export class GetNode {
  constructor(
    private readonly lookup: ControllerLookup,
    private readonly views: NodeViews,
  ) {}

  async execute({ projectId, nodeId }: { readonly projectId: string; readonly nodeId: string }): Promise<E.Either<GetNodeError, ControllerNodeDetail>> {
    const node = await this.lookup.node(projectId, nodeId);
    return E.isLeft(node) ? node : E.right(await this.views.detailed(node.right));
  }
}
