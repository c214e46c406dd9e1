import { inject, injectable } from "tsyringe";
import * as E from "fp-ts/lib/Either.js";
import type { Link, LinkEnd, LinkStyle } from "../../../domain/topology/link.js";
import type { Label } from "../../../domain/topology/label.js";
import { type FilterSettings, type InvalidFilterSettings, type LinkFilters, NO_FILTERS, filterSettingsEqual, hasFilters, parseFilterSettings } from "../../../domain/filters/filter-settings.js";
import type { LinkRepository } from "../../ports/repositories.js";
import { TOKENS } from "../../ports/tokens.js";
import type { ProjectEvents } from "../../ports/project-events.js";
import { CONTROLLER_LINK_LOOKUP_REFUSALS, type Refusal } from "../../errors.js";
import { KeyedLock } from "../../keyed-lock.js";
import { FilterPrograms } from "../../filter-programs.js";
import { parseArmedSchedule } from "../../schedules/parse-armed-schedule.js";
import { scheduleEqual } from "../../../domain/filters/schedule.js";
import type { Clock } from "../../ports/system.js";
import { ControllerLookup } from "./controller-lookup.js";
import { LinkWiring, WIRING_REFUSALS } from "./link-wiring.js";

/** What UpdateLink can answer instead of its result. */
export const UPDATE_LINK_REFUSALS = [...CONTROLLER_LINK_LOOKUP_REFUSALS, "InvalidFilterSettings", "NodeNotFound", ...WIRING_REFUSALS] as const;
export type UpdateLinkError = Refusal<typeof UPDATE_LINK_REFUSALS>;

export interface UpdateLinkInput {
  readonly filters?: LinkFilters | undefined;
  readonly suspend?: boolean | undefined;
  readonly linkStyle?: LinkStyle | undefined;
  /** Ends to relabel, or whose one-way filters (netemu's, ADR 0051) to replace. */
  readonly nodes?: readonly { readonly nodeId: string; readonly label?: Label | undefined; readonly filters?: LinkFilters | undefined; readonly schedule?: unknown }[] | undefined;
}

/**
 * PUT on a link: a partial update of filters (replaced, not merged), suspend, link_style and the
 * ends' labels. Everything is checked before anything changes; a change of filters or suspend is
 * pushed to the live NIOs at once.
 */
@injectable()
export class UpdateLink {
  constructor(
    private readonly lookup: ControllerLookup,
    private readonly wiring: LinkWiring,
    @inject(TOKENS.LinkRepository) private readonly links: LinkRepository,
    @inject(TOKENS.KeyedLock) private readonly lock: KeyedLock,
    @inject(TOKENS.ProjectEvents) private readonly events: ProjectEvents,
    @inject(TOKENS.BpfPrograms) private readonly programs: FilterPrograms,
    @inject(TOKENS.Clock) private readonly clock: Clock,
  ) {}

  /** A filters object given on the link or one of its ends, parsed and its expressions compiled (once per text). */
  private async filters(raw: LinkFilters, field: string): Promise<E.Either<InvalidFilterSettings, FilterSettings>> {
    const parsed = parseFilterSettings(raw, field);
    if (E.isLeft(parsed)) return parsed;
    const compiled = await this.programs.check(parsed.right, field);
    return E.isLeft(compiled) ? compiled : parsed;
  }

  execute({ projectId, linkId, ...input }: UpdateLinkInput & { readonly projectId: string; readonly linkId: string }): Promise<E.Either<UpdateLinkError, Link>> {
    return this.lock.run(`project:${projectId}`, async () => {
      const found = await this.lookup.link(projectId, linkId);
      if (E.isLeft(found)) return found;
      const current = found.right;
      let filters = current.filters;
      if (input.filters !== undefined) {
        const parsed = await this.filters(input.filters, "filters");
        if (E.isLeft(parsed)) return parsed;
        filters = parsed.right;
      }
      let nodes = current.nodes;
      for (const update of input.nodes ?? []) {
        const index = nodes.findIndex((n) => n.nodeId === update.nodeId);
        if (index < 0) return E.left({ _tag: "NodeNotFound", nodeId: update.nodeId });
        let changed: LinkEnd = nodes[index] as LinkEnd;
        if (update.label !== undefined) changed = { ...changed, label: update.label };
        if (update.filters !== undefined) {
          const parsed = await this.filters(update.filters, `nodes[${index}].filters`);
          if (E.isLeft(parsed)) return parsed;
          // Fixed filters end the end's schedule (ADR 0102).
          const { filters: _old, schedule: _schedule, ...rest } = changed;
          changed = hasFilters(parsed.right) ? { ...rest, filters: parsed.right } : rest;
        }
        if (update.schedule !== undefined) {
          const armed = await parseArmedSchedule(update.schedule, `nodes[${index}].schedule`, { given: update.filters !== undefined, field: `nodes[${index}].filters` }, this.programs, this.clock.nowMs());
          if (E.isLeft(armed)) return armed;
          const { filters: _old, ...rest } = changed;
          // The schedule the end runs, sent back unchanged (a client PUTting the whole link it read), runs on from when it was set.
          const kept = changed.schedule !== undefined && scheduleEqual(changed.schedule.schedule, armed.right.schedule) ? changed.schedule : armed.right;
          changed = { ...rest, schedule: kept };
        }
        const replaced = nodes.map((n, i): LinkEnd => (i === index ? changed : n));
        nodes = [replaced[0] as LinkEnd, replaced[1] as LinkEnd];
      }
      const updated: Link = {
        ...current,
        filters,
        nodes,
        suspend: input.suspend ?? current.suspend,
        linkStyle: input.linkStyle ?? current.linkStyle,
      };
      const oneWay = (l: Link, i: 0 | 1): FilterSettings => l.nodes[i].filters ?? NO_FILTERS;
      const dataPlaneChanged =
        !filterSettingsEqual(updated.filters, current.filters) ||
        updated.suspend !== current.suspend ||
        !filterSettingsEqual(oneWay(updated, 0), oneWay(current, 0)) ||
        !filterSettingsEqual(oneWay(updated, 1), oneWay(current, 1)) ||
        updated.nodes[0].schedule !== current.nodes[0].schedule ||
        updated.nodes[1].schedule !== current.nodes[1].schedule;
      if (dataPlaneChanged) {
        const pushed = await this.wiring.push(updated);
        if (E.isLeft(pushed)) {
          await this.wiring.push(current);
          return pushed;
        }
      }
      await this.links.save(updated);
      this.events.publish({ kind: "link.updated", projectId, link: updated });
      return E.right(updated);
    });
  }
}
