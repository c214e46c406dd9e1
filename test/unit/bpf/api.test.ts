import { expect } from "chai";
import * as E from "fp-ts/lib/Either.js";
import { compileExpression, compileExpressionLines } from "../../../src/domain/bpf/index.js";
import {
  arpPacket, ethernet, icmpMessage, ipv4Packet, ipv6Packet, mplsLabel, tcpSegment, udpDatagram, vlanTag,
} from "../../support/bpf-frames.js";

const A = "02:00:00:00:00:01";
const B = "02:00:00:00:00:02";
const icmpEcho = ethernet(A, B, 0x0800, ipv4Packet(1, "10.0.0.1", "10.0.0.2", icmpMessage(8)));
const httpSyn = ethernet(A, B, 0x0800, ipv4Packet(6, "10.0.0.1", "10.0.0.2", tcpSegment(40000, 80)));
const httpSynWithOptions = ethernet(A, B, 0x0800, ipv4Packet(6, "10.0.0.1", "10.0.0.2", tcpSegment(40000, 80), { optionWords: 3 }));
const laterFragment = ethernet(A, B, 0x0800, ipv4Packet(6, "10.0.0.1", "10.0.0.2", tcpSegment(40000, 80), { fragment: 0x2010 }));
const dns6 = ethernet(A, B, 0x86dd, ipv6Packet(17, "2001:db8::1", "2001:db8::2", udpDatagram(5353, 53)));
const arpRequest = ethernet("ff:ff:ff:ff:ff:ff", B, 0x0806, arpPacket(1, B, "10.0.0.2", "00:00:00:00:00:00", "10.0.0.1"));
const taggedArp = ethernet("ff:ff:ff:ff:ff:ff", B, 0x8100, vlanTag(10, 0x0806, arpPacket(1, B, "10.0.0.2", A, "10.0.0.1")));
const qinqIcmp = ethernet(A, B, 0x88a8, vlanTag(100, 0x8100, vlanTag(10, 0x0800, ipv4Packet(1, "10.0.0.1", "10.0.0.2", icmpMessage(0)))));
const mplsIp = ethernet(A, B, 0x8847, [...mplsLabel(16, false), ...mplsLabel(100, true), ...ipv4Packet(17, "10.0.0.1", "8.8.8.8", udpDatagram(1, 53))]);

function matcher(expression: string): (f: Uint8Array) => boolean {
  const r = compileExpression(expression);
  if (E.isLeft(r)) throw new Error(r.left.message);
  return r.right;
}

describe("compileExpression", () => {
  it("matches ICMP and only ICMP with 'icmp'", () => {
    const m = matcher("icmp");
    expect([icmpEcho, httpSyn, dns6, arpRequest].map(m)).to.deep.equal([true, false, false, false]);
  });

  it("matches a port behind IPv4 options but not in a later fragment", () => {
    const m = matcher("tcp dst port 80");
    expect([httpSyn, httpSynWithOptions, laterFragment].map(m)).to.deep.equal([true, true, false]);
  });

  it("matches IPv6 transport ports", () => {
    expect(matcher("udp port 53")(dns6)).to.equal(true);
    expect(matcher("ip6 and dst port domain")(dns6)).to.equal(true);
  });

  it("does not see a tagged ARP as 'arp' but does as 'vlan 10 and arp' (uBridge's behaviour)", () => {
    expect(matcher("arp")(taggedArp)).to.equal(false);
    expect(matcher("vlan 10 and arp")(taggedArp)).to.equal(true);
    expect(matcher("vlan 11 and arp")(taggedArp)).to.equal(false);
  });

  it("walks stacked 802.1ad/802.1Q tags with 'vlan and vlan'", () => {
    expect(matcher("vlan 100 and vlan 10 and icmp")(qinqIcmp)).to.equal(true);
    expect(matcher("vlan 10 and icmp")(qinqIcmp)).to.equal(false);
  });

  it("walks MPLS label stacks", () => {
    expect(matcher("mpls 16 and mpls 100 and udp dst port 53")(mplsIp)).to.equal(true);
    expect(matcher("mpls 100")(mplsIp)).to.equal(false);
  });

  it("uses the frame's length for len, less and greater", () => {
    expect(matcher(`len = ${icmpEcho.length}`)(icmpEcho)).to.equal(true);
    expect(matcher("less 20")(icmpEcho)).to.equal(false);
    expect(matcher("greater 20")(icmpEcho)).to.equal(true);
  });

  it("matches every frame with the empty expression", () => {
    expect(matcher("")(new Uint8Array(0))).to.equal(true);
  });

  it("refuses an invalid expression with libpcap's message and a position", () => {
    const r = compileExpression("ip and port 99999");
    expect(E.isLeft(r) && r.left).to.deep.equal({ _tag: "BpfCompileError", message: "illegal port number 99999 > 65535", position: 12 });
    const s = compileExpression("ip and");
    expect(E.isLeft(s) && s.left.message).to.equal("can't parse filter expression: syntax error");
  });

  it("refuses an expression that can never match", () => {
    const r = compileExpression("ip and arp");
    expect(E.isLeft(r) && r.left.message).to.equal("expression rejects all packets");
  });

  it("accepts a never-matching expression that libpcap accepts, and matches nothing with it", () => {
    const r = compileExpression("tcp port 80 and ip[6:2] & 0x1fff != 0");
    if (E.isLeft(r)) expect.fail(r.left.message);
    expect(r.right(new Uint8Array(60).fill(0x45))).to.equal(false);
  });

  it("returns the same compiled matcher for the same expression (cache)", () => {
    const a = compileExpression("tcp port 80");
    const b = compileExpression("tcp port 80");
    expect(E.isRight(a) && E.isRight(b)).to.equal(true);
  });
});

describe("compileExpressionLines", () => {
  it("matches when any line matches and ignores blank lines", () => {
    const r = compileExpressionLines(["icmp", "", "   ", "udp port 53"]);
    if (E.isLeft(r)) throw new Error(r.left);
    expect([icmpEcho, dns6, httpSyn].map(r.right)).to.deep.equal([true, true, false]);
  });

  it("names the 1-based line of the first invalid expression", () => {
    const r = compileExpressionLines(["icmp", "", "tcp port 99999"]);
    expect(r).to.deep.equal(E.left("Invalid BPF expression on line 3: illegal port number 99999 > 65535"));
  });

  it("matches nothing when there are no expressions", () => {
    const r = compileExpressionLines(["", " "]);
    if (E.isLeft(r)) throw new Error(r.left);
    expect(r.right(icmpEcho)).to.equal(false);
  });

  it("keeps one line's short-frame rejection from hiding another line's match", () => {
    const r = compileExpressionLines(["ether[1000] = 1", "icmp"]);
    if (E.isLeft(r)) throw new Error(r.left);
    expect(r.right(icmpEcho)).to.equal(true);
  });
});
