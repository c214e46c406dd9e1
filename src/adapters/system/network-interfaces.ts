import os from "node:os";
import { existsSync, readFileSync, readdirSync } from "node:fs";
import { isIPv4 } from "node:net";
import type { NetworkInterface, NetworkInterfaces } from "../../application/ports/host.js";

/** One address of an interface, as `os.networkInterfaces()` lists it. */
export interface InterfaceAddress {
  readonly address: string;
  readonly netmask: string;
  readonly family: string;
  readonly mac: string;
}

/** Interface name → its addresses, the shape of `os.networkInterfaces()`. */
type InterfaceAddressSource = () => Readonly<Record<string, readonly InterfaceAddress[] | undefined>>;

/** A network device of the host, whatever its state or addresses. */
interface HostDevice {
  readonly name: string;
  readonly mac: string;
  /** A TUN/TAP device (the kernel says so: it has tun_flags). */
  readonly tap: boolean;
}

/**
 * Every network device in /sys/class/net. os.networkInterfaces() (libuv) leaves out the ones that are
 * down or have no address, which GNS3's psutil lists: a TAP or a veth made for a nio_tap or
 * nio_ethernet (ADR 0083) is one.
 */
function sysClassNet(root = "/sys/class/net"): readonly HostDevice[] {
  let names: string[];
  try {
    names = readdirSync(root);
  } catch {
    return [];
  }
  return names.map((name) => {
    let mac = "";
    try {
      mac = readFileSync(`${root}/${name}/address`, "utf8").trim();
    } catch {
      // a device without a link-layer address
    }
    return { name, mac, tap: existsSync(`${root}/${name}/tun_flags`) };
  });
}

/** GNS3's name prefixes of loopback, bridges and virtual switches (compared case-insensitively). */
const SPECIAL_PREFIXES = [
  "lo", "vmnet", "vboxnet", "docker", "lxcbr", "virbr", "ovs-system", "veth", "fw", "p2p", "bridge",
  "vmware", "virtualbox", "gns3",
];

/** The label of the entry added for a served address no interface lists, e.g. `lo:netemu`. */
const SERVED_LABEL = "netemu";

interface Entry extends NetworkInterface {
  /** The interface the address belongs to (`name` may be an alias label of it). */
  readonly device: string;
}

/**
 * The host's interfaces as GNS3's `GET /v2/compute/network/interfaces` lists them, with two
 * differences that let a controller pair netemu's UDP tunnels: every IPv4 address of an interface
 * is listed (further ones under `<if>:1`, `<if>:2`…), and the address netemu serves on is listed
 * first, even when no interface holds it (127.0.0.2 is routed through lo, which lists 127.0.0.1 only).
 */
export class HostNetworkInterfaces implements NetworkInterfaces {
  private readonly servedAddress: string | undefined;

  /**
   * @param servedHost the address netemu serves on (its `--host`).
   * @param source the interfaces; `os.networkInterfaces()` by default.
   */
  private readonly source: InterfaceAddressSource;
  private readonly devices: () => readonly HostDevice[];

  constructor(servedHost: string, source?: InterfaceAddressSource, devices?: () => readonly HostDevice[]) {
    this.servedAddress = specificIPv4(servedHost);
    this.source = source ?? (() => os.networkInterfaces());
    // The host's own devices join the host's own addresses; a given source stands alone unless devices are given too.
    this.devices = devices ?? (source === undefined ? () => sysClassNet() : () => []);
  }

  list(): readonly NetworkInterface[] {
    // Read afresh each time: interfaces come and go, and the controller caches the answer anyway.
    const addresses: Record<string, readonly InterfaceAddress[] | undefined> = { ...this.source() };
    const devices = this.devices();
    for (const d of devices) if (addresses[d.name] === undefined) addresses[d.name] = [{ address: "", netmask: "", family: "link", mac: d.mac }];
    const entries = listed(addresses, new Set(devices.filter((d) => d.tap).map((d) => d.name)));
    const served = this.servedAddress;
    if (served === undefined) return entries.map(strip);
    const held = entries.findIndex((e) => e.ipAddress === served);
    const first = held >= 0 ? entries.splice(held, 1)[0]! : entryFor(served, entries);
    return [first, ...entries].map(strip);
  }
}

/** Every interface sorted by name as GNS3 sorts them, each IPv4 address an entry. */
function listed(interfaces: Readonly<Record<string, readonly InterfaceAddress[] | undefined>>, taps: ReadonlySet<string> = new Set()): Entry[] {
  // Plain code-unit order, as Python's sorted() on names.
  const names = Object.keys(interfaces).sort();
  // Labelled Linux addresses already come as their own `eth0:1` keys: aliases must not reuse those.
  const taken = new Set(names);
  const entries: Entry[] = [];
  for (const device of names) {
    const addresses = interfaces[device] ?? [];
    const mac = addresses[0]?.mac ?? "";
    const ipv4 = unique(addresses.filter((a) => a.family === "IPv4"));
    if (ipv4.length === 0) {
      entries.push(entry(device, device, "", "", mac, taps.has(device)));
      continue;
    }
    let label = 0;
    ipv4.forEach((a, i) => {
      let name = device;
      if (i > 0) {
        do name = `${device}:${++label}`;
        while (taken.has(name));
        taken.add(name);
      }
      entries.push(entry(name, device, a.address, a.netmask, a.mac || mac, taps.has(device)));
    });
  }
  return entries;
}

/** The entry for a served address no interface holds: on the interface whose network has it. */
function entryFor(address: string, entries: readonly Entry[]): Entry {
  const value = toUint32(address);
  let best: Entry | undefined;
  for (const e of entries) {
    if (e.ipAddress === "" || !isIPv4(e.netmask)) continue;
    const mask = toUint32(e.netmask);
    if (((toUint32(e.ipAddress) & mask) >>> 0) !== ((value & mask) >>> 0)) continue;
    // The most specific network wins, as a route lookup would choose it.
    if (best === undefined || prefixLength(mask) > prefixLength(toUint32(best.netmask))) best = e;
  }
  if (best === undefined) {
    // Reachable (netemu is bound to it) but on no listed network: only a host route can be claimed.
    return entry(SERVED_LABEL, SERVED_LABEL, address, "255.255.255.255", "");
  }
  return entry(`${best.device}:${SERVED_LABEL}`, best.device, address, best.netmask, best.macAddress);
}

function entry(name: string, device: string, ipAddress: string, netmask: string, macAddress: string, tap = false): Entry {
  const lower = name.toLowerCase();
  return {
    id: name,
    name,
    device,
    ipAddress,
    netmask,
    macAddress,
    // GNS3 goes by the name; the kernel's tun_flags tells a TAP named otherwise (a nio_tap's).
    type: name.startsWith("tap") || tap ? "tap" : "ethernet",
    special: SPECIAL_PREFIXES.some((prefix) => lower.startsWith(prefix)),
  };
}

function strip({ device: _device, ...entry }: Entry): NetworkInterface {
  return entry;
}

function unique(addresses: readonly InterfaceAddress[]): InterfaceAddress[] {
  const seen = new Set<string>();
  return addresses.filter((a) => !seen.has(a.address) && seen.add(a.address));
}

/**
 * The IPv4 address netemu serves on when it is one address, or undefined for the wildcards (every
 * address is listed already) and for IPv6 and names (GNS3's controller pairs IPv4 addresses only).
 */
export function specificIPv4(host: string): string | undefined {
  let h = host.trim().toLowerCase();
  if (h.startsWith("[") && h.endsWith("]")) h = h.slice(1, -1);
  if (h === "localhost") return "127.0.0.1";
  if (h.startsWith("::ffff:")) h = h.slice("::ffff:".length);
  if (!isIPv4(h) || h === "0.0.0.0") return undefined;
  return h;
}

function toUint32(address: string): number {
  return address.split(".").reduce((value, octet) => ((value << 8) | Number(octet)) >>> 0, 0);
}

function prefixLength(mask: number): number {
  let bits = 0;
  for (let m = mask; m !== 0; m = (m << 1) >>> 0) bits++;
  return bits;
}
