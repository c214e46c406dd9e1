/** Ethernet frames carrying IPv4 or IPv6 with a chosen ECN codepoint, ports and VLAN tags (queueing tests). */

export interface FlowFrame {
  readonly version?: 4 | 6;
  /** The ECN codepoint (0 Not-ECT, 1 ECT(1), 2 ECT(0), 3 CE). */
  readonly ecn?: number;
  /** The DSCP bits above ECN. */
  readonly dscp?: number;
  readonly protocol?: number;
  readonly src?: number;
  readonly dst?: number;
  readonly sport?: number;
  readonly dport?: number;
  /** 802.1Q (0x8100) or QinQ (0x88a8) tags, outermost first: their TPID and VLAN ID. */
  readonly tags?: readonly { readonly tpid: number; readonly vid: number }[];
  /** Total frame length (padded with payload), at least the headers. */
  readonly length?: number;
  /** IPv4 identification and TTL (the flow does not depend on them). */
  readonly id?: number;
  readonly ttl?: number;
  /** The IPv4 fragment offset, in 8-byte units. */
  readonly fragmentOffset?: number;
  /** An IPv6 flow label. */
  readonly flowLabel?: number;
  readonly payloadByte?: number;
}

export function flowFrame(f: FlowFrame = {}): Uint8Array {
  const version = f.version ?? 4;
  const tags = f.tags ?? [];
  const ipHeader = version === 4 ? 20 : 40;
  const l2 = 14 + tags.length * 4;
  const length = Math.max(f.length ?? 100, l2 + ipHeader + 8);
  const b = new Uint8Array(length);
  b.set([0x02, 0, 0, 0, 0, 1, 0x02, 0, 0, 0, 0, 2], 0);
  let at = 12;
  for (const t of tags) {
    b[at] = t.tpid >> 8;
    b[at + 1] = t.tpid & 0xff;
    b[at + 2] = (t.vid >> 8) & 0x0f;
    b[at + 3] = t.vid & 0xff;
    at += 4;
  }
  const type = version === 4 ? 0x0800 : 0x86dd;
  b[at] = type >> 8;
  b[at + 1] = type & 0xff;
  const ip = at + 2;
  const tc = (((f.dscp ?? 0) & 0x3f) << 2) | ((f.ecn ?? 0) & 3);
  const protocol = f.protocol ?? 17;
  const ipLength = length - l2;
  if (version === 4) {
    b[ip] = 0x45;
    b[ip + 1] = tc;
    b[ip + 2] = ipLength >> 8;
    b[ip + 3] = ipLength & 0xff;
    b[ip + 4] = ((f.id ?? 0) >> 8) & 0xff;
    b[ip + 5] = (f.id ?? 0) & 0xff;
    const frag = f.fragmentOffset ?? 0;
    b[ip + 6] = (frag >> 8) & 0x1f;
    b[ip + 7] = frag & 0xff;
    b[ip + 8] = f.ttl ?? 64;
    b[ip + 9] = protocol;
    put32(b, ip + 12, f.src ?? 0x0a000001);
    put32(b, ip + 16, f.dst ?? 0x0a000002);
    const c = checksum(b, ip, 20);
    b[ip + 10] = c >> 8;
    b[ip + 11] = c & 0xff;
  } else {
    const label = f.flowLabel ?? 0;
    b[ip] = 0x60 | (tc >> 4);
    b[ip + 1] = ((tc & 0x0f) << 4) | ((label >> 16) & 0x0f);
    b[ip + 2] = (label >> 8) & 0xff;
    b[ip + 3] = label & 0xff;
    const payload = ipLength - 40;
    b[ip + 4] = payload >> 8;
    b[ip + 5] = payload & 0xff;
    b[ip + 6] = protocol;
    b[ip + 7] = f.ttl ?? 64;
    b[ip + 8] = 0xfd;
    put32(b, ip + 20, f.src ?? 1);
    b[ip + 24] = 0xfd;
    put32(b, ip + 36, f.dst ?? 2);
  }
  const l4 = ip + ipHeader;
  const sport = f.sport ?? 40000;
  const dport = f.dport ?? 5201;
  b[l4] = sport >> 8;
  b[l4 + 1] = sport & 0xff;
  b[l4 + 2] = dport >> 8;
  b[l4 + 3] = dport & 0xff;
  b.fill(f.payloadByte ?? 0xab, l4 + 8);
  return b;
}

function put32(b: Uint8Array, at: number, v: number): void {
  b[at] = (v >>> 24) & 0xff;
  b[at + 1] = (v >>> 16) & 0xff;
  b[at + 2] = (v >>> 8) & 0xff;
  b[at + 3] = v & 0xff;
}

function checksum(b: Uint8Array, at: number, length: number): number {
  let sum = 0;
  for (let i = 0; i < length; i += 2) if (i !== 10) sum += ((b[at + i] as number) << 8) | (b[at + i + 1] as number);
  while (sum > 0xffff) sum = (sum & 0xffff) + (sum >>> 16);
  return ~sum & 0xffff;
}
