import { execFile } from "node:child_process";
import { promisify } from "node:util";
import { existsSync } from "node:fs";
import { hostTapName } from "../../src/domain/switching/netemu-host-node.js";

const run = promisify(execFile);

/** Runs a command (never through a shell), its output as text; throws with its stderr when it fails. */
export async function sh(file: string, ...args: string[]): Promise<string> {
  try {
    const { stdout } = await run(file, args, { timeout: 30_000 });
    return stdout;
  } catch (err) {
    const e = err as { stderr?: string; message: string };
    throw new Error(`${file} ${args.join(" ")}: ${e.stderr?.trim() || e.message}`);
  }
}

/** Whether this process may make namespaces and devices (root; CI runs as root). */
export function isRoot(): boolean {
  return process.getuid?.() === 0;
}

/**
 * Skips a suite (call it in `before`) whose namespaces, devices or hosts need root, saying so with `need`;
 * under CI=true (CI runs as root) a run without root fails instead, so that nothing is skipped unseen.
 */
export function requireRoot(ctx: Mocha.Context, need: string): void {
  if (isRoot()) return;
  if (process.env["CI"] === "true") throw new Error("CI runs as root: these tests need it");
  console.log(`      skipped: ${need}`);
  ctx.skip();
}

/**
 * Names a test makes, unique to this process (its pid) and short enough for an interface name (15
 * bytes): `prefix + pid + suffix`. Every name a test makes goes through here, so that its cleanup
 * removes only what it made.
 */
export function testName(prefix: string, suffix: string): string {
  const name = `${prefix}${process.pid}${suffix}`;
  if (name.length > 15) throw new Error(`${name} is longer than an interface name may be`);
  return name;
}

/** One network namespace with a TCP/IP stack, and what the test made for it. */
export class TestNamespace {
  private constructor(readonly name: string) {}

  static async make(name: string): Promise<TestNamespace> {
    await sh("ip", "netns", "add", name);
    const ns = new TestNamespace(name);
    await ns.ip("link", "set", "lo", "up");
    return ns;
  }

  ip(...args: string[]): Promise<string> {
    return sh("ip", "-n", this.name, ...args);
  }

  exec(...command: string[]): Promise<string> {
    return sh("ip", "netns", "exec", this.name, ...command);
  }

  /** Moves a host interface in, names it `inside`, gives it `cidr` and brings it up. */
  async takeInterface(device: string, inside: string, cidr: string): Promise<void> {
    await sh("ip", "link", "set", device, "netns", this.name);
    if (inside !== device) await this.ip("link", "set", device, "name", inside);
    await this.ip("addr", "add", cidr, "dev", inside);
    await this.ip("link", "set", inside, "up");
  }

  /** The round-trip times in ms of `count` pings to `address` (throws when none came back). */
  async pingMs(address: string, count = 5): Promise<number[]> {
    const out = await this.exec("ping", "-n", "-c", String(count), "-i", "0.2", "-W", "2", address);
    return [...out.matchAll(/time=([\d.]+) ms/g)].map((m) => Number(m[1]));
  }

  async remove(): Promise<void> {
    await sh("ip", "netns", "del", this.name).catch(() => undefined);
  }
}

/** A veth pair: `host` stays in the host's namespace (netemu's nio_ethernet), `peer` goes into a namespace. */
export async function makeVeth(host: string, peer: string): Promise<void> {
  await sh("ip", "link", "add", host, "type", "veth", "peer", "name", peer);
  await sh("ip", "link", "set", host, "up");
}

/** Deletes an interface of the host's namespace if it is there (a veth's twin goes with it). */
export async function removeInterface(name: string): Promise<void> {
  await sh("ip", "link", "del", name).catch(() => undefined);
}

/** Removes what a test made, whatever is still there: its namespaces, then its interfaces in the host's namespace. */
export async function removeMade(spaces: readonly TestNamespace[], interfaces: readonly string[]): Promise<void> {
  for (const ns of spaces) await ns.remove();
  for (const name of interfaces) await removeInterface(name);
}

/** The interfaces and namespaces whose name holds this process's pid (what a test must leave none of). */
export async function leftovers(): Promise<string[]> {
  const pid = String(process.pid);
  const links = (await sh("ip", "-o", "link", "show")).split("\n").map((l) => l.split(":")[1]?.trim().split("@")[0] ?? "").filter((n) => n.includes(pid));
  const spaces = (await sh("ip", "netns", "list")).split("\n").map((l) => l.split(" ")[0] ?? "").filter((n) => n.includes(pid));
  return [...links, ...spaces];
}

/**
 * What netemu's Linux hosts leave on the machine: each one's namespace (named `prefix` + node id) and its
 * TAP devices (ports 0 and 1) in netemu's namespace.
 */
export async function hostTraces(prefix: string, nodeIds: readonly string[]): Promise<string[]> {
  const namespaces = await sh("ip", "netns", "list");
  const found: string[] = [];
  for (const id of nodeIds) {
    if (namespaces.includes(`${prefix}${id}`)) found.push(`namespace ${prefix}${id}`);
    for (let port = 0; port < 2; port++) if (existsSync(`/sys/class/net/${hostTapName(id, port)}`)) found.push(`TAP ${hostTapName(id, port)}`);
  }
  return found;
}
