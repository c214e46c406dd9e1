import { expect } from "chai";
import * as E from "fp-ts/lib/Either.js";
import { compileExpression } from "../../../src/domain/bpf/index.js";
import { ethernet, ipv4Packet, ipv6Packet, mplsLabel, tcpSegment, udpDatagram } from "../../support/bpf-frames.js";

const A = "02:00:00:00:00:01";
const B = "02:00:00:00:00:02";
const INNER_A = "0a:00:00:00:00:01";

function matches(expression: string, frame: Uint8Array): boolean {
  const m = compileExpression(expression);
  if (E.isLeft(m)) return expect.fail(`${expression}: ${m.left.message}`);
  return m.right(frame);
}

function refusal(expression: string): string {
  const r = compileExpression(expression);
  return E.isLeft(r) ? r.left.message : "accepted";
}

/** A Geneve header (version 0 unless given) with `optionWords` words of options, then `payload`. */
function geneve(protocol: number, vni: number, payload: readonly number[], opts: { optionWords?: number; version?: number } = {}): number[] {
  const words = opts.optionWords ?? 0;
  const options = words === 0 ? [] : [0x01, 0x02, 0x03, words - 1, ...new Array<number>((words - 1) * 4).fill(0xaa)];
  return [((opts.version ?? 0) << 6) | words, 0, protocol >> 8, protocol & 0xff, vni >> 16, (vni >> 8) & 0xff, vni & 0xff, 0, ...options, ...payload];
}

const innerTcp = ethernet(INNER_A, A, 0x0800, ipv4Packet(6, "192.168.1.1", "192.168.1.2", tcpSegment(40000, 80)));
const overIpv4 = (g: number[]): Uint8Array => ethernet(A, B, 0x0800, ipv4Packet(17, "10.0.0.1", "10.0.0.2", udpDatagram(5000, 6081, g)));
const overIpv6 = (g: number[]): Uint8Array => ethernet(A, B, 0x86dd, ipv6Packet(17, "2001:db8::1", "2001:db8::2", udpDatagram(5000, 6081, g)));

describe("geneve: tunnels on UDP port 6081, and what follows looks inside them", () => {
  it("recognises Geneve over IPv4 and IPv6, with options, and its VNI", () => {
    for (const frame of [overIpv4(geneve(0x6558, 100, [...innerTcp], { optionWords: 3 })), overIpv6(geneve(0x6558, 100, [...innerTcp]))]) {
      expect(matches("geneve", frame)).to.equal(true);
      expect(matches("geneve 100", frame)).to.equal(true);
      expect(matches("geneve 101", frame)).to.equal(false);
    }
  });

  it("applies what follows to the inner Ethernet frame, past the options", () => {
    const frame = overIpv4(geneve(0x6558, 7, [...innerTcp], { optionWords: 2 }));
    expect(matches("geneve and tcp port 80", frame)).to.equal(true);
    expect(matches("geneve and host 192.168.1.2", frame)).to.equal(true);
    expect(matches("geneve and host 10.0.0.1", frame)).to.equal(false);
    expect(matches("geneve and ether src 02:00:00:00:00:01", frame)).to.equal(true);
    expect(matches("geneve and udp", frame)).to.equal(false);
    expect(matches("udp and host 10.0.0.1", frame)).to.equal(true);
  });

  it("takes Geneve's protocol type as the EtherType when the tunnel carries no Ethernet header", () => {
    const frame = overIpv6(geneve(0x0800, 7, ipv4Packet(6, "192.168.1.1", "192.168.1.2", tcpSegment(40000, 80))));
    expect(matches("geneve and ip and tcp port 80", frame)).to.equal(true);
    expect(matches("geneve and ether host 0a:00:00:00:00:01", frame)).to.equal(false);
    expect(matches("geneve and ether multicast", frame)).to.equal(false);
  });

  it("needs version 0, UDP to port 6081, and the Geneve header captured", () => {
    expect(matches("geneve", overIpv4(geneve(0x6558, 7, [...innerTcp], { version: 1 })))).to.equal(false);
    const otherPort = ethernet(A, B, 0x0800, ipv4Packet(17, "10.0.0.1", "10.0.0.2", udpDatagram(6081, 6082, geneve(0x6558, 7, [...innerTcp]))));
    expect(matches("geneve", otherPort)).to.equal(false);
    const frame = overIpv4(geneve(0x6558, 7, [...innerTcp]));
    expect(matches("geneve", frame.slice(0, 14 + 20 + 8 + 3))).to.equal(false);
  });

  it("does not match a frame on which geneve did not match but a primitive after it is read (libpcap reads unset memory)", () => {
    const plainIp = ethernet(A, B, 0x0800, ipv4Packet(6, "10.0.0.1", "10.0.0.2", tcpSegment(1, 80)));
    expect(matches("geneve or ip", plainIp)).to.equal(false);
    expect(matches("ip or geneve", plainIp)).to.equal(true);
    const otherVni = overIpv4(geneve(0x6558, 5, [...innerTcp]));
    expect(matches("geneve 100 or tcp", otherVni)).to.equal(false);
    expect(matches("geneve or tcp", otherVni)).to.equal(true);
  });

  it("finds Geneve inside MPLS and PPPoE, and the inner frame is Ethernet to what follows", () => {
    const g = udpDatagram(5000, 6081, geneve(0x6558, 9, [...innerTcp]));
    const overMpls = ethernet(A, B, 0x8847, [...mplsLabel(16, true), ...ipv4Packet(17, "10.0.0.1", "10.0.0.2", g)]);
    expect(matches("mpls and geneve 9 and ether src 02:00:00:00:00:01", overMpls)).to.equal(true);
    expect(matches("mpls and geneve 8", overMpls)).to.equal(false);
    // as in libpcap, IP checks after mpls stay MPLS checks (bottom of stack before the IP header), even in the tunnel
    expect(matches("mpls and geneve and tcp port 80", overMpls)).to.equal(false);
    // ... and libpcap reads that bit at `linkpl - 2` as an unsigned offset (`ld [x + -2]`), past any frame
    const ipInside = udpDatagram(5000, 6081, geneve(0x0800, 1, ipv4Packet(6, "192.168.1.1", "192.168.1.2", tcpSegment(1, 80))));
    const bitSet = ethernet(A, B, 0x8847, [...mplsLabel(16, true), ...ipv4Packet(17, "10.0.0.1", "10.0.0.2", ipInside)]);
    expect(matches("mpls and geneve 1", bitSet)).to.equal(true);
    expect(matches("mpls and geneve 1 and ip", bitSet)).to.equal(false);
    const ip = ipv4Packet(17, "10.0.0.1", "10.0.0.2", g);
    const overPppoe = ethernet(A, B, 0x8864, [0x11, 0, 0, 1, 0, ip.length + 2, 0x00, 0x21, ...ip]);
    expect(matches("pppoes and geneve and ether src 02:00:00:00:00:01 and tcp", overPppoe)).to.equal(true);
  });

  it("finds a tunnel inside a tunnel, each 'geneve' moving what follows one level in", () => {
    const inner = ethernet(INNER_A, A, 0x0800, ipv4Packet(17, "192.168.1.1", "192.168.1.2", udpDatagram(7, 6081, geneve(0x6558, 2, [...innerTcp], { optionWords: 1 }))));
    const frame = overIpv6(geneve(0x6558, 1, [...inner], { optionWords: 2 }));
    expect(matches("geneve 1 and geneve 2 and tcp port 80", frame)).to.equal(true);
    expect(matches("geneve 1 and geneve 2 and ether src 02:00:00:00:00:01", frame)).to.equal(true);
    expect(matches("geneve 1 and host 192.168.1.1 and geneve", frame)).to.equal(true);
    expect(matches("geneve and geneve 1", frame)).to.equal(false);
    expect(matches("geneve and geneve and geneve", frame)).to.equal(false);
  });

  it("refuses what libpcap refuses", () => {
    expect(refusal("geneve 16777216")).to.equal("Geneve VNI 16777216 greater than maximum 16777215");
    expect(refusal("geneve and ip protochain 6")).to.equal("'protochain' not supported with variable length headers");
  });
});
