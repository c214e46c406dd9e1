/**
 * Abstract syntax of pcap-filter expressions, as produced by the parser. Qualifier inheritance
 * (`host a or b`, `tcp port 80 or 443`, `port 80 and not 22`) is already resolved: every `id` node carries the
 * qualifiers that libpcap's grammar gives it. Positions are 0-based offsets into the expression.
 */

/** Protocol names usable as qualifiers (`pname` in libpcap's grammar). `link` covers ether/ppp/slip/fddi/tr/wlan. */
export type PName =
  | "link" | "ip" | "arp" | "rarp" | "sctp" | "tcp" | "udp" | "icmp" | "igmp" | "igrp" | "pim" | "vrrp" | "carp"
  | "atalk" | "aarp" | "decnet" | "lat" | "sca" | "moprc" | "mopdl" | "ip6" | "icmp6" | "ah" | "esp" | "iso"
  | "esis" | "isis" | "l1" | "l2" | "iih" | "lsp" | "snp" | "psnp" | "csnp" | "clnp" | "stp" | "ipx" | "netbeui"
  | "radio";

export const PNAMES: ReadonlySet<string> = new Set<PName>([
  "link", "ip", "arp", "rarp", "sctp", "tcp", "udp", "icmp", "igmp", "igrp", "pim", "vrrp", "carp", "atalk", "aarp",
  "decnet", "lat", "sca", "moprc", "mopdl", "ip6", "icmp6", "ah", "esp", "iso", "esis", "isis", "l1", "l2", "iih",
  "lsp", "snp", "psnp", "csnp", "clnp", "stp", "ipx", "netbeui", "radio",
]);

export type ProtoQ = PName | "default" | "undef";
export type DirQ = "default" | "src" | "dst" | "or" | "and" | "addr1" | "addr2" | "addr3" | "addr4" | "ra" | "ta" | "undef";
type AddrQ = "default" | "host" | "net" | "port" | "portrange" | "proto" | "protochain" | "gateway" | "undef";

export interface Qual {
  readonly proto: ProtoQ;
  readonly dir: DirQ;
  readonly addr: AddrQ;
}

/** The qualifiers of something that cannot pass qualifiers on (libpcap's `qerr`). */
export const QERR: Qual = { proto: "undef", dir: "undef", addr: "undef" };

/** The value part of a primitive (`host 10.0.0.1` -> hid "10.0.0.1"). */
export type IdValue =
  | { readonly t: "name"; readonly s: string }
  | { readonly t: "num"; readonly v: number }
  | { readonly t: "hid"; readonly s: string }
  | { readonly t: "hidlen"; readonly s: string; readonly len: number }
  | { readonly t: "hidmask"; readonly s: string; readonly mask: string }
  | { readonly t: "hid6"; readonly s: string; readonly len: number; readonly explicitLen: boolean }
  | { readonly t: "eid"; readonly s: string }
  | { readonly t: "aid"; readonly s: string };

export type ArthOp = "+" | "-" | "*" | "/" | "%" | "&" | "|" | "^" | "<<" | ">>";

export type Arth =
  | { readonly k: "num"; readonly v: number; readonly pos: number }
  | { readonly k: "load"; readonly proto: PName; readonly index: Arth; readonly size: number; readonly pos: number }
  | { readonly k: "bin"; readonly op: ArthOp; readonly l: Arth; readonly r: Arth; readonly pos: number }
  | { readonly k: "neg"; readonly e: Arth; readonly pos: number }
  | { readonly k: "len"; readonly pos: number };

export type Other =
  | { readonly t: "broadcast" | "multicast"; readonly proto: ProtoQ }
  | { readonly t: "less" | "greater"; readonly n: number }
  | { readonly t: "byte"; readonly idx: number; readonly op: "&" | "|" | "<" | ">" | "="; readonly val: number }
  | { readonly t: "vlan" | "mpls" | "pppoes" | "geneve"; readonly n: number | undefined }
  | { readonly t: "pppoed" }
  | { readonly t: "llc"; readonly sub: string | undefined }
  | { readonly t: "unsupported"; readonly message: string };

export type Expr =
  | { readonly k: "and" | "or"; readonly l: Expr; readonly r: Expr; readonly pos: number }
  | { readonly k: "not"; readonly e: Expr; readonly pos: number }
  | { readonly k: "id"; readonly q: Qual; readonly id: IdValue; readonly pos: number }
  | { readonly k: "pname"; readonly proto: PName; readonly pos: number }
  | {
      readonly k: "rel";
      readonly op: "gt" | "ge" | "eq";
      readonly reversed: boolean;
      readonly l: Arth;
      readonly r: Arth;
      readonly pos: number;
    }
  | { readonly k: "other"; readonly o: Other; readonly pos: number };

/** A whole expression; `undefined` body = the empty expression, which matches every frame. */
export interface Program {
  readonly body: Expr | undefined;
}
