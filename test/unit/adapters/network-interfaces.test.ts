import { expect } from "chai";
import { execFile } from "node:child_process";
import { promisify } from "node:util";

const run = promisify(execFile);
import type { NetworkInterface } from "../../../src/application/ports/host.js";
import {
  HostNetworkInterfaces,
  specificIPv4,
  type InterfaceAddress,
} from "../../../src/adapters/system/network-interfaces.js";

const ZERO_MAC = "00:00:00:00:00:00";
const ETH_MAC = "52:54:00:12:34:56";

function v4(address: string, netmask: string, mac = ETH_MAC): InterfaceAddress {
  return { address, netmask, family: "IPv4", mac };
}

function v6(address: string, mac = ETH_MAC): InterfaceAddress {
  return { address, netmask: "ffff:ffff:ffff:ffff::", family: "IPv6", mac };
}

/** A Linux host: lo, an Ethernet card with two addresses, a Wi-Fi card with IPv6 only. */
const host = {
  wlan0: [v6("fe80::1", "aa:bb:cc:dd:ee:ff")],
  eth0: [v4("192.168.1.10", "255.255.255.0"), v6("fe80::5054:ff:fe12:3456"), v4("10.1.2.3", "255.255.0.0")],
  lo: [v4("127.0.0.1", "255.0.0.0", ZERO_MAC), v6("::1", ZERO_MAC)],
};

function list(servedHost: string, interfaces: Record<string, InterfaceAddress[]> = host): readonly NetworkInterface[] {
  return new HostNetworkInterfaces(servedHost, () => interfaces).list();
}

function summary(entries: readonly NetworkInterface[]): string[] {
  return entries.map((e) => `${e.name} ${e.ipAddress}/${e.netmask}`);
}

describe("host network interfaces", () => {
  it("lists every IPv4 address, the first under the interface's name and further ones as <if>:1, <if>:2", () => {
    const entries = list("0.0.0.0", {
      eth0: [v4("192.168.1.10", "255.255.255.0"), v4("10.1.2.3", "255.255.0.0"), v4("172.16.0.1", "255.240.0.0")],
    });
    expect(entries).to.deep.equal([
      { id: "eth0", name: "eth0", ipAddress: "192.168.1.10", netmask: "255.255.255.0", macAddress: ETH_MAC, type: "ethernet", special: false },
      { id: "eth0:1", name: "eth0:1", ipAddress: "10.1.2.3", netmask: "255.255.0.0", macAddress: ETH_MAC, type: "ethernet", special: false },
      { id: "eth0:2", name: "eth0:2", ipAddress: "172.16.0.1", netmask: "255.240.0.0", macAddress: ETH_MAC, type: "ethernet", special: false },
    ]);
  });

  it("sorts interfaces by name as GNS3 does, each with its aliases right after it", () => {
    expect(summary(list("0.0.0.0"))).to.deep.equal([
      "eth0 192.168.1.10/255.255.255.0",
      "eth0:1 10.1.2.3/255.255.0.0",
      "lo 127.0.0.1/255.0.0.0",
      "wlan0 /",
    ]);
  });

  it("lists an interface without an IPv4 address with an empty address and netmask, and its MAC", () => {
    expect(list("0.0.0.0").find((e) => e.name === "wlan0")).to.deep.equal({
      id: "wlan0", name: "wlan0", ipAddress: "", netmask: "", macAddress: "aa:bb:cc:dd:ee:ff", type: "ethernet", special: false,
    });
  });

  it("does not give an alias a name Linux already gave a labelled address", () => {
    const entries = list("0.0.0.0", {
      eth0: [v4("192.168.1.10", "255.255.255.0"), v4("10.1.2.3", "255.255.0.0")],
      "eth0:1": [v4("192.168.1.11", "255.255.255.0")],
    });
    expect(summary(entries)).to.deep.equal([
      "eth0 192.168.1.10/255.255.255.0",
      "eth0:2 10.1.2.3/255.255.0.0",
      "eth0:1 192.168.1.11/255.255.255.0",
    ]);
  });

  it("calls interfaces whose name starts with tap taps, and marks GNS3's special prefixes whatever their case", () => {
    const names = ["tap0", "lo", "Docker0", "virbr0", "veth1a2b", "ovs-system", "VMnet8", "vboxnet0", "gns3tap0-0", "br0", "eth0", "enp3s0"];
    const entries = list("0.0.0.0", Object.fromEntries(names.map((n) => [n, [v6("fe80::1")]])));
    const byName = Object.fromEntries(entries.map((e) => [e.name, [e.type, e.special]]));
    expect(byName).to.deep.equal({
      tap0: ["tap", false],
      lo: ["ethernet", true],
      Docker0: ["ethernet", true],
      virbr0: ["ethernet", true],
      veth1a2b: ["ethernet", true],
      "ovs-system": ["ethernet", true],
      VMnet8: ["ethernet", true],
      vboxnet0: ["ethernet", true],
      "gns3tap0-0": ["ethernet", true],
      br0: ["ethernet", false],
      eth0: ["ethernet", false],
      enp3s0: ["ethernet", false],
    });
  });

  it("lists 127.0.0.2 first, with lo's netmask, when netemu serves on it", () => {
    const entries = list("127.0.0.2");
    expect(entries[0]).to.deep.equal({
      id: "lo:netemu", name: "lo:netemu", ipAddress: "127.0.0.2", netmask: "255.0.0.0", macAddress: ZERO_MAC, type: "ethernet", special: true,
    });
    expect(summary(entries.slice(1))).to.deep.equal(summary(list("0.0.0.0")));
  });

  it("adds nothing when netemu serves on every address (0.0.0.0 or ::)", () => {
    for (const served of ["0.0.0.0", "::", "[::]"]) {
      expect(summary(list(served)), served).to.deep.equal([
        "eth0 192.168.1.10/255.255.255.0",
        "eth0:1 10.1.2.3/255.255.0.0",
        "lo 127.0.0.1/255.0.0.0",
        "wlan0 /",
      ]);
    }
  });

  it("moves an address an interface already holds to the front without listing it twice", () => {
    expect(summary(list("10.1.2.3"))).to.deep.equal([
      "eth0:1 10.1.2.3/255.255.0.0",
      "eth0 192.168.1.10/255.255.255.0",
      "lo 127.0.0.1/255.0.0.0",
      "wlan0 /",
    ]);
  });

  it("takes localhost for 127.0.0.1", () => {
    const entries = list("localhost");
    expect(summary(entries)[0]).to.equal("lo 127.0.0.1/255.0.0.0");
    expect(entries).to.have.length(4);
  });

  it("adds nothing when netemu serves on an IPv6 address, since GNS3 pairs IPv4 addresses only", () => {
    for (const served of ["::1", "fe80::5054:ff:fe12:3456", "fd00::2"]) {
      expect(summary(list(served)), served).to.deep.equal(summary(list("0.0.0.0")));
    }
  });

  it("places a served address on the most specific network that contains it", () => {
    const entries = list("10.1.9.9", {
      eth0: [v4("10.0.0.1", "255.0.0.0")],
      eth1: [v4("10.1.0.1", "255.255.0.0", "52:54:00:00:00:02")],
    });
    expect(entries[0]).to.deep.include({ name: "eth1:netemu", ipAddress: "10.1.9.9", netmask: "255.255.0.0", macAddress: "52:54:00:00:00:02" });
  });

  it("lists a served address that is on no listed network as a host route of its own", () => {
    const entries = list("203.0.113.7");
    expect(entries[0]).to.deep.equal({
      id: "netemu", name: "netemu", ipAddress: "203.0.113.7", netmask: "255.255.255.255", macAddress: "", type: "ethernet", special: false,
    });
    expect(entries).to.have.length(5);
  });

  it("reads the interfaces again on every call", () => {
    let current: Record<string, InterfaceAddress[]> = { lo: [v4("127.0.0.1", "255.0.0.0", ZERO_MAC)] };
    const interfaces = new HostNetworkInterfaces("0.0.0.0", () => current);
    expect(interfaces.list()).to.have.length(1);
    current = { ...current, tap0: [v6("fe80::2")] };
    expect(interfaces.list()).to.have.length(2);
  });

  it("knows which served hosts name one IPv4 address", () => {
    expect(specificIPv4("127.0.0.2")).to.equal("127.0.0.2");
    expect(specificIPv4("LOCALHOST")).to.equal("127.0.0.1");
    expect(specificIPv4("::ffff:127.0.0.2")).to.equal("127.0.0.2");
    for (const wildcardOrOther of ["0.0.0.0", "::", "::1", "gns3.example.org", ""]) {
      expect(specificIPv4(wildcardOrOther), wildcardOrOther).to.equal(undefined);
    }
  });

  it("lists the host's devices that have no address or are down, as GNS3's psutil does, and calls a TAP by the kernel's word", () => {
    const listed = new HostNetworkInterfaces(
      "0.0.0.0",
      () => ({ eth0: [{ address: "10.0.0.5", netmask: "255.255.255.0", family: "IPv4", mac: "02:00:00:00:00:05" }] }),
      () => [
        { name: "eth0", mac: "02:00:00:00:00:05", tap: false },
        { name: "labtap1", mac: "02:00:00:00:00:06", tap: true },
        { name: "veth9", mac: "02:00:00:00:00:07", tap: false },
      ],
    ).list();
    expect(listed.map((e) => [e.name, e.ipAddress, e.macAddress, e.type])).to.deep.equal([
      ["eth0", "10.0.0.5", "02:00:00:00:00:05", "ethernet"],
      ["labtap1", "", "02:00:00:00:00:06", "tap"],
      ["veth9", "", "02:00:00:00:00:07", "ethernet"],
    ]);
  });

  describe("on this machine", () => {
    it("lists a TAP device that is down and has no address, as a tap (root: the test makes one)", async function () {
      if (process.getuid?.() !== 0) this.skip();
      const tap = `ni${process.pid}t`;
      await run("ip", ["tuntap", "add", "dev", tap, "mode", "tap"]);
      try {
        const found = new HostNetworkInterfaces("0.0.0.0").list().find((e) => e.name === tap);
        expect(found).to.deep.include({ name: tap, ipAddress: "", type: "tap" });
        expect(found?.macAddress).to.match(/^([0-9a-f]{2}:){5}[0-9a-f]{2}$/);
      } finally {
        await run("ip", ["link", "del", "dev", tap]);
      }
    });

    it("lists lo with 127.0.0.1, IPv4 addresses or empty ones, unique names, and 127.0.0.2 first when served on", () => {
      const all = new HostNetworkInterfaces("0.0.0.0").list();
      expect(all.some((e) => e.name.startsWith("lo") && e.ipAddress === "127.0.0.1" && e.special)).to.equal(true);
      expect(new Set(all.map((e) => e.name)).size).to.equal(all.length);
      for (const e of all) {
        expect(e.ipAddress, e.name).to.match(/^(\d{1,3}(\.\d{1,3}){3})?$/);
        expect(e.id).to.equal(e.name);
        expect(["ethernet", "tap"]).to.include(e.type);
      }
      const served = new HostNetworkInterfaces("127.0.0.2").list();
      expect(served[0]).to.deep.include({ ipAddress: "127.0.0.2", netmask: "255.0.0.0" });
      expect(served).to.have.length(all.length + 1);
    });
  });
});
