import * as E from "fp-ts/lib/Either.js";
import { type InvalidConfiguration, fieldOf, invalidConfiguration, itemOf } from "../configuration/invalid-configuration.js";
import { own, readArray, readChoice, readInteger, readObject, readString, required } from "../configuration/read.js";
import { CONFIGURATION_LIMITS } from "../configuration/limits.js";

/**
 * A switch port as configured through `ports_mapping`. The wire entry is kept alongside the
 * parsed mode because GNS3 echoes the mapping verbatim (an `ethertype` of "" stays "").
 */
export type QinqEthertype = 0x8100 | 0x88a8 | 0x9100 | 0x9200;

export type PortMode =
  | { readonly kind: "access"; readonly vlan: number }
  | { readonly kind: "dot1q"; readonly nativeVlan: number }
  | { readonly kind: "qinq"; readonly outerVlan: number; readonly ethertype: QinqEthertype };

export type PortType = PortMode["kind"];

const PORT_TYPES: readonly PortType[] = ["access", "dot1q", "qinq"];

/** The `ethertype` values GNS3's schema allows ("" means the default 0x8100). */
export const ETHERTYPE_CHOICES = ["", "0x8100", "0x88A8", "0x9100", "0x9200"] as const;
export type EthertypeChoice = (typeof ETHERTYPE_CHOICES)[number];

export interface PortMappingEntry {
  readonly name: string;
  readonly port_number: number;
  readonly type: PortType;
  /** Optional in GNS3's schema; a port without one is in VLAN 1, as a new Dynamips port is. */
  readonly vlan?: number;
  readonly ethertype?: EthertypeChoice;
}

export interface Port {
  readonly name: string;
  readonly portNumber: number;
  readonly mode: PortMode;
}

/** 802.1Q VIDs 0 and 4095 are reserved; a VID above 4095 cannot be encoded in a tag. */
export const MIN_VLAN = 1;
export const MAX_VLAN = 4094;
const DEFAULT_VLAN = 1;

function ethertypeValue(choice: EthertypeChoice | undefined): QinqEthertype {
  switch (choice) {
    case "0x88A8":
      return 0x88a8;
    case "0x9100":
      return 0x9100;
    case "0x9200":
      return 0x9200;
    default:
      return 0x8100;
  }
}

export function portFromMapping(entry: PortMappingEntry): Port {
  const vlan = entry.vlan ?? DEFAULT_VLAN;
  const mode: PortMode =
    entry.type === "access"
      ? { kind: "access", vlan }
      : entry.type === "dot1q"
        ? { kind: "dot1q", nativeVlan: vlan }
        : { kind: "qinq", outerVlan: vlan, ethertype: ethertypeValue(entry.ethertype) };
  return { name: entry.name, portNumber: entry.port_number, mode };
}

/** GNS3's default: eight access ports in VLAN 1 named Ethernet0..7. */
export function defaultPortsMapping(): PortMappingEntry[] {
  return Array.from({ length: 8 }, (_, i) => ({
    name: `Ethernet${i}`,
    port_number: i,
    type: "access" as const,
    vlan: 1,
  }));
}

/** A port's name and number, as both a switch's and a hub's entries have them. */
export interface NumberedPort {
  readonly name: string;
  readonly port_number: number;
}

/**
 * The entries of a ports_mapping, one by one through `entry`, within the limits: at most
 * portsPerNode entries, each port number once.
 */
export function parsePortEntries<T extends NumberedPort>(
  raw: unknown,
  field: string,
  entry: (object: Readonly<Record<string, unknown>>, field: string) => E.Either<InvalidConfiguration, T>,
): E.Either<InvalidConfiguration, readonly T[]> {
  const items = readArray(raw, field, CONFIGURATION_LIMITS.portsPerNode);
  if (E.isLeft(items)) return items;
  const seen = new Map<number, string>();
  const out: T[] = [];
  for (let i = 0; i < items.right.length; i++) {
    const at = itemOf(field, i);
    const object = readObject(items.right[i], at);
    if (E.isLeft(object)) return object;
    const parsed = entry(object.right, at);
    if (E.isLeft(parsed)) return parsed;
    const numberField = fieldOf(at, "port_number");
    const first = seen.get(parsed.right.port_number);
    if (first !== undefined) return E.left(invalidConfiguration(numberField, { rule: "duplicate", first }, parsed.right.port_number));
    seen.set(parsed.right.port_number, numberField);
    out.push(parsed.right);
  }
  return E.right(Object.freeze(out));
}

/** A port's name and number, each checked. */
export function readNumberedPort(o: Readonly<Record<string, unknown>>, field: string): E.Either<InvalidConfiguration, NumberedPort> {
  const name = required(o, "name", fieldOf(field, "name"));
  if (E.isLeft(name)) return name;
  const nameValue = readString(name.right, fieldOf(field, "name"), 1, CONFIGURATION_LIMITS.nameLength);
  if (E.isLeft(nameValue)) return nameValue;
  const portNumber = required(o, "port_number", fieldOf(field, "port_number"));
  if (E.isLeft(portNumber)) return portNumber;
  const portNumberValue = readInteger(portNumber.right, fieldOf(field, "port_number"), 0, CONFIGURATION_LIMITS.maxPortNumber);
  if (E.isLeft(portNumberValue)) return portNumberValue;
  return E.right({ name: nameValue.right, port_number: portNumberValue.right });
}

function switchPortEntry(o: Readonly<Record<string, unknown>>, field: string): E.Either<InvalidConfiguration, PortMappingEntry> {
  const numbered = readNumberedPort(o, field);
  if (E.isLeft(numbered)) return numbered;
  const type = required(o, "type", fieldOf(field, "type"));
  if (E.isLeft(type)) return type;
  const typeValue = readChoice(type.right, fieldOf(field, "type"), PORT_TYPES);
  if (E.isLeft(typeValue)) return typeValue;
  const vlanRaw = own(o, "vlan");
  const vlan = vlanRaw === undefined ? E.right(undefined) : readInteger(vlanRaw, fieldOf(field, "vlan"), MIN_VLAN, MAX_VLAN);
  if (E.isLeft(vlan)) return vlan;
  const ethertypeRaw = own(o, "ethertype");
  const ethertype = ethertypeRaw === undefined ? E.right(undefined) : readChoice(ethertypeRaw, fieldOf(field, "ethertype"), ETHERTYPE_CHOICES);
  if (E.isLeft(ethertype)) return ethertype;
  // The keys given, and only those: GNS3 echoes the entry as it was sent (ADR 0038).
  return E.right(
    Object.freeze({
      name: numbered.right.name,
      port_number: numbered.right.port_number,
      type: typeValue.right,
      ...(vlan.right === undefined ? {} : { vlan: vlan.right }),
      ...(ethertype.right === undefined ? {} : { ethertype: ethertype.right }),
    }),
  );
}

/**
 * The one parse of a switch's ports_mapping, at every door (ADR 0053): each entry's name, number,
 * type, VLAN (1..4094: a tag carries 12 bits) and QinQ ethertype checked, at most portsPerNode
 * entries, no port number twice. Keys it does not know are left out of the value.
 */
export function parseSwitchPorts(raw: unknown, field = "ports_mapping"): E.Either<InvalidConfiguration, readonly PortMappingEntry[]> {
  return parsePortEntries(raw, field, switchPortEntry);
}

/** Whether two ports_mappings are the same value, entry by entry (a hub's entries have no type, VLAN or ethertype). */
export function portsMappingEqual(a: readonly NumberedPort[], b: readonly NumberedPort[]): boolean {
  if (a === b) return true;
  if (a.length !== b.length) return false;
  for (let i = 0; i < a.length; i++) {
    const x = a[i] as Partial<PortMappingEntry> & NumberedPort;
    const y = b[i] as Partial<PortMappingEntry> & NumberedPort;
    if (x.name !== y.name || x.port_number !== y.port_number || x.type !== y.type || x.vlan !== y.vlan || x.ethertype !== y.ethertype) return false;
  }
  return true;
}
