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
