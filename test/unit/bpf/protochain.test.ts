import { expect } from "chai";
import * as E from "fp-ts/lib/Either.js";
import { CHAIN_STEP_LIMIT } from "../../../src/domain/bpf/runtime.js";
import { compileExpression } from "../../../src/domain/bpf/index.js";
import { ethernet, ipv4Packet, ipv6Packet, tcpSegment, udpDatagram, vlanTag } from "../../support/bpf-frames.js";

const A = "02:00:00:00:00:01";
const B = "02:00:00:00:00:02";

function matches(expression: string, frame: Uint8Array): boolean {
  const m = compileExpression(expression);
  if (E.isLeft(m)) return expect.fail(`${expression}: ${m.left.message}`);
  return m.right(frame);
}

/** An IPv6 extension header of `units` 8-byte units after the first (hop-by-hop, routing, destination options). */
const ext6 = (next: number, units = 0): number[] => [next, units, ...new Array<number>(6 + units * 8).fill(0)];
const fragment6 = (next: number): number[] => [next, 0, 0, 0, 0, 0, 0, 1];
/** An AH header of `len` + 2 32-bit words. */
const ah = (next: number, len = 4): number[] => [next, len, 0, 0, ...new Array<number>(len * 4).fill(0xee)];

const v6 = (first: number, chain: number[]): Uint8Array => ethernet(A, B, 0x86dd, ipv6Packet(first, "2001:db8::1", "2001:db8::2", chain));

describe("protochain: the protocol at the end of the header chain", () => {
  it("walks IPv6 hop-by-hop, routing, fragment and destination options headers to the transport protocol", () => {
    const frame = v6(0, [...ext6(43, 1), ...ext6(44), ...fragment6(60), ...ext6(6), ...tcpSegment(1, 80)]);
    expect(matches("ip6 protochain 6", frame)).to.equal(true);
    expect(matches("protochain 6", frame)).to.equal(true);
    expect(matches("ip6 protochain 60", frame)).to.equal(true);
    expect(matches("ip6 protochain 17", frame)).to.equal(false);
    expect(matches("ip6 proto 6", frame)).to.equal(false);
    expect(matches("ip protochain 6", frame)).to.equal(false);
  });

  it("stops at 'no next header' (59) and at a protocol that is not an extension header", () => {
    expect(matches("ip6 protochain 6", v6(0, [...ext6(59), ...tcpSegment(1, 80)]))).to.equal(false);
    expect(matches("ip6 protochain 59", v6(0, [...ext6(59), ...tcpSegment(1, 80)]))).to.equal(true);
    expect(matches("ip6 protochain 6", v6(17, [...udpDatagram(1, 2), ...ext6(6)]))).to.equal(false);
  });

  it("does not match when the chain runs past the captured bytes", () => {
    const frame = v6(0, [...ext6(43, 1), ...ext6(6), ...tcpSegment(1, 80)]);
    expect(matches("ip6 protochain 6", frame.slice(0, 14 + 40 + 8 + 4))).to.equal(false);
  });

  it("reads the protocol after a second AH header where libpcap reads it: 4 * (length + 2) from the IP header", () => {
    // IPv4 header 20 bytes, AH at 20 (length 4, next AH), AH at 44 (next TCP); after the first AH libpcap
    // sets the offset to 24 (inside the first AH, whose SPI starts with 17) instead of 44
    const firstAh = [51, 4, 0, 0, 17, 0, 0, 0, ...new Array<number>(16).fill(0)];
    const frame = ethernet(A, B, 0x0800, ipv4Packet(51, "10.0.0.1", "10.0.0.2", [...firstAh, ...ah(6), ...tcpSegment(1, 80)]));
    expect(matches("ip protochain 17", frame)).to.equal(true);
    expect(matches("ip protochain 6", frame)).to.equal(false);
    const oneAh = ethernet(A, B, 0x0800, ipv4Packet(51, "10.0.0.1", "10.0.0.2", [...ah(6), ...tcpSegment(1, 80)]));
    expect(matches("ip protochain 6", oneAh)).to.equal(true);
    expect(matches("ip6 protochain 51", v6(51, [...ah(6), ...tcpSegment(1, 80)]))).to.equal(true);
  });

  it("gives up, without a match, on a chain of AH headers that loops (libpcap never ends on it)", () => {
    // AH at offset 20 with length 3 points back at offset 20
    const looping = ethernet(A, B, 0x0800, ipv4Packet(51, "10.0.0.1", "10.0.0.2", [51, 3, 0, 0, ...new Array<number>(40).fill(0)]));
    expect(CHAIN_STEP_LIMIT).to.be.greaterThan(100);
    expect(matches("ip protochain 6", looping)).to.equal(false);
    expect(matches("not ip protochain 6", looping)).to.equal(false);
  });

  it("follows the offsets of vlan written before it", () => {
    const tagged = ethernet(A, B, 0x8100, vlanTag(10, 0x86dd, ipv6Packet(0, "::1", "::2", [...ext6(6), ...tcpSegment(1, 80)])));
    expect(matches("vlan 10 and ip6 protochain 6", tagged)).to.equal(true);
    expect(matches("ip6 protochain 6", tagged)).to.equal(false);
  });

  it("turns libpcap's optimiser off: a never-matching expression with protochain is accepted, as libpcap accepts it", () => {
    const r = compileExpression("ip protochain 6 and ip and arp");
    if (E.isLeft(r)) expect.fail(r.left.message);
    expect(r.right(v6(6, tcpSegment(1, 80)))).to.equal(false);
  });

  it("runs the arithmetic as written, loads included, since libpcap does not optimise (ip[60] & 0 still loads)", () => {
    const short = v6(6, tcpSegment(1, 80));
    expect(short.length).to.be.lessThan(14 + 61);
    expect(matches("ip6 protochain 6", short)).to.equal(true);
    expect(matches("ip6 protochain 6 and ether[60] & 0 = 0", short)).to.equal(true);
    expect(matches("ip6 protochain 6 and ether[80] & 0 = 0", short)).to.equal(false);
    expect(matches("ip6 and ether[80] & 0 = 0", short)).to.equal(true);
  });

  it("refuses other protocols and directions with libpcap's messages", () => {
    const refusal = (e: string): string => {
      const r = compileExpression(e);
      return E.isLeft(r) ? r.left.message : "accepted";
    };
    expect(refusal("tcp protochain 6")).to.equal("bad protocol applied for 'protochain'");
    expect(refusal("ether protochain 6")).to.equal("bad protocol applied for 'protochain'");
    expect(refusal("src protochain 6")).to.equal("can't parse filter expression: syntax error");
  });
});
