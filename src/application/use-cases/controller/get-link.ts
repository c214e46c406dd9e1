import { inject, injectable } from "tsyringe";
import * as E from "fp-ts/lib/Either.js";
import type { Link, LinkEnd } from "../../../domain/topology/link.js";
import type { DataPlane, PortCounters } from "../../ports/data-plane.js";
import { TOKENS } from "../../ports/tokens.js";
import { CONTROLLER_LINK_LOOKUP_REFUSALS, type Refusal } from "../../errors.js";
import { ControllerLookup } from "./controller-lookup.js";

/** What GetLink can answer instead of its result. */
export const GET_LINK_REFUSALS = CONTROLLER_LINK_LOOKUP_REFUSALS;
export type GetLinkError = Refusal<typeof GET_LINK_REFUSALS>;

/** A link as GET answers it: the record, and the counters of the switch or hub port at each end. */
export interface LinkView {
  readonly link: Link;
  /** In the order of `link.nodes`; undefined for an end whose port has no live NIO (its node is gone or its project closing). */
  readonly counters: readonly [PortCounters | undefined, PortCounters | undefined];
}

@injectable()
export class GetLink {
  constructor(
    private readonly lookup: ControllerLookup,
    @inject(TOKENS.DataPlane) private readonly dataPlane: DataPlane,
  ) {}

  async execute({ projectId, linkId }: { readonly projectId: string; readonly linkId: string }): Promise<E.Either<GetLinkError, LinkView>> {
    const link = await this.lookup.link(projectId, linkId);
    if (E.isLeft(link)) return link;
    const [a, b] = link.right.nodes;
    return E.right({ link: link.right, counters: await Promise.all([this.countersOf(a), this.countersOf(b)]) });
  }

  /** Each end is a port of a netemu switch or hub, whose live node has the controller node's id. */
  private async countersOf(end: LinkEnd): Promise<PortCounters | undefined> {
    return (await this.dataPlane.counters(end.nodeId)).get(end.portNumber);
  }
}
