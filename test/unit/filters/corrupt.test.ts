import { expect } from "chai";
import { CORRUPT_PATTERN, Corrupter, corruptionWindow } from "../../../src/domain/filters/corrupt.js";

function frameWith(tags: readonly (readonly [number, number])[], payload: number): Uint8Array {
  const bytes = [0, 0x50, 0x79, 0x66, 0x68, 1, 0, 0x50, 0x79, 0x66, 0x68, 2];
  for (const [tpid, tci] of tags) bytes.push(tpid >> 8, tpid & 0xff, tci >> 8, tci & 0xff);
  bytes.push(0x08, 0x00);
  for (let i = 0; i < payload; i++) bytes.push((i * 37) & 0xff);
  return Uint8Array.from(bytes);
}

function changedOffsets(a: Uint8Array, b: Uint8Array): number[] {
  const out: number[] = [];
  for (let i = 0; i < a.length; i++) if (a[i] !== b[i]) out.push(i);
  return out;
}

describe("Corruption", () => {
  it("XORs the middle quarter of an untagged frame's payload with the rolling pattern", () => {
    const frame = frameWith([], 50); // 64 bytes, payload 14..63
    expect(corruptionWindow(frame)).to.deep.equal({ start: 14 + 19, length: 12 });
    const out = new Corrupter().corrupt(frame);
    expect(changedOffsets(frame, out)).to.deep.equal(Array.from({ length: 12 }, (_, i) => 33 + i));
    for (let i = 0; i < 12; i++) expect(out[33 + i]! ^ frame[33 + i]!).to.equal(CORRUPT_PATTERN[i % 8]);
  });

  it("keeps the Ethernet header and every stacked tag, whatever its TPID, intact", () => {
    for (const tpid of [0x8100, 0x88a8, 0x9100, 0x9200]) {
      const frame = frameWith(
        [
          [tpid, 10],
          [0x8100, 20],
          [0x9200, 30],
        ],
        40,
      );
      const out = new Corrupter().corrupt(frame);
      const changed = changedOffsets(frame, out);
      expect(changed.length).to.be.greaterThan(0);
      expect(Math.min(...changed)).to.be.at.least(26);
    }
  });

  it("leaves a frame with no payload beyond its headers as it is", () => {
    const c = new Corrupter();
    for (const frame of [frameWith([], 0), frameWith([[0x8100, 5]], 0), new Uint8Array(10), new Uint8Array(0)]) {
      expect(c.corrupt(frame)).to.equal(frame);
    }
  });

  it("alters at least one byte of a one-byte payload", () => {
    const frame = frameWith([], 1);
    expect(changedOffsets(frame, new Corrupter().corrupt(frame))).to.deep.equal([14]);
  });

  it("keeps the pattern position running across frames, and restarts it in a new corrupter", () => {
    const c = new Corrupter();
    const frame = frameWith([], 20); // window of 5 bytes
    c.corrupt(frame);
    const second = c.corrupt(frame);
    const { start } = corruptionWindow(frame);
    expect(second[start]! ^ frame[start]!).to.equal(CORRUPT_PATTERN[5]);
    const fresh = new Corrupter().corrupt(frame);
    expect(fresh[start]! ^ frame[start]!).to.equal(CORRUPT_PATTERN[0]);
  });
});
