/**
 * What a compiled filter computes at run time beyond loads and arithmetic: the protochain walk (libpcap's only
 * loop) and the offsets of what follows `geneve` (libpcap keeps them in scratch registers). Used by both the
 * generated code and the DAG interpreter.
 */

const IPPROTO_NONE = 59;
const IPPROTO_AH = 51;
const IPV6_EXTENSIONS: ReadonlySet<number> = new Set([0, 60, 43, 44]);

/**
 * Most steps a header chain walk takes before netemu gives up on the frame (no match). libpcap's walk has no
 * bound: on a frame whose AH headers point back at each other it never ends; no real chain comes near this.
 */
export const CHAIN_STEP_LIMIT = 1024;

/**
 * libpcap's protochain loop, step for step. After an AH header libpcap sets the offset to
 * 4 * (AH length + 2) from the network header instead of adding it to the offset (its code says `X = X + ...`
 * in a comment and does `X = ...`): the next protocol is read there, as libpcap reads it.
 */
export function walkChain(v6: boolean, nl: number, target: number, p: Uint8Array): number | undefined {
  const byte = (off: number): number | undefined => (off < p.length ? p[off] : undefined);
  let a = byte(nl + (v6 ? 6 : 9));
  const hl = byte(nl);
  if (a === undefined || hl === undefined) return undefined;
  let x = v6 ? 40 : (hl & 0x0f) << 2;
  for (let step = 0; step < CHAIN_STEP_LIMIT; step++) {
    if (a === target || a === IPPROTO_NONE) return a;
    const v6Extension = v6 && IPV6_EXTENSIONS.has(a);
    if (!v6Extension && a !== IPPROTO_AH) return a;
    const next = byte(nl + x);
    const length = byte(nl + x + 1);
    if (next === undefined || length === undefined) return undefined;
    x = v6Extension ? x + (length + 1) * 8 : (length + 2) * 4;
    a = next;
  }
  return undefined;
}

const ETHERTYPE_IP = 0x0800;
const ETHERTYPE_IPV6 = 0x86dd;
const ETHERTYPE_TEB = 0x6558;
const PPP_IP = 0x0021;
const PPP_IPV6 = 0x0057;
const GENEVE_PORT = 6081;

/** What carries the outer IP packet: Ethernet (EtherType at `lt`), an MPLS label stack, or PPP in PPPoE. */
export type GeneveOuter = "ether" | "mpls" | "ppp";

/** Which offset of the frame inside a Geneve tunnel: its EtherType, its link header, its network header. */
export type GeneveOffset = "linktype" | "linkhdr" | "linkpl";

/**
 * The outer IP header's length when the frame is the Geneve packet `geneve [vni]` matched, else undefined.
 * libpcap sets its registers only when `geneve` matched; on other frames (`geneve or ip`) it reads memory
 * it never wrote, and on tcpdump's captures that read mostly fails: the filter does not match. netemu never
 * matches then. Under MPLS the outer IP version comes from the bottom-of-stack bit and the version nibble,
 * under PPPoE from the PPP protocol, as gen_linktype checks them.
 */
function geneveHeaderAfter(outer: GeneveOuter, lt: number, nl: number, vni: number | undefined, p: Uint8Array): number | undefined {
  const u8 = (off: number): number | undefined => p[off];
  const u16 = (off: number): number | undefined => (off + 2 <= p.length ? ((p[off] ?? 0) << 8) | (p[off + 1] ?? 0) : undefined);
  const u32 = (off: number): number | undefined => {
    const hi = u16(off);
    const lo = u16(off + 2);
    return hi === undefined || lo === undefined ? undefined : hi * 65536 + lo;
  };
  let ipHeader: number;
  const version = (u8(nl) ?? 0) & 0xf0;
  const bottomOfStack = ((u8(nl - 2) ?? 0) & 0x01) === 1;
  let outerType: number | undefined;
  switch (outer) {
    case "ether": outerType = u16(lt); break;
    case "ppp": outerType = u16(lt) === PPP_IP ? ETHERTYPE_IP : u16(lt) === PPP_IPV6 ? ETHERTYPE_IPV6 : undefined; break;
    case "mpls": outerType = !bottomOfStack ? undefined : version === 0x40 ? ETHERTYPE_IP : version === 0x60 ? ETHERTYPE_IPV6 : undefined; break;
  }
  if (outerType === ETHERTYPE_IP) {
    const fragment = u16(nl + 6);
    if (u8(nl + 9) !== 17 || fragment === undefined || (fragment & 0x1fff) !== 0) return undefined;
    ipHeader = ((u8(nl) ?? 0) & 0x0f) << 2;
  } else if (outerType === ETHERTYPE_IPV6) {
    if (u8(nl + 6) !== 17) return undefined;
    ipHeader = 40;
  } else return undefined;
  const udp = nl + ipHeader;
  const geneveVersion = u8(udp + 8);
  if (u16(udp + 2) !== GENEVE_PORT || geneveVersion === undefined || (geneveVersion & 0xc0) !== 0) return undefined;
  if (vni !== undefined) {
    const word = u32(udp + 12);
    if (word === undefined || Math.floor(word / 256) !== vni) return undefined;
  }
  return ipHeader;
}

/**
 * The offsets libpcap computes when `geneve` matched, for the outer EtherType (or PPP protocol) at `lt` and
 * the outer IP header at `nl`: the Geneve header follows the UDP header; its protocol type is the EtherType; with
 * Transparent Ethernet Bridging (0x6558) the inner Ethernet header follows the options and its EtherType is
 * used instead. undefined when a byte it needs was not captured (the filter then does not match).
 */
export function geneveOffset(
  which: GeneveOffset,
  outer: GeneveOuter,
  lt: number,
  nl: number,
  vni: number | undefined,
  p: Uint8Array,
): number | undefined {
  const ipHeader = geneveHeaderAfter(outer, lt, nl, vni, p);
  if (ipHeader === undefined) return undefined;
  const start = nl + ipHeader + 8;
  const first = p[start];
  const protoHi = p[start + 2];
  const protoLo = p[start + 3];
  if (first === undefined || protoHi === undefined || protoLo === undefined) return undefined;
  const payload = start + 8 + (first & 0x3f) * 4;
  const ethernet = ((protoHi << 8) | protoLo) === ETHERTYPE_TEB;
  switch (which) {
    case "linktype": return ethernet ? payload + 12 : start + 2;
    case "linkhdr": return payload;
    case "linkpl": return ethernet ? payload + 14 : payload;
  }
}
