import { inject, injectable } from "tsyringe";
import * as E from "fp-ts/lib/Either.js";
import type { Link, LinkEnd } from "../../../domain/topology/link.js";
import type { Label } from "../../../domain/topology/label.js";
import { type BpfCheck, type RawFilterSettings, parseFilterSettings } from "../../../domain/filters/filter-settings.js";
import type { LinkRepository } from "../../ports/repositories.js";
import { TOKENS } from "../../ports/tokens.js";
import type { ControllerLinkLookupError, ErrorOf } from "../../errors.js";
import { KeyedLock } from "../../keyed-lock.js";
import { ControllerLookup } from "./controller-lookup.js";
import { LinkWiring } from "./link-wiring.js";
import type { WiringError } from "./link-wiring.js";

/** What UpdateLink can answer instead of its result. */
export type UpdateLinkError = ControllerLinkLookupError | ErrorOf<"InvalidFilterSettings" | "NodeNotFound"> | WiringError;

export interface UpdateLinkInput {
  readonly filters?: RawFilterSettings | undefined;
  readonly suspend?: boolean | undefined;
  readonly linkStyle?: Readonly<Record<string, unknown>> | undefined;
  /** Ends to relabel, or whose one-way filters (netemu's, ADR 0051) to replace. */
  readonly nodes?: readonly { readonly nodeId: string; readonly label?: Label | undefined; readonly filters?: RawFilterSettings | undefined }[] | undefined;
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
    @inject(TOKENS.BpfCompiler) private readonly bpfCheck: BpfCheck,
  ) {}

  execute({ projectId, linkId, ...input }: UpdateLinkInput & { readonly projectId: string; readonly linkId: string }): Promise<E.Either<UpdateLinkError, Link>> {
    return this.lock.run(`project:${projectId}`, async () => {
      const found = await this.lookup.link(projectId, linkId);
      if (E.isLeft(found)) return found;
      const current = found.right;
      let filters = current.filters;
      if (input.filters !== undefined) {
        const parsed = parseFilterSettings(input.filters, this.bpfCheck);
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
          const parsed = parseFilterSettings(update.filters, this.bpfCheck);
          if (E.isLeft(parsed)) return parsed;
          const { filters: _old, ...rest } = changed;
          changed = Object.keys(parsed.right).length > 0 ? { ...rest, filters: parsed.right } : rest;
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
      const oneWay = (l: Link) => JSON.stringify(l.nodes.map((n) => n.filters ?? {}));
      const dataPlaneChanged =
        JSON.stringify(updated.filters) !== JSON.stringify(current.filters) || updated.suspend !== current.suspend || oneWay(updated) !== oneWay(current);
      if (dataPlaneChanged) {
        const pushed = await this.wiring.push(updated);
        if (E.isLeft(pushed)) {
          await this.wiring.push(current);
          return pushed;
        }
      }
      await this.links.save(updated);
      return E.right(updated);
    });
  }
}
