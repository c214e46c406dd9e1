/**
 * Deterministic (seeded) generator of varied Ethernet frames for the BPF differential test, and a classic
 * pcap writer. The mix covers what pcap-filter expressions look at: ARP/RARP, IPv4 (with options, first and
 * later fragments) and IPv6 (with fragment and hop-by-hop headers) carrying TCP, UDP, ICMP, ICMPv6, SCTP,
 * IGMP and other protocols; 802.1Q / 802.1ad / 0x9100 tags, stacked; MPLS label stacks; PPPoE; 802.3 frames
 * with LLC and SNAP (STP, IS-IS, CLNP, ES-IS, IPX, NetBEUI, AppleTalk); DECnet and other EtherTypes;
 * broadcast and multicast addresses; runts, truncated captures (caplen < len) and jumbo frames. A second mix
 * has IPv4 AH and IPv6 extension-header chains (hop-by-hop, routing, fragment, destination options, AH) and
 * Geneve tunnels with options and inner frames, for `protochain` and `geneve`.
 */

export interface CapturedFrame {
  /** the captured bytes (caplen = data.length) */
  readonly data: Uint8Array;
  /** the frame's length on the wire (>= data.length) */
  readonly wireLength: number;
}

/** mulberry32: a small, fast, seeded PRNG */
export class Rng {
  private state: number;
  constructor(seed: number) {
    this.state = seed >>> 0;
  }
  next(): number {
    this.state = (this.state + 0x6d2b79f5) >>> 0;
    let t = this.state;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  }
  int(n: number): number {
    return Math.floor(this.next() * n);
  }
  range(lo: number, hi: number): number {
    return lo + this.int(hi - lo + 1);
  }
  chance(p: number): boolean {
    return this.next() < p;
  }
  pick<T>(xs: readonly T[]): T {
    return xs[this.int(xs.length)] as T;
  }
  bytes(n: number): number[] {
    return Array.from({ length: n }, () => this.int(256));
  }
}

export const MAC_POOL: readonly string[] = [
  "00:11:22:33:44:55", "02:00:00:00:00:01", "02:00:00:00:00:02", "ff:ff:ff:ff:ff:ff", "01:00:5e:00:00:01",
  "33:33:00:00:00:01", "aa:bb:cc:dd:ee:ff", "01:80:c2:00:00:00", "09:00:2b:00:00:0f", "aa:00:04:00:02:04",
];
export const IPV4_POOL: readonly string[] = [
  "10.0.0.1", "10.0.0.2", "10.1.2.3", "10.255.255.255", "192.168.1.1", "192.168.1.255", "172.16.5.4", "1.2.3.4",
  "224.0.0.1", "239.255.255.250", "255.255.255.255", "0.0.0.0", "8.8.8.8", "127.0.0.1", "169.254.1.1", "0.0.0.10",
];
export const IPV6_POOL: readonly string[] = [
  "::1", "fe80::1", "2001:db8::1", "2001:db8::2", "ff02::1", "ff02::1:ff00:1", "2001:db8:1::5", "::",
  "2001:db8:ffff::1", "fe80::200:ff:fe00:1",
];
export const PORT_POOL: readonly number[] = [20, 21, 22, 23, 25, 53, 67, 68, 80, 123, 161, 443, 8080, 5672, 1024, 0, 65535, 3000];

const macBytes = (s: string): number[] => s.split(":").map((x) => parseInt(x, 16));
const ipv4Bytes = (s: string): number[] => s.split(".").map(Number);
function ipv6Bytes(s: string): number[] {
  const [l = "", r] = s.split("::");
  const groups = (x: string): number[] => (x === "" ? [] : x.split(":").map((g) => parseInt(g, 16)));
  const left = groups(l);
  const right = r === undefined ? [] : groups(r);
  const all = r === undefined ? left : [...left, ...new Array<number>(8 - left.length - right.length).fill(0), ...right];
  return all.flatMap((g) => [g >> 8, g & 0xff]);
}
const u16 = (v: number): number[] => [(v >> 8) & 0xff, v & 0xff];
const u32 = (v: number): number[] => [(v >>> 24) & 0xff, (v >>> 16) & 0xff, (v >>> 8) & 0xff, v & 0xff];

class Gen {
  constructor(private readonly r: Rng) {}

  mac(): number[] {
    return this.r.chance(0.8) ? macBytes(this.r.pick(MAC_POOL)) : this.r.bytes(6);
  }
  ip4(): number[] {
    return this.r.chance(0.85) ? ipv4Bytes(this.r.pick(IPV4_POOL)) : this.r.bytes(4);
  }
  ip6(): number[] {
    return this.r.chance(0.85) ? ipv6Bytes(this.r.pick(IPV6_POOL)) : this.r.bytes(16);
  }
  port(): number {
    return this.r.chance(0.8) ? this.r.pick(PORT_POOL) : this.r.int(65536);
  }

  /** a transport header + payload for IP protocol `proto` */
  transport(proto: number): number[] {
    const r = this.r;
    const payload = r.bytes(r.pick([0, 0, 4, 10, 30, 100]));
    switch (proto) {
      case 6: {
        const flags = r.chance(0.5) ? r.pick([0x02, 0x12, 0x10, 0x18, 0x11, 0x04, 0x14, 0x01, 0xc2]) : r.int(256);
        const off = r.chance(0.8) ? 5 : r.range(5, 8);
        const opts = r.bytes((off - 5) * 4);
        return [...u16(this.port()), ...u16(this.port()), ...u32(r.int(2 ** 32)), ...u32(r.int(2 ** 32)),
          (off << 4), flags, ...u16(r.int(65536)), 0, 0, 0, 0, ...opts, ...payload];
      }
      case 17:
        return [...u16(this.port()), ...u16(this.port()), ...u16(8 + payload.length), 0, 0, ...payload];
      case 132:
        return [...u16(this.port()), ...u16(this.port()), ...u32(r.int(2 ** 32)), 0, 0, 0, 0, ...payload];
      case 1: {
        const type = r.pick([0, 3, 4, 5, 8, 9, 10, 11, 12, 13, 14, 15, 16, 17, 18, r.int(256)]);
        return [type, r.pick([0, 0, 1, 3, 13]), 0, 0, ...r.bytes(4), ...payload];
      }
      case 58: {
        const type = r.pick([1, 2, 3, 4, 128, 129, 130, 131, 133, 134, 135, 136, 137, 143, r.int(256)]);
        return [type, r.pick([0, 0, 1, 4]), 0, 0, ...r.bytes(4), ...payload];
      }
      case 2:
        return [r.pick([0x11, 0x16, 0x17, 0x22]), 0, 0, 0, ...this.ip4(), ...payload];
      default:
        return [...r.bytes(8), ...payload];
    }
  }

  ipProto(): number {
    return this.r.pick([6, 6, 6, 17, 17, 17, 1, 1, 132, 2, 47, 50, 51, 103, 112, 9, 0, 41, 89, this.r.int(256)]);
  }

  ipv4(): number[] {
    const r = this.r;
    const proto = this.ipProto();
    const ihl = r.chance(0.8) ? 5 : r.range(6, 15);
    const options = r.bytes((ihl - 5) * 4);
    let fragField = r.chance(0.5) ? 0x4000 : 0;
    if (r.chance(0.15)) fragField = 0x2000; // first fragment (MF, offset 0)
    if (r.chance(0.15)) fragField = (r.chance(0.5) ? 0x2000 : 0) | r.range(1, 0x1fff); // later fragment
    const body = this.transport(proto);
    const total = ihl * 4 + body.length;
    const version = r.chance(0.97) ? 4 : r.int(16);
    return [(version << 4) | ihl, r.int(256), ...u16(total), ...u16(r.int(65536)), ...u16(fragField), r.range(1, 255),
      proto, 0, 0, ...this.ip4(), ...this.ip4(), ...options, ...body];
  }

  ipv6Frame(): number[] {
    // choose the first next-header explicitly so that fragment/hop-by-hop chains are visible to filters
    const r = this.r;
    const kind = r.pick(["plain", "plain", "plain", "frag", "hbh"] as const);
    let proto = r.pick([6, 17, 58, 58, 132, 50, 51, 103, 59, r.int(256)]);
    let ext: number[] = [];
    let first = proto;
    if (kind === "frag") {
      const fragOff = r.chance(0.5) ? 0 : r.range(1, 0x1fff);
      ext = [proto, 0, ...u16((fragOff << 3) | (r.chance(0.5) ? 1 : 0)), ...u32(r.int(2 ** 32))];
      first = 44;
    } else if (kind === "hbh") {
      const inner = r.chance(0.3) ? 44 : proto;
      ext = [inner, 0, ...r.bytes(6)];
      if (inner === 44) {
        ext.push(proto, 0, ...u16(0), ...u32(r.int(2 ** 32)));
      }
      first = 0;
    }
    if (proto === 59) proto = 255;
    const body = [...ext, ...this.transport(proto)];
    return [0x60 | r.int(16), r.int(256), ...u16(r.int(65536)), ...u16(body.length), first, r.range(1, 255),
      ...this.ip6(), ...this.ip6(), ...body];
  }

  arp(): number[] {
    const r = this.r;
    return [0, 1, 8, 0, 6, 4, 0, r.pick([1, 2, 3, 4]), ...this.mac(), ...this.ip4(), ...this.mac(), ...this.ip4()];
  }

  decnet(): number[] {
    const r = this.r;
    const addr = (): number[] => {
      const area = r.pick([1, 2, 63, r.int(64)]);
      const node = r.pick([2, 4, 1023, r.int(1024)]);
      const v = (area << 10) | node;
      return [v & 0xff, v >> 8];
    };
    const pad = r.chance(0.5);
    const long = r.chance(0.5);
    const flags = long ? 0x06 : 0x02;
    const head = [...u16(r.range(10, 60))];
    if (pad) head.push(0x81);
    if (long) {
      return [...head, flags, 0, 0, 0, 0, 0, 0, ...addr(), 0, 0, 0, 0, 0, 0, ...addr(), ...r.bytes(12)];
    }
    return [...head, flags, ...addr(), ...addr(), ...r.bytes(8)];
  }

  llc(): number[] {
    const r = this.r;
    const ctl = r.pick([0x03, 0x03, 0x00, 0x02, 0x01, 0x05, 0x09, 0x63, 0x43, 0x0f, 0x6f, 0xe3, 0xaf, 0x87, 0xf3, r.int(256)]);
    switch (r.int(9)) {
      case 0: return [0x42, 0x42, 0x03, 0, 0, 0, ...r.bytes(30)];
      case 1: return [0xfe, 0xfe, 0x03, r.pick([0x81, 0x82, 0x83, 0x83, 0x83]), 27, 1, 0, r.pick([15, 16, 17, 18, 20, 24, 25, 26, 27, r.int(32)]), ...r.bytes(20)];
      case 2: return [0xe0, 0xe0, 0x03, ...r.bytes(30)];
      case 3: return [0xff, 0xff, ...r.bytes(30)];
      case 4: return [0xf0, 0xf0, ctl, ...r.bytes(20)];
      case 5: {
        const snap = r.pick([[0x08, 0x00, 0x07, 0x80, 0x9b], [0, 0, 0, 0x80, 0xf3], [0, 0, 0, 0x81, 0x37], [0, 0, 0, 0x08, 0x00], [0, 0, 0x0c, 0x20, 0x00]]);
        return [0xaa, 0xaa, 0x03, ...snap, ...r.bytes(30)];
      }
      case 6: return [0x06, 0x06, 0x03, ...this.ipv4()];
      case 7: return [r.int(256), r.int(256), ctl, ...r.bytes(20)];
      default: return [r.pick([0x42, 0xfe, 0xe0, 0xf0, 0xaa, 0x06]), r.int(256), ctl, ...r.bytes(20)];
    }
  }

  /** An IPv4 or IPv6 packet whose header chain ends (or not) at a transport protocol: what `protochain` walks. */
  chainPacket(v6: boolean): number[] {
    const r = this.r;
    const final = r.pick([6, 6, 17, 17, 58, 59, 132, 1, 50, 51, r.int(256)]);
    const kinds: number[] = [];
    const depth = r.pick([0, 1, 1, 2, 2, 3, 4]);
    for (let i = 0; i < depth; i++) kinds.push(v6 ? r.pick([0, 43, 44, 60, 51, 0, 60]) : 51);
    const nexts = [...kinds.slice(1), final];
    const ext: number[] = [];
    kinds.forEach((kind, i) => {
      const nh = nexts[i] as number;
      if (kind === 44) ext.push(nh, r.chance(0.9) ? 0 : r.int(4), ...u16(r.int(65536)), ...u32(r.int(2 ** 32)));
      else if (kind === 51) {
        const len = r.chance(0.7) ? 4 : r.range(1, 6);
        ext.push(nh, len, 0, 0, ...(r.chance(0.5) ? [r.pick([6, 17, 51, 0, 59]), ...r.bytes(3)] : r.bytes(4)), ...r.bytes(len * 4 - 4));
      } else {
        const len = r.pick([0, 0, 1, 2]);
        ext.push(nh, len, ...r.bytes(6 + len * 8));
      }
    });
    const body = [...ext, ...this.transport(final === 59 ? 255 : final)];
    const first = kinds[0] ?? final;
    if (v6) {
      return [0x60, 0, 0, 0, ...u16(body.length), first, 64, ...this.ip6(), ...this.ip6(), ...body];
    }
    const ihl = r.chance(0.8) ? 5 : r.range(6, 8);
    return [0x40 | ihl, 0, ...u16(ihl * 4 + body.length), 0, 1, ...u16(r.chance(0.9) ? 0 : 0x2000), 64, first, 0, 0,
      ...this.ip4(), ...this.ip4(), ...r.bytes((ihl - 5) * 4), ...body];
  }

  /** A Geneve packet (UDP port 6081) with options, carrying an Ethernet frame or something else (sometimes
   * itself inside MPLS or PPPoE, see chainOrTunnelFrame). */
  genevePacket(nested = 0): { type: number; payload: number[] } {
    const r = this.r;
    const inner = nested < 1 && r.chance(0.2) ? this.genevePacket(nested + 1) : this.l3(2);
    const ethernetInside = r.chance(0.75);
    const innerBytes = ethernetInside ? [...this.mac(), ...this.mac(), ...u16(inner.type), ...inner.payload] : inner.payload;
    const optWords = r.pick([0, 0, 1, 2, 5]);
    const options: number[] = [];
    for (let left = optWords; left > 0; ) {
      const len = Math.min(left - 1, r.int(3));
      options.push(...u16(r.int(65536)), r.int(256), len & 0x1f, ...r.bytes(len * 4));
      left -= len + 1;
    }
    const version = r.chance(0.9) ? 0 : r.range(1, 3);
    const vni = r.chance(0.6) ? r.pick([0, 1, 100, 0xffffff]) : r.int(1 << 24);
    const geneve = [(version << 6) | optWords, r.pick([0, 0, 0x80, 0x40]), ...u16(ethernetInside ? 0x6558 : inner.type),
      ...u32((vni << 8) >>> 0), ...options, ...innerBytes];
    const udp = [...u16(this.port()), ...u16(r.chance(0.9) ? 6081 : this.port()), ...u16(8 + geneve.length), 0, 0, ...geneve];
    if (r.chance(0.7)) {
      return { type: 0x0800, payload: [0x45, 0, ...u16(20 + udp.length), 0, 1, ...u16(r.chance(0.9) ? 0 : 0x2001), 64, 17, 0, 0,
        ...this.ip4(), ...this.ip4(), ...udp] };
    }
    return { type: 0x86dd, payload: [0x60, 0, 0, 0, ...u16(udp.length), 17, 64, ...this.ip6(), ...this.ip6(), ...udp] };
  }

  /** A frame for the header-chain and tunnel expressions (protochain, geneve). */
  chainOrTunnelFrame(): CapturedFrame {
    const r = this.r;
    let type: number;
    let payload: number[];
    if (r.chance(0.4)) {
      ({ type, payload } = this.genevePacket());
      const wrap = r.int(10);
      if (wrap === 0) {
        payload = [...u32(((r.pick([16, 100]) << 12) | 0x100 | 64) >>> 0), ...payload];
        type = 0x8847;
      } else if (wrap === 1) {
        const ppp = type === 0x0800 ? 0x0021 : 0x0057;
        payload = [0x11, 0, ...u16(r.pick([1, 0x1234])), ...u16(payload.length + 2), ...u16(ppp), ...payload];
        type = 0x8864;
      }
    } else {
      const v6 = r.chance(0.6);
      type = v6 ? 0x86dd : 0x0800;
      payload = this.chainPacket(v6);
    }
    if (r.chance(0.15)) {
      payload = [...u16(r.pick([10, 20])), ...u16(type), ...payload];
      type = 0x8100;
    }
    const data = Uint8Array.from([...this.mac(), ...this.mac(), ...u16(type), ...payload]);
    if (r.chance(0.1) && data.length > 15) return { data: data.slice(0, r.range(14, data.length - 1)), wireLength: data.length };
    return { data, wireLength: data.length };
  }

  /** an EtherType and its payload */
  l3(depth = 0): { type: number; payload: number[] } {
    const r = this.r;
    const kind = r.int(100);
    if (kind < 30) return { type: 0x0800, payload: this.ipv4() };
    if (kind < 48) return { type: 0x86dd, payload: this.ipv6Frame() };
    if (kind < 54) return { type: 0x0806, payload: this.arp() };
    if (kind < 57) return { type: 0x8035, payload: this.arp() };
    if (kind < 65 && depth < 3) {
      const tpid = r.pick([0x8100, 0x8100, 0x88a8, 0x9100]);
      const inner = this.l3(depth + 1);
      const tci = (r.int(8) << 13) | (r.chance(0.7) ? r.pick([1, 10, 20, 100, 4095, 0]) : r.int(4096));
      return { type: tpid, payload: [...u16(tci), ...u16(inner.type), ...inner.payload] };
    }
    if (kind < 71) {
      const labels = r.range(1, 3);
      const out: number[] = [];
      for (let i = 0; i < labels; i++) {
        const label = r.chance(0.7) ? r.pick([0, 3, 16, 100, 1048575, 5]) : r.int(1 << 20);
        const bos = i === labels - 1 ? (r.chance(0.9) ? 1 : 0) : r.chance(0.1) ? 1 : 0;
        out.push(...u32(((label << 12) | (r.int(8) << 9) | (bos << 8) | 64) >>> 0));
      }
      const inner = r.chance(0.5) ? this.ipv4() : r.chance(0.7) ? this.ipv6Frame() : r.bytes(20);
      return { type: r.chance(0.9) ? 0x8847 : 0x8848, payload: [...out, ...inner] };
    }
    if (kind < 74) {
      const pppProto = r.pick([0x0021, 0x0057, 0x0281, 0xc021, 0x0027]);
      const inner = pppProto === 0x0021 ? this.ipv4() : pppProto === 0x0057 ? this.ipv6Frame() : r.bytes(20);
      return { type: 0x8864, payload: [0x11, 0, ...u16(r.pick([1, 3, 0x1234, r.int(65536)])), ...u16(inner.length + 2), ...u16(pppProto), ...inner] };
    }
    if (kind < 75) return { type: 0x8863, payload: [0x11, 0x09, 0, 0, 0, 4, ...r.bytes(4)] };
    if (kind < 78) return { type: 0x6003, payload: this.decnet() };
    if (kind < 82) {
      const t = r.pick([0x809b, 0x80f3, 0x8137, 0x6004, 0x6007, 0x6001, 0x6002, 0x9000, 0x0600, 0x88cc, 0x22f0, 0x8863]);
      return { type: t, payload: r.bytes(r.range(10, 60)) };
    }
    if (kind < 96) {
      const body = this.llc();
      return { type: Math.min(body.length, 1500), payload: body };
    }
    return { type: r.int(65536), payload: r.bytes(r.range(0, 60)) };
  }

  frame(): CapturedFrame {
    const r = this.r;
    const special = r.int(100);
    if (special < 3) {
      const bytes = r.bytes(r.range(1, 13));
      return { data: Uint8Array.from(bytes), wireLength: bytes.length };
    }
    const dst = this.mac();
    const src = this.mac();
    const { type, payload } = this.l3();
    let bytes = [...dst, ...src, ...u16(type), ...payload];
    if (special < 5) bytes = [...bytes, ...r.bytes(9000 - bytes.length)];
    else if (r.chance(0.2) && bytes.length < 60) bytes = [...bytes, ...new Array<number>(60 - bytes.length).fill(0)];
    const data = Uint8Array.from(bytes);
    if (special >= 5 && special < 17 && data.length > 1) {
      const caplen = r.range(1, data.length - 1);
      return { data: data.slice(0, caplen), wireLength: data.length };
    }
    return { data, wireLength: data.length };
  }
}

/** `count` frames from `seed`: the same arguments always give the same frames. */
export function generateFrames(count: number, seed = 20240601): CapturedFrame[] {
  const gen = new Gen(new Rng(seed));
  return Array.from({ length: count }, () => gen.frame());
}

/**
 * libpcap's protochain walk never ends on a frame whose AH headers lead back to themselves (its offset after
 * AH is absolute); such frames would hang tcpdump, so the generator leaves them out. An independent walk of
 * the chain from the network header at `nl`, true when it ends.
 */
function chainWalkEnds(p: Uint8Array, nl: number, v6: boolean): boolean {
  let a = p[nl + (v6 ? 6 : 9)];
  let x = v6 ? 40 : ((p[nl] ?? 0) & 15) * 4;
  const seen = new Set<string>();
  while (a !== undefined) {
    const ext = v6 && [0, 60, 43, 44].includes(a);
    if (!ext && a !== 51) return true;
    const state = `${a}/${x}`;
    if (seen.has(state)) return false;
    seen.add(state);
    const next = p[nl + x];
    const len = p[nl + x + 1];
    if (next === undefined || len === undefined) return true;
    x = ext ? x + (len + 1) * 8 : (len + 2) * 4;
    a = next;
  }
  return true;
}

/** Whether every IPv4/IPv6 header chain of the frame (behind up to one VLAN tag) can be walked to its end. */
function chainsEnd(f: CapturedFrame): boolean {
  const p = f.data;
  const tagged = p[12] === 0x81 && p[13] === 0x00;
  const nl = tagged ? 18 : 14;
  return chainWalkEnds(p, nl, false) && chainWalkEnds(p, nl, true);
}

/** `count` frames with IPv4 AH and IPv6 extension-header chains, and Geneve tunnels (seeded, like generateFrames). */
export function generateChainAndTunnelFrames(count: number, seed = 20261122): CapturedFrame[] {
  const gen = new Gen(new Rng(seed));
  const out: CapturedFrame[] = [];
  while (out.length < count) {
    const f = gen.chainOrTunnelFrame();
    if (chainsEnd(f)) out.push(f);
  }
  return out;
}

/** A classic little-endian, microsecond pcap file with link type 1 (Ethernet). */
export function writePcap(frames: readonly CapturedFrame[]): Uint8Array {
  const size = 24 + frames.reduce((n, f) => n + 16 + f.data.length, 0);
  const buf = new Uint8Array(size);
  const dv = new DataView(buf.buffer);
  dv.setUint32(0, 0xa1b2c3d4, true);
  dv.setUint16(4, 2, true);
  dv.setUint16(6, 4, true);
  dv.setUint32(16, 65535, true);
  dv.setUint32(20, 1, true);
  let off = 24;
  frames.forEach((f, i) => {
    dv.setUint32(off, 1_700_000_000 + i, true);
    dv.setUint32(off + 4, 0, true);
    dv.setUint32(off + 8, f.data.length, true);
    dv.setUint32(off + 12, f.wireLength, true);
    buf.set(f.data, off + 16);
    off += 16 + f.data.length;
  });
  return buf;
}

// ---- small builders for unit tests -------------------------------------------------------------------

/** An Ethernet frame: destination MAC, source MAC, EtherType (or 802.3 length) and payload. */
export function ethernet(dst: string, src: string, type: number, payload: readonly number[]): Uint8Array {
  return Uint8Array.from([...macBytes(dst), ...macBytes(src), ...u16(type), ...payload]);
}

/** An 802.1Q-style tag (TPID is the EtherType passed to `ethernet`): TCI then the inner EtherType. */
export function vlanTag(vid: number, innerType: number, payload: readonly number[]): number[] {
  return [...u16(vid & 0x0fff), ...u16(innerType), ...payload];
}

/** An IPv4 header (with `optionWords` 4-byte option words) followed by `body`. */
export function ipv4Packet(
  proto: number,
  src: string,
  dst: string,
  body: readonly number[],
  opts: { readonly optionWords?: number; readonly fragment?: number } = {},
): number[] {
  const words = opts.optionWords ?? 0;
  const ihl = 5 + words;
  return [0x40 | ihl, 0, ...u16(ihl * 4 + body.length), 0, 1, ...u16(opts.fragment ?? 0), 64, proto, 0, 0,
    ...ipv4Bytes(src), ...ipv4Bytes(dst), ...new Array<number>(words * 4).fill(1), ...body];
}

/** An IPv6 header with next header `nh` followed by `body`. */
export function ipv6Packet(nh: number, src: string, dst: string, body: readonly number[]): number[] {
  return [0x60, 0, 0, 0, ...u16(body.length), nh, 64, ...ipv6Bytes(src), ...ipv6Bytes(dst), ...body];
}

/** A TCP header (20 bytes) with the given ports and flags. */
export function tcpSegment(sport: number, dport: number, flags = 0x02): number[] {
  return [...u16(sport), ...u16(dport), 0, 0, 0, 1, 0, 0, 0, 0, 0x50, flags, 0xff, 0xff, 0, 0, 0, 0];
}

/** A UDP header (8 bytes) with the given ports and payload. */
export function udpDatagram(sport: number, dport: number, payload: readonly number[] = []): number[] {
  return [...u16(sport), ...u16(dport), ...u16(8 + payload.length), 0, 0, ...payload];
}

/** An ICMP message of the given type and code. */
export function icmpMessage(type: number, code = 0): number[] {
  return [type, code, 0, 0, 0, 1, 0, 1];
}

/** An ARP request/reply (Ethernet/IPv4). */
export function arpPacket(op: number, senderMac: string, senderIp: string, targetMac: string, targetIp: string): number[] {
  return [0, 1, 8, 0, 6, 4, 0, op, ...macBytes(senderMac), ...ipv4Bytes(senderIp), ...macBytes(targetMac), ...ipv4Bytes(targetIp)];
}

/** An MPLS label stack entry. */
export function mplsLabel(label: number, bottom: boolean): number[] {
  return u32(((label << 12) | (bottom ? 0x100 : 0) | 64) >>> 0);
}
