import { inject, injectable } from "tsyringe";
import * as E from "fp-ts/lib/Either.js";
import type { Link } from "../../../domain/topology/link.js";
import type { LinkRepository } from "../../ports/repositories.js";
import { TOKENS } from "../../ports/tokens.js";
import { CONTROLLER_NODE_LOOKUP_REFUSALS, type Refusal } from "../../errors.js";
import { ControllerLookup } from "./controller-lookup.js";

/** What ListNodeLinks can answer instead of its result. */
export const LIST_NODE_LINKS_REFUSALS = CONTROLLER_NODE_LOOKUP_REFUSALS;
export type ListNodeLinksError = Refusal<typeof LIST_NODE_LINKS_REFUSALS>;

/** GET /v2/projects/{p}/nodes/{n}/links: the links with an end on the node (gns3fy's `Node.get()` reads them). */
@injectable()
export class ListNodeLinks {
  constructor(
    private readonly lookup: ControllerLookup,
    @inject(TOKENS.LinkRepository) private readonly links: LinkRepository,
  ) {}

  async execute({ projectId, nodeId }: { readonly projectId: string; readonly nodeId: string }): Promise<E.Either<ListNodeLinksError, readonly Link[]>> {
    const node = await this.lookup.node(projectId, nodeId);
    if (E.isLeft(node)) return node;
    const links = await this.links.listByProject(projectId);
    return E.right(links.filter((link) => link.nodes.some((end) => end.nodeId === nodeId)));
  }
}
