import { injectable } from "tsyringe";
import * as E from "fp-ts/lib/Either.js";
import { FILTER_CATALOGUE, type FilterDescriptor } from "../../../domain/filters/catalogue.js";
import type { ControllerLinkLookupError } from "../../errors.js";
import { ControllerLookup } from "./controller-lookup.js";

/** What ListAvailableFilters can answer instead of its result. */
export type ListAvailableFiltersError = ControllerLinkLookupError;

/** Every netemu link can filter (its data plane runs the filters), so every link gets all five. */
@injectable()
export class ListAvailableFilters {
  constructor(private readonly lookup: ControllerLookup) {}

  async execute({ projectId, linkId }: { readonly projectId: string; readonly linkId: string }): Promise<E.Either<ListAvailableFiltersError, readonly FilterDescriptor[]>> {
    const link = await this.lookup.link(projectId, linkId);
    return E.isLeft(link) ? link : E.right(FILTER_CATALOGUE);
  }
}
