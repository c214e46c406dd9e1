import { inject, injectable } from "tsyringe";
import * as E from "fp-ts/lib/Either.js";
import { FILTER_CATALOGUE, NETEMU_FILTER_CATALOGUE, type FilterDescriptor } from "../../../domain/filters/catalogue.js";
import type { ServerSettings } from "../../ports/server-settings.js";
import { TOKENS } from "../../ports/tokens.js";
import { CONTROLLER_LINK_LOOKUP_REFUSALS, type Refusal } from "../../errors.js";
import { ControllerLookup } from "./controller-lookup.js";

/** What ListAvailableFilters can answer instead of its result. */
export const LIST_AVAILABLE_FILTERS_REFUSALS = CONTROLLER_LINK_LOOKUP_REFUSALS;
export type ListAvailableFiltersError = Refusal<typeof LIST_AVAILABLE_FILTERS_REFUSALS>;

const EXTENDED: readonly FilterDescriptor[] = [...FILTER_CATALOGUE, ...NETEMU_FILTER_CATALOGUE];

/**
 * Every netemu link can filter (its data plane runs the filters), so every link gets GNS3's five,
 * and netemu's own impairments too when the server is set to list them.
 */
@injectable()
export class ListAvailableFilters {
  constructor(
    private readonly lookup: ControllerLookup,
    @inject(TOKENS.ServerSettings) private readonly settings: ServerSettings,
  ) {}

  async execute({ projectId, linkId }: { readonly projectId: string; readonly linkId: string }): Promise<E.Either<ListAvailableFiltersError, readonly FilterDescriptor[]>> {
    const link = await this.lookup.link(projectId, linkId);
    return E.isLeft(link) ? link : E.right(this.settings.extendedFilters ? EXTENDED : FILTER_CATALOGUE);
  }
}
