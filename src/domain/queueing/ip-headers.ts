/**
 * Where the IP packet is inside an Ethernet frame, its flow (the 5-tuple) and its ECN field: what
 * CoDel and FQ-CoDel look at (RFC 8289, RFC 8290, RFC 3168). Pure, no allocation per frame.
 */

const ETHERTYPE_IPV4 = 0x0800;
const ETHERTYPE_IPV6 = 0x86dd;
/** 802.1Q, 802.1ad (QinQ) and the pre-standard 0x9100: a 4-byte tag before the next EtherType. */
const VLAN_TPIDS = new Set([0x8100, 0x88a8, 0x9100]);
/** Tags followed at most (a frame of endless tags is not IP as far as the queue cares). */
const MAX_TAGS = 4;

/** The ECN codepoints of RFC 3168, in the IP header's two low TOS / traffic class bits. */
export const ECN_NOT_ECT = 0b00;
export const ECN_ECT_1 = 0b01;
export const ECN_ECT_0 = 0b10;
export const ECN_CE = 0b11;

/** The IP packet of a frame: its version and the offset of its header in the frame. */
interface IpLocation {
  readonly version: 4 | 6;
  readonly offset: number;
}

const u16 = (f: Uint8Array, at: number): number => ((f[at] as number) << 8) | (f[at + 1] as number);

/** The IP header inside the frame (past any VLAN tags), or undefined for a non-IP or truncated frame. */
export function locateIp(frame: Uint8Array): IpLocation | undefined {
  let at = 12;
  for (let tags = 0; tags <= MAX_TAGS; tags++) {
    if (frame.length < at + 2) return undefined;
    const type = u16(frame, at);
    if (VLAN_TPIDS.has(type)) {
      at += 4;
      continue;
    }
    const offset = at + 2;
    if (type === ETHERTYPE_IPV4) {
      if (frame.length < offset + 20 || (frame[offset] as number) >> 4 !== 4) return undefined;
      return { version: 4, offset };
    }
    if (type === ETHERTYPE_IPV6) {
      if (frame.length < offset + 40 || (frame[offset] as number) >> 4 !== 6) return undefined;
      return { version: 6, offset };
    }
    return undefined;
  }
  return undefined;
}

/** The ECN codepoint of the frame's IP packet, or undefined when it carries none (not IP). */
export function ecnOf(frame: Uint8Array): number | undefined {
  const ip = locateIp(frame);
  if (ip === undefined) return undefined;
  return ip.version === 4 ? (frame[ip.offset + 1] as number) & 0b11 : ((frame[ip.offset + 1] as number) >> 4) & 0b11;
}

/**
 * Marks the frame's IP packet Congestion Experienced, in place, as Linux's INET_ECN_set_ce does:
 * true when the packet is ECN-capable (ECT(0), ECT(1)) and now carries CE, or already carried it;
 * false when it is not ECN-capable or not IP (the caller drops it instead). An IPv4 header's checksum
 * is updated incrementally (RFC 1624, eqn. 3), so a header that was right stays right.
 */
export function markCongestionExperienced(frame: Uint8Array): boolean {
  const ip = locateIp(frame);
  if (ip === undefined) return false;
  const at = ip.offset;
  if (ip.version === 6) {
    // Traffic class straddles bytes 0 and 1: its ECN bits are bits 5-4 of byte 1.
    const b = frame[at + 1] as number;
    const ecn = (b >> 4) & 0b11;
    if (ecn === ECN_NOT_ECT) return false;
    frame[at + 1] = b | 0x30;
    return true;
  }
  const tos = frame[at + 1] as number;
  const ecn = tos & 0b11;
  if (ecn === ECN_NOT_ECT) return false;
  if (ecn === ECN_CE) return true;
  const oldWord = u16(frame, at);
  frame[at + 1] = tos | ECN_CE;
  const newWord = u16(frame, at);
  // HC' = ~(~HC + ~m + m') in ones' complement arithmetic.
  let sum = (~u16(frame, at + 10) & 0xffff) + (~oldWord & 0xffff) + newWord;
  sum = (sum & 0xffff) + (sum >>> 16);
  sum = (sum & 0xffff) + (sum >>> 16);
  const check = ~sum & 0xffff;
  frame[at + 10] = check >> 8;
  frame[at + 11] = check & 0xff;
  return true;
}

/** The IPv4 header checksum computed from scratch (RFC 791): what a receiver checks. */
export function ipv4HeaderChecksum(frame: Uint8Array, offset: number): number {
  const length = ((frame[offset] as number) & 0x0f) * 4;
  let sum = 0;
  for (let i = 0; i < length; i += 2) if (i !== 10) sum += u16(frame, offset + i);
  while (sum > 0xffff) sum = (sum & 0xffff) + (sum >>> 16);
  return ~sum & 0xffff;
}

/** The transport protocols whose first four bytes are the ports. */
const PORTED = new Set([6, 17, 33, 132, 136]);
/** IPv6 extension headers that are followed (hop-by-hop, routing, destination options; fragment handled apart). */
const IPV6_EXTENSIONS = new Set([0, 43, 60]);
const IPV6_FRAGMENT = 44;

/** FNV-1a over one byte, seeded: a cheap, well-spread hash of the flow's bytes. */
const mix = (h: number, byte: number): number => Math.imul(h ^ byte, 0x01000193) >>> 0;

function mixBytes(h: number, f: Uint8Array, from: number, count: number): number {
  for (let i = from; i < from + count; i++) h = mix(h, f[i] as number);
  return h;
}

/**
 * A 32-bit hash of the frame's flow: IP source and destination, protocol, and the ports for TCP, UDP,
 * DCCP, SCTP and UDP-Lite (not for a non-first fragment, which has none), as Linux's flow dissector
 * keys fq_codel's flows. A frame that is not IP hashes its MAC addresses and EtherType. `seed` is the
 * perturbation (a queue's own, so flows do not collide the same way everywhere).
 */
export function flowHash(frame: Uint8Array, seed: number): number {
  let h = (0x811c9dc5 ^ seed) >>> 0;
  const ip = locateIp(frame);
  if (ip === undefined) return mixBytes(h, frame, 0, Math.min(frame.length, 14));
  const at = ip.offset;
  let protocol: number;
  let transport: number;
  let ported = true;
  if (ip.version === 4) {
    h = mixBytes(h, frame, at + 12, 8);
    protocol = frame[at + 9] as number;
    transport = at + ((frame[at] as number) & 0x0f) * 4;
    // A fragment other than the first carries no ports.
    if ((u16(frame, at + 6) & 0x1fff) !== 0) ported = false;
  } else {
    h = mixBytes(h, frame, at + 8, 32);
    protocol = frame[at + 6] as number;
    transport = at + 40;
    for (let hops = 0; hops < 8; hops++) {
      if (IPV6_EXTENSIONS.has(protocol) && frame.length >= transport + 8) {
        const next = frame[transport] as number;
        transport += ((frame[transport + 1] as number) + 1) * 8;
        protocol = next;
      } else if (protocol === IPV6_FRAGMENT && frame.length >= transport + 8) {
        if ((u16(frame, transport + 2) & 0xfff8) !== 0) ported = false;
        protocol = frame[transport] as number;
        transport += 8;
      } else break;
    }
  }
  h = mix(h, protocol);
  if (ported && PORTED.has(protocol) && frame.length >= transport + 4) h = mixBytes(h, frame, transport, 4);
  // A final avalanche: FNV's low bits alone spread poorly over a power-of-two table.
  h ^= h >>> 16;
  h = Math.imul(h, 0x85ebca6b) >>> 0;
  h ^= h >>> 13;
  return h >>> 0;
}
