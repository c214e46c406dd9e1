import { expect } from "chai";
import { BpfError } from "../../../src/domain/bpf/errors.js";
import { predToString } from "../../../src/domain/bpf/ir.js";
import { parse } from "../../../src/domain/bpf/parser.js";
import { compilePredicate } from "../../../src/domain/bpf/semantics.js";

const ir = (s: string): string => predToString(compilePredicate(parse(s)));
const refuses = (s: string, message: string | RegExp): void => {
  expect(() => compilePredicate(parse(s)), s).to.throw(BpfError, message);
};

describe("the BPF semantic compiler (gencode for Ethernet)", () => {
  it("tests the EtherType at offset 12 for link-level protocols", () => {
    expect(ir("ip")).to.equal("[12:2] eq #2048");
    expect(ir("arp")).to.equal("[12:2] eq #2054");
    expect(ir("ip6")).to.equal("[12:2] eq #34525");
  });

  it("tests the IPv4 protocol, then IPv6's next header with one fragment header, for tcp", () => {
    expect(ir("tcp")).to.equal(
      "(([12:2] eq #2048 && [23:1] eq #6) || ([12:2] eq #34525 && ([20:1] eq #6 || ([20:1] eq #44 && [54:1] eq #6))))",
    );
  });

  it("checks 802.2 LLC frames by their length field for SAP protocols", () => {
    expect(ir("stp")).to.equal("(![12:2] gt #1500 && [14:1] eq #66)");
    expect(ir("ether proto 5")).to.equal("(![12:2] gt #1500 && [14:1] eq #5)");
  });

  it("checks only first fragments and reads ports behind the IPv4 header length", () => {
    expect(ir("ip and tcp dst port 80")).to.contain("![20:2] set #8191");
    expect(ir("tcp dst port 80")).to.contain("[hl(14)+16:2] eq #80");
    expect(ir("tcp dst port 80")).to.contain("[56:2] eq #80");
  });

  it("moves the offsets of everything after 'vlan' by 4 bytes per tag", () => {
    expect(ir("vlan and ip")).to.equal("((([12:2] eq #33024 || [12:2] eq #34984) || [12:2] eq #37120) && [16:2] eq #2048)");
    expect(ir("vlan 10 and vlan 20")).to.contain("([18:2] and #4095) eq #20");
    expect(ir("vlan or ip")).to.contain("[16:2] eq #2048");
  });

  it("checks the bottom-of-stack bit and the IP version after 'mpls'", () => {
    expect(ir("mpls 5 and ip")).to.equal(
      "(([12:2] eq #34887 && ([14:4] and #4294963200) eq #20480) && (([16:1] and #1) eq #1 && ([18:1] and #240) eq #64))",
    );
    expect(ir("mpls and mpls")).to.contain("![16:1] set #1");
  });

  it("compares host addresses in IPv4, ARP and RARP packets", () => {
    expect(ir("host 1.2.3.4")).to.equal(
      "(((([12:2] eq #2048 && [26:4] eq #16909060) || ([12:2] eq #2048 && [30:4] eq #16909060)) || (([12:2] eq #2054 && [28:4] eq #16909060) || ([12:2] eq #2054 && [38:4] eq #16909060))) || (([12:2] eq #32821 && [28:4] eq #16909060) || ([12:2] eq #32821 && [38:4] eq #16909060)))",
    );
  });

  it("widens short networks like libpcap (net 10 is 10.0.0.0/8, host 1.2.3 is 1.2.3.0/24)", () => {
    expect(ir("ip net 10")).to.equal("([12:2] eq #2048 && ([26:4] and #4278190080) eq #167772160) || ([12:2] eq #2048 && ([30:4] and #4278190080) eq #167772160)".replace(/^/, "(").concat(")"));
    expect(ir("ip src host 1.2.3")).to.equal("([12:2] eq #2048 && ([26:4] and #4294967040) eq #16909056)");
  });

  it("compares MAC addresses last word first", () => {
    expect(ir("ether src 00:11:22:33:44:55")).to.equal("([8:4] eq #573785173 && [6:2] eq #17)");
  });

  it("resolves port and protocol names from the shipped tables", () => {
    expect(ir("tcp port http")).to.equal(ir("tcp port 80"));
    expect(ir("port domain")).to.equal(ir("port 53"));
    expect(ir("ip proto \\udp")).to.equal(ir("ip proto 17"));
    expect(ir("ether proto \\arp")).to.equal(ir("arp"));
  });

  it("folds constants like libpcap's optimizer", () => {
    expect(ir("1 = 1")).to.equal("true");
    expect(ir("ether[0] & 0 = 0")).to.equal("#0 eq #0");
    expect(ir("0 * ether[100] = 1")).to.equal("#0 eq #1");
  });

  it("decides a comparison of written constants at once, and one of computed constants only after threading, as libpcap", () => {
    expect(ir("ip and 1 = 2")).to.equal("([12:2] eq #2048 && false)");
    expect(ir("ip and 1 + 1 = 3")).to.equal("([12:2] eq #2048 && #2 eq #3)");
  });

  it("refuses what needs a name service or a live interface, with a clear message", () => {
    refuses("host example.invalid", /netemu resolves no host names/);
    refuses("net link-local", /netemu resolves no network names/);
    refuses("gateway foo", /gateway/);
    refuses("inbound", /inbound\/outbound/);
    refuses("ifname eth0", /PF linktype/);
  });

  it("refuses what libpcap refuses, with libpcap's message", () => {
    refuses("tcp host 1.2.3.4", "'tcp' modifier applied to host");
    refuses("ip6 host 1.2.3.4", "'ip6' modifier applied to ip host");
    refuses("port 70000", "illegal port number 70000 > 65535");
    refuses("udp port ssh", "port 'ssh' is tcp");
    refuses("net 10.0.0.1/8", 'non-network bits set in "10.0.0.1/8"');
    refuses("vlan 4096", "VLAN tag 4096 greater than maximum 4095");
    refuses("mpls and vlan", "no VLAN match after MPLS");
    refuses("mpls and arp", "unsupported protocol over mpls");
    refuses("ether[0] / 0 = 1", "division by zero");
    refuses("ether[1] / ether[0] = 1", "division by zero");
    refuses("ether[0] << 40 = 0", "shift by more than 31 bits");
    refuses("ether[0:3] = 1", "data size must be 1, 2, or 4");
    refuses("tcp or 80", "syntax error in filter expression");
    refuses("ah[0] = 1", "unsupported index operation");
    refuses("ip broadcast or ip6 broadcast", "only link-layer/IP broadcast filters supported");
  });

  it("attaches the position of the offending value to a semantic error", () => {
    try {
      compilePredicate(parse("ip and port 70000"));
      expect.fail("should throw");
    } catch (e) {
      expect((e as BpfError).position).to.equal(12);
    }
  });
});
