import { tci } from "../../../src/domain/ethernet/frame.js";
import type { PortMode } from "../../../src/domain/switching/port.js";

export type Tag = readonly [tpid: number, tci: number];

export const Q = (vid: number, pcp = 0): Tag => [0x8100, tci(vid, pcp)];
export const AD = (vid: number, pcp = 0): Tag => [0x88a8, tci(vid, pcp)];
export const X9100 = (vid: number): Tag => [0x9100, tci(vid)];
export const X9200 = (vid: number): Tag => [0x9200, tci(vid)];

export const BROADCAST = 0xffffffffffff;

export const access = (vlan: number): PortMode => ({ kind: "access", vlan });
export const dot1q = (nativeVlan: number): PortMode => ({ kind: "dot1q", nativeVlan });
export const qinq = (outerVlan: number, ethertype: 0x8100 | 0x88a8 | 0x9100 | 0x9200 = 0x8100): PortMode => ({
  kind: "qinq",
  outerVlan,
  ethertype,
});

function macBytes(mac: number): number[] {
  const out: number[] = [];
  for (let i = 5; i >= 0; i--) out.push(Math.floor(mac / 2 ** (8 * i)) % 256);
  return out;
}

/** dst, src, the tags in order, ethertype 0x0800, then `payload` bytes 0, 1, 2... */
export function eth(dst: number, src: number, tags: readonly Tag[] = [], payload = 46): Uint8Array {
  const bytes: number[] = [...macBytes(dst), ...macBytes(src)];
  for (const [tpid, t] of tags) bytes.push(tpid >> 8, tpid & 0xff, t >> 8, t & 0xff);
  bytes.push(0x08, 0x00);
  for (let i = 0; i < payload; i++) bytes.push(i & 0xff);
  return Uint8Array.from(bytes);
}

export const hex = (b: Uint8Array): string => Buffer.from(b).toString("hex");
