import * as E from "fp-ts/lib/Either.js";
import { type FilterSettings, type InvalidFilterSettings, NO_FILTERS, filterSettingsEqual, hasFilters, parseFilterSettings, directionConflict } from "../filters/filter-settings.js";
import { type InvalidConfiguration, fieldOf, invalidConfiguration } from "../configuration/invalid-configuration.js";
import { own, readBoolean, readInteger, readObject, readString, required } from "../configuration/read.js";
import { CONFIGURATION_LIMITS } from "../configuration/limits.js";
import { type ArmedSchedule, scheduleEqual } from "../filters/schedule.js";

/**
 * A NIO (network input/output) attached to a switch port. netemu moves frames for `nio_udp` (one
 * datagram a frame), `nio_tap` (a TAP device of the host) and `nio_ethernet` (a host interface, read
 * and written raw: ADR 0083); `nio_null` is a port that is "connected" to nothing (frames to it are
 * discarded).
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
  /** A direction's impairments as a function of time (ADR 0102): its active step runs as that direction's filters. */
  readonly scheduleIn?: ArmedSchedule;
  readonly scheduleOut?: ArmedSchedule;
  readonly suspend: boolean;
}

/** What every frame-carrying NIO has beside its endpoint: netemu's filters (GNS3 gives none but UDP's) and suspend flag. */
interface NioFiltering {
  readonly filters: FilterSettings;
  readonly filtersIn?: FilterSettings;
  readonly filtersOut?: FilterSettings;
  readonly scheduleIn?: ArmedSchedule;
  readonly scheduleOut?: ArmedSchedule;
  readonly suspend: boolean;
}

/** A TAP device of the host (GNS3's `tap_device`): netemu attaches to it, or creates it when there is none. */
export interface TapNio extends NioFiltering {
  readonly type: "nio_tap";
  readonly tapDevice: string;
}

/** A host interface (GNS3's `ethernet_device`): a NIC, a bridge or a container's veth, read and written raw. */
export interface EthernetNio extends NioFiltering {
  readonly type: "nio_ethernet";
  readonly ethernetDevice: string;
}

export interface NullNio {
  readonly type: "nio_null";
}

/** A NIO that carries frames: it has filters, and the data plane opens an endpoint for it. */
export type FrameNio = UdpNio | TapNio | EthernetNio;
export type Nio = FrameNio | NullNio;

/** Whether a NIO carries frames (every kind but nio_null). */
export function carriesFrames(nio: Nio): nio is FrameNio {
  return nio.type !== "nio_null";
}

/** The host device a TAP or Ethernet NIO names. */
export function deviceOf(nio: TapNio | EthernetNio): string {
  return nio.type === "nio_tap" ? nio.tapDevice : nio.ethernetDevice;
}

/** NIO kinds GNS3's schema knows that netemu refuses (409, as GNS3 does for kinds it cannot run). */
const UNSUPPORTED_NIO_TYPES = [
  "nio_generic_ethernet",
  "nio_linux_ethernet",
  "nio_nat",
  "nio_unix",
  "nio_vde",
  "nio_vmnet",
] as const;
export type UnsupportedNioType = (typeof UNSUPPORTED_NIO_TYPES)[number];

/** A NIO of a kind GNS3 knows and netemu does not run. */
export interface NioTypeNotSupported {
  readonly _tag: "NioTypeNotSupported";
  readonly nioType: string;
}

/**
 * The longest name of a Linux network interface (IFNAMSIZ 16, with its terminating zero). The kernel
 * also refuses "." and "..", and names holding "/", ":" or white space (dev_valid_name).
 */
const DEVICE_NAME_MAX = 15;

/** A device name as the kernel takes one: Left is the rule it breaks. */
export function readDeviceName(raw: unknown, field: string): E.Either<InvalidConfiguration, string> {
  const name = readString(raw, field, 1, DEVICE_NAME_MAX);
  if (E.isLeft(name)) return name;
  if (name.right === "." || name.right === ".." || /[/:\s]/.test(name.right)) return E.left(invalidConfiguration(field, { rule: "interface_name" }, name.right));
  return name;
}

/** Why a NIO could not be made of what was given. */
export type NioProblem = InvalidConfiguration | InvalidFilterSettings | NioTypeNotSupported;

const UDP_PORT_MIN = 1;
const UDP_PORT_MAX = 65_535;

/**
 * The one parse of a NIO, at every door (ADR 0053): a `nio_udp` with its local port, peer and
 * filters (`filters`, and netemu's `filtersIn` / `filtersOut`, each parsed by parseFilterSettings),
 * or a `nio_null`. Field names in refusals are the wire's (`filters_in`), under `field`. Keys it does
 * not know are left alone. The result is canonical: direction filters only when they hold a filter.
 */
export function parseNio(raw: unknown, field = ""): E.Either<NioProblem, Nio> {
  const object = readObject(raw, field === "" ? "nio" : field);
  if (E.isLeft(object)) return object;
  const o = object.right;
  const type = required(o, "type", fieldOf(field, "type"));
  if (E.isLeft(type)) return type;
  if (type.right === "nio_null") return E.right(NULL_NIO);
  if (typeof type.right === "string" && (UNSUPPORTED_NIO_TYPES as readonly string[]).includes(type.right)) {
    return E.left({ _tag: "NioTypeNotSupported", nioType: type.right });
  }
  if (type.right === "nio_tap" || type.right === "nio_ethernet") return parseDeviceNio(o, type.right, field);
  if (type.right !== "nio_udp") return E.left(invalidConfiguration(fieldOf(field, "type"), { rule: "one_of", choices: [...NIO_TYPES, ...UNSUPPORTED_NIO_TYPES] }, type.right));
  const lport = required(o, "lport", fieldOf(field, "lport"));
  if (E.isLeft(lport)) return lport;
  const lportValue = readInteger(lport.right, fieldOf(field, "lport"), UDP_PORT_MIN, UDP_PORT_MAX);
  if (E.isLeft(lportValue)) return lportValue;
  const rhost = required(o, "rhost", fieldOf(field, "rhost"));
  if (E.isLeft(rhost)) return rhost;
  const rhostValue = readString(rhost.right, fieldOf(field, "rhost"), 1, CONFIGURATION_LIMITS.hostLength);
  if (E.isLeft(rhostValue)) return rhostValue;
  const rport = required(o, "rport", fieldOf(field, "rport"));
  if (E.isLeft(rport)) return rport;
  const rportValue = readInteger(rport.right, fieldOf(field, "rport"), UDP_PORT_MIN, UDP_PORT_MAX);
  if (E.isLeft(rportValue)) return rportValue;
  const filtering = parseFiltering(o, field);
  if (E.isLeft(filtering)) return filtering;
  const f = filtering.right;
  return E.right(
    Object.freeze({
      type: "nio_udp",
      lport: lportValue.right,
      rhost: rhostValue.right,
      rport: rportValue.right,
      filters: f.filters,
      ...directional(f),
      suspend: f.suspend,
    }),
  );
}

/** The NIO kinds netemu runs. */
export const NIO_TYPES = ["nio_udp", "nio_tap", "nio_ethernet", "nio_null"] as const;

/** A nio_tap (`tapDevice`) or nio_ethernet (`ethernetDevice`) with netemu's filters and suspend flag. */
function parseDeviceNio(o: Readonly<Record<string, unknown>>, type: "nio_tap" | "nio_ethernet", field: string): E.Either<NioProblem, TapNio | EthernetNio> {
  const key = type === "nio_tap" ? "tapDevice" : "ethernetDevice";
  const wire = type === "nio_tap" ? "tap_device" : "ethernet_device";
  const raw = required(o, key, fieldOf(field, wire));
  if (E.isLeft(raw)) return raw;
  const device = readDeviceName(raw.right, fieldOf(field, wire));
  if (E.isLeft(device)) return device;
  const filtering = parseFiltering(o, field);
  if (E.isLeft(filtering)) return filtering;
  const f = filtering.right;
  const nio = type === "nio_tap" ? { type, tapDevice: device.right } : { type, ethernetDevice: device.right };
  return E.right(Object.freeze({ ...nio, filters: f.filters, ...directional(f), suspend: f.suspend }) as TapNio | EthernetNio);
}

/** `suspend`, `filters`, `filtersIn` and `filtersOut` of any frame NIO (UDP, TAP or Ethernet), each optional. */
function parseFiltering(o: Readonly<Record<string, unknown>>, field: string): E.Either<NioProblem, NioFilters & { readonly suspend: boolean }> {
  const suspendRaw = own(o, "suspend");
  const suspend = suspendRaw === undefined ? E.right(false) : readBoolean(suspendRaw, fieldOf(field, "suspend"));
  if (E.isLeft(suspend)) return suspend;
  const filters = optionalFilters(own(o, "filters"), fieldOf(field, "filters"));
  if (E.isLeft(filters)) return filters;
  const filtersIn = optionalFilters(own(o, "filtersIn"), fieldOf(field, "filters_in"));
  if (E.isLeft(filtersIn)) return filtersIn;
  const filtersOut = optionalFilters(own(o, "filtersOut"), fieldOf(field, "filters_out"));
  if (E.isLeft(filtersOut)) return filtersOut;
  // A direction runs `filters` with its own kinds over them: a rate or discipline in one and a capacity trace in the other meet there.
  for (const [given, wire] of [[filtersIn.right, "filters_in"], [filtersOut.right, "filters_out"]] as const) {
    const clash = hasFilters(given) ? directionConflict({ ...filters.right, ...given }) : undefined;
    if (clash !== undefined) return E.left({ _tag: "InvalidFilterSettings", problem: clash, field: fieldOf(field, wire) });
  }
  return E.right({ filters: filters.right, filtersIn: filtersIn.right, filtersOut: filtersOut.right, suspend: suspend.right });
}

const NULL_NIO: NullNio = Object.freeze({ type: "nio_null" });

function optionalFilters(raw: unknown, field: string): E.Either<InvalidFilterSettings, FilterSettings> {
  return raw === undefined ? E.right(NO_FILTERS) : parseFilterSettings(raw, field);
}

/** The filters of a UDP NIO, both ways and per direction. */
export interface NioFilters {
  readonly filters: FilterSettings;
  readonly filtersIn: FilterSettings;
  readonly filtersOut: FilterSettings;
  readonly scheduleIn?: ArmedSchedule | undefined;
  readonly scheduleOut?: ArmedSchedule | undefined;
}

/** The schedule fields, only when set (ADR 0102). */
export function scheduled(f: { readonly scheduleIn?: ArmedSchedule | undefined; readonly scheduleOut?: ArmedSchedule | undefined }): Pick<UdpNio, "scheduleIn" | "scheduleOut"> {
  return { ...(f.scheduleIn === undefined ? {} : { scheduleIn: f.scheduleIn }), ...(f.scheduleOut === undefined ? {} : { scheduleOut: f.scheduleOut }) };
}

function sameArmed(a: ArmedSchedule | undefined, b: ArmedSchedule | undefined): boolean {
  return a === b || (a !== undefined && b !== undefined && a.setAtMs === b.setAtMs && scheduleEqual(a.schedule, b.schedule));
}

/** The NIO with other filters and suspend flag (the socket or device stays). */
export function withFilters<N extends Nio>(nio: N, filters: NioFilters, suspend: boolean): N;
export function withFilters(nio: Nio, filters: NioFilters, suspend: boolean): Nio {
  const f = { filters: filters.filters, ...directional(filters), ...scheduled(filters), suspend };
  switch (nio.type) {
    case "nio_null":
      return nio;
    case "nio_udp":
      return Object.freeze({ type: "nio_udp", lport: nio.lport, rhost: nio.rhost, rport: nio.rport, ...f });
    case "nio_tap":
      return Object.freeze({ type: "nio_tap", tapDevice: nio.tapDevice, ...f });
    case "nio_ethernet":
      return Object.freeze({ type: "nio_ethernet", ethernetDevice: nio.ethernetDevice, ...f });
  }
}

/** The filters of a frame NIO, both ways and per direction. */
export function filtersOfNio(nio: FrameNio): NioFilters {
  return { filters: nio.filters, filtersIn: nio.filtersIn ?? NO_FILTERS, filtersOut: nio.filtersOut ?? NO_FILTERS };
}

/** The direction-specific fields, only when set (a NIO without them is GNS3's). */
export function directional(f: { readonly filtersIn: FilterSettings; readonly filtersOut: FilterSettings }): Pick<UdpNio, "filtersIn" | "filtersOut"> {
  return {
    ...(hasFilters(f.filtersIn) ? { filtersIn: f.filtersIn } : {}),
    ...(hasFilters(f.filtersOut) ? { filtersOut: f.filtersOut } : {}),
  };
}

/**
 * The filters acting on one direction of a NIO: its both-ways filters, with the kinds that direction
 * sets replacing theirs. The same object as `filters` when the NIO has no direction-specific ones.
 */
export function filtersOf(nio: FrameNio, direction: "in" | "out"): FilterSettings {
  const given = direction === "in" ? nio.filtersIn : nio.filtersOut;
  return given === undefined || !hasFilters(given) ? nio.filters : { ...nio.filters, ...given };
}

/** Whether two NIOs use the same socket or device (same kind, local port and peer, or device): only their filters may differ. */
export function sameEndpoint(a: Nio, b: Nio): boolean {
  switch (a.type) {
    case "nio_null":
      return b.type === "nio_null";
    case "nio_udp":
      return b.type === "nio_udp" && a.lport === b.lport && a.rhost === b.rhost && a.rport === b.rport;
    case "nio_tap":
      return b.type === "nio_tap" && a.tapDevice === b.tapDevice;
    case "nio_ethernet":
      return b.type === "nio_ethernet" && a.ethernetDevice === b.ethernetDevice;
  }
}

/** Whether two NIOs are the same value: the same socket, filters (each set by value) and suspend flag. */
export function nioEqual(a: Nio, b: Nio): boolean {
  if (a === b) return true;
  if (!sameEndpoint(a, b)) return false;
  if (!carriesFrames(a) || !carriesFrames(b)) return true;
  return (
    a.suspend === b.suspend &&
    filterSettingsEqual(a.filters, b.filters) &&
    filterSettingsEqual(a.filtersIn ?? NO_FILTERS, b.filtersIn ?? NO_FILTERS) &&
    filterSettingsEqual(a.filtersOut ?? NO_FILTERS, b.filtersOut ?? NO_FILTERS) &&
    sameArmed(a.scheduleIn, b.scheduleIn) &&
    sameArmed(a.scheduleOut, b.scheduleOut)
  );
}
