import { expect } from "chai";
import {
  dstMac,
  formatMac,
  headerLength,
  isGroupAddress,
  isGroupMac,
  isTagTpid,
  macBigIntAt,
  parseMac,
  popTag,
  pushTag,
  readVid,
  srcMac,
  tci,
  withOuterVid,
} from "../../../src/domain/ethernet/frame.js";

const bytes = (...xs: number[]): Uint8Array => Uint8Array.from(xs);

describe("Ethernet frame helpers", () => {
  const frame = bytes(
    0x01, 0x00, 0x5e, 0x00, 0x00, 0xfb, // dst (multicast)
    0x02, 0xaa, 0xbb, 0xcc, 0xdd, 0xee, // src
    0x81, 0x00, 0xa0, 0x0a, // tag PCP 5, VID 10
    0x08, 0x00, 0x45, 0x00,
  );

  it("reads the destination and source MACs as exact 48-bit numbers and bigints", () => {
    expect(dstMac(frame)).to.equal(0x01005e0000fb);
    expect(srcMac(frame)).to.equal(0x02aabbccddee);
    expect(macBigIntAt(frame, 6)).to.equal(0x02aabbccddeen);
    expect(dstMac(bytes(0xff, 0xff, 0xff, 0xff, 0xff, 0xff))).to.equal(2 ** 48 - 1);
  });

  it("recognises group addresses by the I/G bit", () => {
    expect(isGroupAddress(frame, 0)).to.equal(true);
    expect(isGroupAddress(frame, 6)).to.equal(false);
    expect(isGroupMac(0xffffffffffff)).to.equal(true);
    expect(isGroupMac(0x01005e000001)).to.equal(true);
    expect(isGroupMac(0x005079666801)).to.equal(false);
  });

  it("treats exactly 0x8100, 0x88A8, 0x9100 and 0x9200 as tag TPIDs", () => {
    expect([0x8100, 0x88a8, 0x9100, 0x9200].every(isTagTpid)).to.equal(true);
    expect([0x0800, 0x86dd, 0x0806, 0x8101, 0x9300].some(isTagTpid)).to.equal(false);
  });

  it("reads the VID of the outer tag and builds a TCI from its parts", () => {
    expect(readVid(frame)).to.equal(10);
    expect(tci(10, 5)).to.equal(0xa00a);
    expect(tci(4094, 7, 1)).to.equal(0xfffe);
  });

  it("pushes a tag after the MACs and pops it back to the same bytes, leaving the input unchanged", () => {
    const untagged = bytes(1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12, 0x08, 0x06, 0xde, 0xad);
    const tagged = pushTag(untagged, 0x88a8, tci(100, 3));
    expect([...tagged]).to.deep.equal([1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12, 0x88, 0xa8, 0x60, 0x64, 0x08, 0x06, 0xde, 0xad]);
    expect([...popTag(tagged)]).to.deep.equal([...untagged]);
    expect(untagged.length).to.equal(16);
  });

  it("replaces the outer VID while keeping the TPID, PCP and DEI", () => {
    const prio = bytes(1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12, 0x91, 0x00, 0xf0, 0x00, 0x08, 0x00);
    expect([...withOuterVid(prio, 0x123).subarray(12, 16)]).to.deep.equal([0x91, 0x00, 0xf1, 0x23]);
    expect(prio[15]).to.equal(0);
  });

  it("measures the header through every stacked tag, and a frame cut inside its headers as all header", () => {
    expect(headerLength(frame)).to.equal(18);
    const stacked = new Uint8Array(30);
    stacked.set([0x88, 0xa8, 0, 10, 0x81, 0x00, 0, 20, 0x92, 0x00, 0, 30, 0x08, 0x00], 12);
    expect(headerLength(stacked)).to.equal(26);
    expect(headerLength(stacked.subarray(0, 17))).to.equal(17);
    expect(headerLength(new Uint8Array(13))).to.equal(13);
    expect(headerLength(new Uint8Array(60))).to.equal(14);
  });

  it("formats and parses MACs as aa:bb:cc:dd:ee:ff", () => {
    expect(formatMac(0x005079666801)).to.equal("00:50:79:66:68:01");
    expect(formatMac(2 ** 48 - 1)).to.equal("ff:ff:ff:ff:ff:ff");
    expect(parseMac("00:50:79:66:68:01")).to.equal(0x005079666801);
    expect(parseMac("AA-BB-CC-DD-EE-FF")).to.equal(0xaabbccddeeff);
    expect(parseMac("00:50:79:66:68")).to.equal(undefined);
  });
});
