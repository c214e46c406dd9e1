import { headerLength } from "../ethernet/frame.js";

/** uBridge's corruption pattern; every byte is non-zero, so an XORed byte always changes. */
export const CORRUPT_PATTERN: readonly number[] = [0x64, 0x13, 0x88, 0x40, 0x1f, 0xa0, 0xaa, 0x55];

/**
 * The bytes corruption alters: the middle quarter (at least one byte) of the payload that follows
 * the Ethernet header and every stacked VLAN tag. Empty when there is no payload.
 */
export function corruptionWindow(frame: Uint8Array): { readonly start: number; readonly length: number } {
  const header = headerLength(frame);
  const payload = frame.length - header;
  if (payload <= 0) return { start: frame.length, length: 0 };
  const length = Math.max(1, Math.floor(payload / 4));
  const start = header + Math.floor((payload - length) / 2);
  return { start, length };
}

/**
 * XORs corruption into frames with a rolling pattern whose position keeps running across frames
 * (as uBridge's does); a new Corrupter starts the pattern again.
 */
export class Corrupter {
  private index = 0;

  /** Where the pattern stands (0..7): carried when a node moves (ADR 0069). */
  get position(): number {
    return this.index;
  }
  set position(index: number) {
    if (Number.isInteger(index)) this.index = index & 7;
  }

  /**
   * A corrupted copy of `frame` (the input is never changed: it may be shared with other ports), or
   * the frame itself when it has no payload beyond its headers.
   */
  corrupt(frame: Uint8Array): Uint8Array {
    const { start, length } = corruptionWindow(frame);
    if (length === 0) return frame;
    const out = frame.slice();
    const pattern = CORRUPT_PATTERN;
    let index = this.index;
    for (let i = start, end = start + length; i < end; i++) {
      out[i] = out[i]! ^ pattern[index]!;
      index = (index + 1) & 7;
    }
    this.index = index;
    return out;
  }
}
