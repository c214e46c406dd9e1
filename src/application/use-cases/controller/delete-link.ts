import { inject, injectable } from "tsyringe";
import * as E from "fp-ts/lib/Either.js";
import type { LinkRepository } from "../../ports/repositories.js";
import { TOKENS } from "../../ports/tokens.js";
import type { ProjectEvents } from "../../ports/project-events.js";
import { CONTROLLER_LINK_LOOKUP_REFUSALS, type Refusal } from "../../errors.js";
import { KeyedLock } from "../../keyed-lock.js";
import { ControllerLookup } from "./controller-lookup.js";
import { LinkWiring } from "./link-wiring.js";

/** What DeleteLink can answer instead of its result. */
export const DELETE_LINK_REFUSALS = CONTROLLER_LINK_LOOKUP_REFUSALS;
export type DeleteLinkError = Refusal<typeof DELETE_LINK_REFUSALS>;

/** Removes both NIOs (closing their sockets and freeing their UDP ports), then the link. */
@injectable()
export class DeleteLink {
  constructor(
    private readonly lookup: ControllerLookup,
    private readonly wiring: LinkWiring,
    @inject(TOKENS.LinkRepository) private readonly links: LinkRepository,
    @inject(TOKENS.KeyedLock) private readonly lock: KeyedLock,
    @inject(TOKENS.ProjectEvents) private readonly events: ProjectEvents,
  ) {}

  execute({ projectId, linkId }: { readonly projectId: string; readonly linkId: string }): Promise<E.Either<DeleteLinkError, void>> {
    return this.lock.run(`project:${projectId}`, async () => {
      const link = await this.lookup.link(projectId, linkId);
      if (E.isLeft(link)) return link;
      await this.wiring.unwire(link.right);
      await this.links.delete(projectId, linkId);
      this.events.publish({ kind: "link.deleted", projectId, link: link.right });
      return E.right(undefined);
    });
  }
}
