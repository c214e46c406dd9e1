import { inject, injectable } from "tsyringe";
import * as E from "fp-ts/lib/Either.js";
import type { Link, LinkEnd } from "../../../domain/topology/link.js";
import type { DataPlane, PortCounters } from "../../ports/data-plane.js";
import { TOKENS } from "../../ports/tokens.js";
import { CONTROLLER_LINK_LOOKUP_REFUSALS, type Refusal } from "../../errors.js";
import { ControllerLookup } from "./controller-lookup.js";
import { ScheduleClockwork } from "../../schedules/schedule-clockwork.js";
import type { ScheduleState } from "../../../domain/filters/schedule.js";

/** What GetLink can answer instead of its result. */
export const GET_LINK_REFUSALS = CONTROLLER_LINK_LOOKUP_REFUSALS;
export type GetLinkError = Refusal<typeof GET_LINK_REFUSALS>;

/** A link as GET answers it: the record, the counters of the port at each end, and where each end's schedule is now. */
export interface LinkView {
  readonly link: Link;
  /** In the order of `link.nodes`; undefined for an end whose port has no live NIO (its node is gone or its project closing). */
  readonly counters: readonly [PortCounters | undefined, PortCounters | undefined];
  /** In the order of `link.nodes`: the active step of what each end sends (ADR 0102); undefined for an end without a schedule. */
  readonly schedules: readonly [ScheduleState | undefined, ScheduleState | undefined];
}

@injectable()
export class GetLink {
  constructor(
    private readonly lookup: ControllerLookup,
    @inject(TOKENS.DataPlane) private readonly dataPlane: DataPlane,
    // Where each end's schedule is now (ADR 0102); optional for a hand-built use case, which then answers none.
    private readonly clockwork?: ScheduleClockwork,
  ) {}

  async execute({ projectId, linkId }: { readonly projectId: string; readonly linkId: string }): Promise<E.Either<GetLinkError, LinkView>> {
    const link = await this.lookup.link(projectId, linkId);
    if (E.isLeft(link)) return link;
    const [a, b] = link.right.nodes;
    return E.right({ link: link.right, counters: await Promise.all([this.countersOf(a), this.countersOf(b)]), schedules: [this.scheduleOf(a), this.scheduleOf(b)] });
  }

  /** An end's schedule acts on what its node sends: its NIO's way out, whose state the clockwork keeps by node and port. */
  private scheduleOf(end: LinkEnd): ScheduleState | undefined {
    return end.schedule === undefined ? undefined : this.clockwork?.stateAt(end, "out", end.schedule);
  }

  /** Each end is a port of a netemu switch or hub, whose live node has the controller node's id. */
  private async countersOf(end: LinkEnd): Promise<PortCounters | undefined> {
    return (await this.dataPlane.counters(end.nodeId)).get(end.portNumber);
  }
}
