import * as E from "fp-ts/lib/Either.js";
import { type BpfCheck, type RawFilterSettings, type FilterSettings, NO_FILTERS, parseFilterSettings } from "../../../domain/filters/filter-settings.js";
import type { Nio, UnsupportedNioType } from "../../../domain/switching/nio.js";
import type { ErrorOf } from "../../errors.js";

/** A NIO as a client asks for it; `filters` is still raw until checked against the catalogue. */
export type NioRequest =
  | {
      readonly type: "nio_udp";
      readonly lport: number;
      readonly rhost: string;
      readonly rport: number;
      readonly filters?: RawFilterSettings | undefined;
      readonly suspend?: boolean | undefined;
    }
  | { readonly type: "nio_null" }
  | { readonly type: UnsupportedNioType };

export function checkedFilters(raw: unknown, bpfCheck: BpfCheck): E.Either<ErrorOf<"InvalidFilterSettings">, FilterSettings> {
  return raw === undefined ? E.right(NO_FILTERS) : parseFilterSettings(raw, bpfCheck);
}

/** Turns a request into a NIO, or says why netemu cannot run it. */
export function nioFromRequest(request: NioRequest, bpfCheck: BpfCheck): E.Either<ErrorOf<"InvalidFilterSettings" | "NioTypeNotSupported">, Nio> {
  switch (request.type) {
    case "nio_udp": {
      const filters = checkedFilters(request.filters, bpfCheck);
      if (E.isLeft(filters)) return filters;
      return E.right({
        type: "nio_udp",
        lport: request.lport,
        rhost: request.rhost,
        rport: request.rport,
        filters: filters.right,
        suspend: request.suspend ?? false,
      });
    }
    case "nio_null":
      return E.right({ type: "nio_null" });
    default:
      return E.left({ _tag: "NioTypeNotSupported", nioType: request.type });
  }
}
