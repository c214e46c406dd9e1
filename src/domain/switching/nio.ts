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
  readonly filters: FilterSettings;
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

export function withFilters(nio: Nio, filters: FilterSettings, suspend: boolean): Nio {
  return nio.type === "nio_udp" ? { ...nio, filters, suspend } : nio;
}

/** Whether two NIOs use the same socket (same kind, local port and peer): only their filters may differ. */
export function sameEndpoint(a: Nio, b: Nio): boolean {
  if (a.type !== b.type) return false;
  return a.type === "nio_null" || (b.type === "nio_udp" && a.lport === b.lport && a.rhost === b.rhost && a.rport === b.rport);
}
