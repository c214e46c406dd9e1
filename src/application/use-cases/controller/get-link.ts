import { injectable } from "tsyringe";
import type * as E from "fp-ts/lib/Either.js";
import type { Link } from "../../../domain/topology/link.js";
import type { ControllerLinkLookupError } from "../../errors.js";
import { ControllerLookup } from "./controller-lookup.js";

/** What GetLink can answer instead of its result. */
export type GetLinkError = ControllerLinkLookupError;

@injectable()
export class GetLink {
  constructor(private readonly lookup: ControllerLookup) {}

  execute({ projectId, linkId }: { readonly projectId: string; readonly linkId: string }): Promise<E.Either<GetLinkError, Link>> {
    return this.lookup.link(projectId, linkId);
  }
}
