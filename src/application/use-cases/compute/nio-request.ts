import * as E from "fp-ts/lib/Either.js";
import { type BpfCheck, type RawFilterSettings, type FilterSettings, NO_FILTERS, parseFilterSettings } from "../../../domain/filters/filter-settings.js";
import { type Nio, type NioFilters, type UnsupportedNioType, directional } from "../../../domain/switching/nio.js";
import type { ErrorOf } from "../../errors.js";

/** A NIO as a client asks for it; `filters` is still raw until checked against the catalogue. */
export type NioRequest =
  | {
      readonly type: "nio_udp";
      readonly lport: number;
      readonly rhost: string;
      readonly rport: number;
      readonly filters?: RawFilterSettings | undefined;
      /** netemu's direction-specific filters: frames in from the peer, frames out to it (ADR 0051). */
      readonly filtersIn?: RawFilterSettings | undefined;
      readonly filtersOut?: RawFilterSettings | undefined;
      readonly suspend?: boolean | undefined;
    }
  | { readonly type: "nio_null" }
  | { readonly type: UnsupportedNioType };

/**
 * The three filter sets of a request, each checked; one left out is `fallback`'s (none for a new NIO).
 */
export function checkedNioFilters(
  request: { readonly filters?: unknown; readonly filtersIn?: unknown; readonly filtersOut?: unknown },
  bpfCheck: BpfCheck,
  fallback: NioFilters = { filters: NO_FILTERS, filtersIn: NO_FILTERS, filtersOut: NO_FILTERS },
): E.Either<ErrorOf<"InvalidFilterSettings">, NioFilters> {
  const one = (raw: unknown, kept: FilterSettings) => (raw === undefined ? E.right(kept) : parseFilterSettings(raw, bpfCheck));
  const filters = one(request.filters, fallback.filters);
  if (E.isLeft(filters)) return filters;
  const filtersIn = one(request.filtersIn, fallback.filtersIn);
  if (E.isLeft(filtersIn)) return filtersIn;
  const filtersOut = one(request.filtersOut, fallback.filtersOut);
  if (E.isLeft(filtersOut)) return filtersOut;
  return E.right({ filters: filters.right, filtersIn: filtersIn.right, filtersOut: filtersOut.right });
}

/** Turns a request into a NIO, or says why netemu cannot run it. */
export function nioFromRequest(request: NioRequest, bpfCheck: BpfCheck): E.Either<ErrorOf<"InvalidFilterSettings" | "NioTypeNotSupported">, Nio> {
  switch (request.type) {
    case "nio_udp": {
      const filters = checkedNioFilters(request, bpfCheck);
      if (E.isLeft(filters)) return filters;
      return E.right({
        type: "nio_udp",
        lport: request.lport,
        rhost: request.rhost,
        rport: request.rport,
        filters: filters.right.filters,
        ...directional(filters.right),
        suspend: request.suspend ?? false,
      });
    }
    case "nio_null":
      return E.right({ type: "nio_null" });
    default:
      return E.left({ _tag: "NioTypeNotSupported", nioType: request.type });
  }
}
