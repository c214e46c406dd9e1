/**
 * Ethernet frame helpers on raw bytes (a frame starts at the destination MAC, no preamble, no FCS).
 * Everything reads the bytes in place; only pushTag / popTag / withVid allocate (one buffer each).
 */

export const ETH_ADDR_LEN = 6;
/** Destination MAC + source MAC + ethertype: the shortest frame a switch accepts. */
export const ETH_HEADER_LEN = 14;
/** Offset of the ethertype (or of the first tag's TPID). */
export const ETHERTYPE_OFFSET = 12;
const TAG_LEN = 4;
/** A tagged frame must hold the MACs, the 4-byte tag and the inner ethertype. */
export const TAGGED_HEADER_LEN = ETH_HEADER_LEN + TAG_LEN;

export const TPID_8021Q = 0x8100;
const TPID_8021AD = 0x88a8;
const TPID_9100 = 0x9100;
const TPID_9200 = 0x9200;

export const VID_MASK = 0x0fff;
/** VID 0 = priority-tagged (no VLAN); VID 4095 is reserved and never carried. */
export const VID_PRIORITY = 0;
export const VID_RESERVED = 0x0fff;

/** The 16-bit value at `offset` (big-endian). The caller guarantees offset + 2 <= length. */
export function readU16(frame: Uint8Array, offset: number): number {
  return (frame[offset]! << 8) | frame[offset + 1]!;
}

/** One of the four TPIDs Dynamips and netemu treat as a VLAN tag: 0x8100, 0x88A8, 0x9100, 0x9200. */
export function isTagTpid(ethertype: number): boolean {
  return ethertype === TPID_8021Q || ethertype === TPID_8021AD || ethertype === TPID_9100 || ethertype === TPID_9200;
}

/** The 48-bit MAC at `offset` as an exact integer (below 2^53, so a plain number is exact). */
export function macAt(frame: Uint8Array, offset: number): number {
  const hi = (frame[offset]! << 8) | frame[offset + 1]!;
  const lo = ((frame[offset + 2]! << 24) | (frame[offset + 3]! << 16) | (frame[offset + 4]! << 8) | frame[offset + 5]!) >>> 0;
  return hi * 0x1_0000_0000 + lo;
}

export function dstMac(frame: Uint8Array): number {
  return macAt(frame, 0);
}

export function srcMac(frame: Uint8Array): number {
  return macAt(frame, ETH_ADDR_LEN);
}

/** The 48-bit MAC at `offset` as a bigint (for callers that prefer bigint keys). */
export function macBigIntAt(frame: Uint8Array, offset: number): bigint {
  return BigInt(macAt(frame, offset));
}

/** I/G bit of the first octet: set for multicast and broadcast addresses. */
export function isGroupAddress(frame: Uint8Array, offset = 0): boolean {
  return (frame[offset]! & 1) !== 0;
}

/** I/G bit of a MAC held as a 48-bit number. */
export function isGroupMac(mac: number): boolean {
  return Math.floor(mac / 0x100_0000_0000) % 2 === 1;
}

/** The TCI of the tag whose TPID sits at `tagOffset` (default: the first tag). */
function readTci(frame: Uint8Array, tagOffset: number = ETHERTYPE_OFFSET): number {
  return readU16(frame, tagOffset + 2);
}

/** The VLAN ID of the tag whose TPID sits at `tagOffset` (default: the first tag). */
export function readVid(frame: Uint8Array, tagOffset: number = ETHERTYPE_OFFSET): number {
  return readTci(frame, tagOffset) & VID_MASK;
}

/** A tag control field from its parts (PCP 0..7, DEI 0/1, VID 0..4095). */
export function tci(vid: number, pcp = 0, dei = 0): number {
  return ((pcp & 7) << 13) | ((dei & 1) << 12) | (vid & VID_MASK);
}

/** A new frame with a tag (tpid, tci) inserted after the MACs; the input is not changed. */
export function pushTag(frame: Uint8Array, tpid: number, tagTci: number): Uint8Array {
  const out = new Uint8Array(frame.length + TAG_LEN);
  out.set(frame.subarray(0, ETHERTYPE_OFFSET), 0);
  out[12] = tpid >>> 8;
  out[13] = tpid & 0xff;
  out[14] = (tagTci >>> 8) & 0xff;
  out[15] = tagTci & 0xff;
  out.set(frame.subarray(ETHERTYPE_OFFSET), ETHERTYPE_OFFSET + TAG_LEN);
  return out;
}

/**
 * A new frame without the 4 bytes after the MACs (the outer tag, whatever its TPID); nothing is
 * padded, so a 60-byte tagged frame becomes 56 bytes. The caller guarantees length >= 16.
 */
export function popTag(frame: Uint8Array): Uint8Array {
  const out = new Uint8Array(frame.length - TAG_LEN);
  out.set(frame.subarray(0, ETHERTYPE_OFFSET), 0);
  out.set(frame.subarray(ETHERTYPE_OFFSET + TAG_LEN), ETHERTYPE_OFFSET);
  return out;
}

/** A copy of a tagged frame whose outer VID is replaced (TPID, PCP and DEI kept). */
export function withOuterVid(frame: Uint8Array, vid: number): Uint8Array {
  const out = frame.slice();
  out[14] = (out[14]! & 0xf0) | ((vid >>> 8) & 0x0f);
  out[15] = vid & 0xff;
  return out;
}

/**
 * Length of the Ethernet header including every stacked tag (any of the four TPIDs) and the
 * final ethertype: 14, 18, 22... If the frame ends inside the headers, its whole length.
 */
export function headerLength(frame: Uint8Array): number {
  let offset = ETHERTYPE_OFFSET;
  for (;;) {
    if (offset + 2 > frame.length) return frame.length;
    if (!isTagTpid(readU16(frame, offset))) return offset + 2;
    offset += TAG_LEN;
  }
}

const HEX = Array.from({ length: 256 }, (_, i) => i.toString(16).padStart(2, "0"));

/** "aa:bb:cc:dd:ee:ff" of a 48-bit MAC number. */
export function formatMac(mac: number): string {
  const hi = Math.floor(mac / 0x1_0000_0000);
  const lo = mac >>> 0;
  return [
    HEX[(hi >>> 8) & 0xff],
    HEX[hi & 0xff],
    HEX[lo >>> 24],
    HEX[(lo >>> 16) & 0xff],
    HEX[(lo >>> 8) & 0xff],
    HEX[lo & 0xff],
  ].join(":");
}

/** The 48-bit number of "aa:bb:cc:dd:ee:ff" (also accepts "-" separators); undefined if malformed. */
export function parseMac(text: string): number | undefined {
  const m = /^([0-9a-f]{2})[:-]([0-9a-f]{2})[:-]([0-9a-f]{2})[:-]([0-9a-f]{2})[:-]([0-9a-f]{2})[:-]([0-9a-f]{2})$/i.exec(text);
  if (m === null) return undefined;
  let value = 0;
  for (let i = 1; i <= 6; i++) value = value * 256 + parseInt(m[i]!, 16);
  return value;
}
