import { expect } from "chai";
import * as E from "fp-ts/lib/Either.js";
import { DEFAULT_HOST_INTERFACES, hostTapName, isIpInterface, parseNetemuHostSettings } from "../../../src/domain/switching/netemu-host-node.js";

const refusal = (e: E.Either<unknown, unknown>): unknown => (E.isLeft(e) ? e.left : undefined);

describe("a Linux host's settings (ADR 0087): interfaces and gateway, parsed once for every door", () => {
  it("gives a host without interfaces one, eth0, without an address, and no gateway", () => {
    expect(parseNetemuHostSettings(undefined, undefined)).to.deep.equal(E.right({ interfaces: DEFAULT_HOST_INTERFACES, gateway: null }));
  });

  it("takes IPv4 and IPv6 addresses with their prefix, a unicast MAC (lower-cased), and a gateway of either family", () => {
    const parsed = parseNetemuHostSettings([{ name: "eth0", address: "10.0.0.1/24", mac: "02:AA:00:00:00:01" }, { name: "eth1", address: "fd00::1/64" }, { name: "wan.1" }], "fd00::ffff");
    expect(parsed).to.deep.equal(E.right({ interfaces: [{ name: "eth0", address: "10.0.0.1/24", mac: "02:aa:00:00:00:01" }, { name: "eth1", address: "fd00::1/64" }, { name: "wan.1" }], gateway: "fd00::ffff" }));
    for (const ok of ["::1/128", "::/0", "fe80::1:2:3:4/64", "::ffff:10.0.0.1/96", "1:2:3:4:5:6:7:8/64", "0.0.0.0/0"]) expect(isIpInterface(ok), ok).to.equal(true);
  });

  it("refuses each broken interface, naming the field and the rule", () => {
    const cases: [unknown, unknown, string, unknown][] = [
      [[], undefined, "interfaces", { rule: "min_length", limit: 1 }],
      [Array.from({ length: 65 }, (_, i) => ({ name: `e${i}` })), undefined, "interfaces", { rule: "max_items", limit: 64 }],
      [[{}], undefined, "interfaces[0].name", { rule: "required" }],
      [[{ name: "a/b" }], undefined, "interfaces[0].name", { rule: "interface_name" }],
      [[{ name: "-x" }], undefined, "interfaces[0].name", { rule: "interface_name" }],
      [[{ name: "abcdefghijklmnop" }], undefined, "interfaces[0].name", { rule: "max_length", limit: 15 }],
      [[{ name: "eth0" }, { name: "eth0" }], undefined, "interfaces[1].name", { rule: "duplicate", first: "interfaces[0].name" }],
      [[{ name: "eth0", address: "10.0.0.1" }], undefined, "interfaces[0].address", { rule: "format", format: "ip_interface" }],
      [[{ name: "eth0", address: "10.0.0.256/24" }], undefined, "interfaces[0].address", { rule: "format", format: "ip_interface" }],
      [[{ name: "eth0", address: "10.0.0.1/33" }], undefined, "interfaces[0].address", { rule: "format", format: "ip_interface" }],
      [[{ name: "eth0", address: "fd00::1::2/64" }], undefined, "interfaces[0].address", { rule: "format", format: "ip_interface" }],
      [[{ name: "eth0", mac: "01:00:5e:00:00:01" }], undefined, "interfaces[0].mac", { rule: "format", format: "mac_address" }],
      [[{ name: "eth0", mac: "02:00:00:00:00" }], undefined, "interfaces[0].mac", { rule: "format", format: "mac_address" }],
      [undefined, "10.0.0.0/24", "gateway", { rule: "format", format: "ip_address" }],
      [undefined, 7, "gateway", { rule: "type", expected: "string" }],
    ];
    for (const [interfaces, gateway, field, rule] of cases) {
      expect(refusal(parseNetemuHostSettings(interfaces, gateway)), field).to.deep.include({ _tag: "InvalidConfiguration", field, rule });
    }
  });

  it("names each port's TAP in at most 15 bytes, apart for ids that share a prefix", () => {
    const a = hostTapName("87878787-0000-4000-8000-00000000000a", 63);
    const b = hostTapName("87878787-0000-4000-8000-00000000000b", 63);
    expect(a).to.match(/^nh[0-9a-f]{8}p63$/);
    expect(a.length).to.be.at.most(15);
    expect(a).to.not.equal(b);
    expect(hostTapName("87878787-0000-4000-8000-00000000000a", 63)).to.equal(a);
  });
});
