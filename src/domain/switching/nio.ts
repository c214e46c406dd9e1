import type { FilterSettings } from "../filters/filter-settings.js";

/**
 * A NIO (network input/output) attached to a switch port. netemu moves frames for `nio_udp`;
 * `nio_null` is a port that is "connected" to nothing (frames to it are discarded).
 */
export interface UdpNio {
  readonly type: "nio_udp";
  readonly lport: number;
  readonly rhost: string;
  readonly rport: number;
  /** Filters for both directions (GNS3's meaning). */
  readonly filters: FilterSettings;
  /**
   * netemu's direction-specific filters (ADR 0051): for the frames coming in from the peer, and for
   * those going out to it. A kind given here replaces the same kind of `filters` in that direction.
   */
  readonly filtersIn?: FilterSettings;
  readonly filtersOut?: FilterSettings;
  readonly suspend: boolean;
}

export interface NullNio {
  readonly type: "nio_null";
}

export type Nio = UdpNio | NullNio;

/** NIO kinds GNS3's schema knows that netemu refuses (409, as GNS3 does for kinds it cannot run). */
const UNSUPPORTED_NIO_TYPES = [
  "nio_generic_ethernet",
  "nio_ethernet",
  "nio_linux_ethernet",
  "nio_nat",
  "nio_tap",
  "nio_unix",
  "nio_vde",
  "nio_vmnet",
] as const;
export type UnsupportedNioType = (typeof UNSUPPORTED_NIO_TYPES)[number];

/** The filters of a UDP NIO, both ways and per direction. */
export interface NioFilters {
  readonly filters: FilterSettings;
  readonly filtersIn: FilterSettings;
  readonly filtersOut: FilterSettings;
}

export function withFilters(nio: Nio, filters: NioFilters, suspend: boolean): Nio {
  if (nio.type !== "nio_udp") return nio;
  const { filtersIn, filtersOut, ...rest } = nio;
  void filtersIn;
  void filtersOut;
  return { ...rest, filters: filters.filters, ...directional(filters), suspend };
}

/** The direction-specific fields, only when set (a NIO without them is GNS3's). */
export function directional(f: { readonly filtersIn: FilterSettings; readonly filtersOut: FilterSettings }): Pick<UdpNio, "filtersIn" | "filtersOut"> {
  return {
    ...(Object.keys(f.filtersIn).length > 0 ? { filtersIn: f.filtersIn } : {}),
    ...(Object.keys(f.filtersOut).length > 0 ? { filtersOut: f.filtersOut } : {}),
  };
}

/**
 * The filters acting on one direction of a NIO: its both-ways filters, with the kinds that direction
 * sets replacing theirs. The same object as `filters` when the NIO has no direction-specific ones.
 */
export function filtersOf(nio: UdpNio, direction: "in" | "out"): FilterSettings {
  const own = direction === "in" ? nio.filtersIn : nio.filtersOut;
  return own === undefined || Object.keys(own).length === 0 ? nio.filters : { ...nio.filters, ...own };
}

/** Whether two NIOs use the same socket (same kind, local port and peer): only their filters may differ. */
export function sameEndpoint(a: Nio, b: Nio): boolean {
  if (a.type !== b.type) return false;
  return a.type === "nio_null" || (b.type === "nio_udp" && a.lport === b.lport && a.rhost === b.rhost && a.rport === b.rport);
}
