import { inject, injectable } from "tsyringe";
import * as E from "fp-ts/lib/Either.js";
import type { Link } from "../../../domain/topology/link.js";
import type { LinkRepository } from "../../ports/repositories.js";
import { TOKENS } from "../../ports/tokens.js";
import { CONTROLLER_PROJECT_LOOKUP_REFUSALS, type Refusal } from "../../errors.js";
import { ControllerLookup } from "./controller-lookup.js";

/** What ListLinks can answer instead of its result. */
export const LIST_LINKS_REFUSALS = CONTROLLER_PROJECT_LOOKUP_REFUSALS;
export type ListLinksError = Refusal<typeof LIST_LINKS_REFUSALS>;

@injectable()
export class ListLinks {
  constructor(
    private readonly lookup: ControllerLookup,
    @inject(TOKENS.LinkRepository) private readonly links: LinkRepository,
  ) {}

  async execute({ projectId }: { readonly projectId: string }): Promise<E.Either<ListLinksError, readonly Link[]>> {
    const project = await this.lookup.openedProject(projectId);
    if (E.isLeft(project)) return project;
    return E.right(await this.links.listByProject(projectId));
  }
}
