import * as E from "fp-ts/lib/Either.js";
import { type FilterSettings, type InvalidFilterSettings, type LinkFilters, parseFilterSettings } from "../../../domain/filters/filter-settings.js";
import type { NioFilters, UdpNio, UnsupportedNioType } from "../../../domain/switching/nio.js";
import { filtersOfNio } from "../../../domain/switching/nio.js";
import type { FilterPrograms } from "../../filter-programs.js";

/**
 * A NIO as a client asks for it, not yet parsed (parseNio does that, at every door): `filters` is raw
 * until checked against the catalogue.
 */
export type NioRequest =
  | {
      readonly type: "nio_udp";
      readonly lport: number;
      readonly rhost: string;
      readonly rport: number;
      readonly filters?: LinkFilters | undefined;
      /** netemu's direction-specific filters: frames in from the peer, frames out to it (ADR 0051). */
      readonly filtersIn?: LinkFilters | undefined;
      readonly filtersOut?: LinkFilters | undefined;
      /** netemu's schedules of each direction (ADR 0102), instead of filtersIn / filtersOut. */
      readonly scheduleIn?: unknown;
      readonly scheduleOut?: unknown;
      readonly suspend?: boolean | undefined;
    }
  | { readonly type: "nio_null" }
  /** A TAP device of the host (ADR 0083); netemu's filters come by the impairments' overlay or an embedder. */
  | ({ readonly type: "nio_tap"; readonly tapDevice: string } & DeviceNioFilters)
  /** A host interface, read and written raw (ADR 0083). */
  | ({ readonly type: "nio_ethernet"; readonly ethernetDevice: string } & DeviceNioFilters)
  | { readonly type: UnsupportedNioType };

/** What an embedder may give a nio_tap or nio_ethernet beyond GNS3's body (which has none of it). */
interface DeviceNioFilters {
  readonly filters?: LinkFilters | undefined;
  readonly filtersIn?: LinkFilters | undefined;
  readonly filtersOut?: LinkFilters | undefined;
  readonly suspend?: boolean | undefined;
}

/**
 * The filter sets a PUT on a NIO gives, each parsed; one left out keeps the NIO's (`current`).
 * Field names are the wire's.
 */
export function requestedFilters(
  request: { readonly filters?: unknown; readonly filtersIn?: unknown; readonly filtersOut?: unknown },
  current: UdpNio,
): E.Either<InvalidFilterSettings, NioFilters> {
  const kept = filtersOfNio(current);
  const one = (raw: unknown, field: string, keep: FilterSettings) => (raw === undefined ? E.right(keep) : parseFilterSettings(raw, field));
  const filters = one(request.filters, "filters", kept.filters);
  if (E.isLeft(filters)) return filters;
  const filtersIn = one(request.filtersIn, "filters_in", kept.filtersIn);
  if (E.isLeft(filtersIn)) return filtersIn;
  const filtersOut = one(request.filtersOut, "filters_out", kept.filtersOut);
  if (E.isLeft(filtersOut)) return filtersOut;
  // A direction's schedule (ADR 0102) holds until that direction is given fixed filters.
  return E.right({
    filters: filters.right,
    filtersIn: filtersIn.right,
    filtersOut: filtersOut.right,
    scheduleIn: request.filtersIn === undefined ? current.scheduleIn : undefined,
    scheduleOut: request.filtersOut === undefined ? current.scheduleOut : undefined,
  });
}

/** Whether every pcap-filter expression of a NIO's filter sets compiles (each distinct text once). */
export async function checkNioPrograms(programs: FilterPrograms, f: NioFilters): Promise<E.Either<InvalidFilterSettings, void>> {
  for (const [settings, field] of [[f.filters, "filters"], [f.filtersIn, "filters_in"], [f.filtersOut, "filters_out"]] as const) {
    const checked = await programs.check(settings, field);
    if (E.isLeft(checked)) return checked;
  }
  return E.right(undefined);
}
