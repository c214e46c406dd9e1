/**
 * Linux hosts through netemu on TAP devices it opens itself (ADR 0083): iperf3 TCP each way and ping
 * round-trip times between two namespace hosts joined by nio_tap ports of one switch, against the same
 * two namespaces joined by a veth pair directly (the kernel's own ceiling, no netemu), alternating in
 * one run. netemu runs in this process (main thread, or --workers N). Needs root, iperf3, ping, ip.
 * Run: npm run pretest && node build/bench/namespace-hosts.bench.js [--rounds N --seconds S --workers N]
 */
import "reflect-metadata";
import * as E from "fp-ts/lib/Either.js";
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { IpNamespaceHosts } from "../src/adapters/system/namespace-hosts.js";
import { RecordingLogger } from "../test/support/in-memory-data-plane.js";
import { startTestServer } from "../test/support/http-harness.js";
import { TestNamespace, sh } from "../test/support/netns.js";

const arg = (name: string, fallback: number): number => {
  const at = process.argv.indexOf(`--${name}`);
  return at > 0 ? Number(process.argv[at + 1]) : fallback;
};
const ROUNDS = arg("rounds", 3);
const SECONDS = arg("seconds", 4);
const WORKERS = arg("workers", 0);
const PINGS = arg("pings", 100);
const PROJECT = "83838383-4444-4444-8555-666666666666";

const median = (xs: readonly number[]): number => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)]!;

async function iperf(client: (argv: string[]) => Promise<string>, server: (argv: string[]) => Promise<string>, ip: string, reverse: boolean): Promise<number> {
  const serving = server(["iperf3", "-s", "-1", "-B", ip]).catch(() => "");
  await new Promise((r) => setTimeout(r, 300));
  const out = JSON.parse(await client(["iperf3", "-c", ip, "-t", String(SECONDS), "-J", ...(reverse ? ["-R"] : [])])) as { end: { sum_received: { bits_per_second: number } } };
  await serving;
  return out.end.sum_received.bits_per_second;
}

async function rtts(client: (argv: string[]) => Promise<string>, ip: string): Promise<number[]> {
  const out = await client(["ping", "-n", "-q", "-c", String(PINGS), "-i", "0.01", ip]).catch((e: Error) => e.message);
  const m = /= ([\d.]+)\/([\d.]+)\/([\d.]+)/.exec(out);
  return m === null ? [] : [Number(m[1]), Number(m[2]), Number(m[3])];
}

async function main(): Promise<void> {
  const tag = process.pid;
  const stateDir = mkdtempSync(join(tmpdir(), "netemu-bench-hosts-"));
  const s = await startTestServer({ dataPlaneWorkers: WORKERS });
  const hosts = new IpNamespaceHosts(stateDir, new RecordingLogger(), { namespacePrefix: `nb${tag}-` });
  const direct = [await TestNamespace.make(`nd${tag}a`), await TestNamespace.make(`nd${tag}b`)];
  try {
    await sh("ip", "link", "add", `dv${tag}a`, "type", "veth", "peer", "name", `dv${tag}b`);
    await direct[0]!.takeInterface(`dv${tag}a`, "eth0", "10.85.0.1/24");
    await direct[1]!.takeInterface(`dv${tag}b`, "eth0", "10.85.0.2/24");
    await s.request("POST", "/v2/compute/projects", { name: "bench", project_id: PROJECT });
    const sw = (await s.request("POST", `/v2/compute/projects/${PROJECT}/ethernet_switch/nodes`, { name: "SW1" })).json;
    for (const [i, name] of ["a", "b"].entries()) {
      const made = await hosts.create({ name, interfaces: [{ tap: `nb${tag}${name}`, inside: "eth0", addresses: [`10.84.0.${i + 1}/24`] }] });
      if (E.isLeft(made)) throw new Error(JSON.stringify(made.left));
      const r = await s.request("POST", `/v2/compute/projects/${PROJECT}/ethernet_switch/nodes/${sw.node_id}/adapters/0/ports/${i}/nio`, { type: "nio_tap", tap_device: made.right.taps[0] });
      if (r.status !== 201) throw new Error(r.text);
      const plugged = await hosts.plug(name);
      if (E.isLeft(plugged)) throw new Error(JSON.stringify(plugged.left));
    }
    const inHost = (name: string) => async (argv: string[]) => {
      const r = await hosts.exec(name, argv, { timeoutMs: (SECONDS + 10) * 1000, maxOutputBytes: 1 << 20 });
      if (E.isLeft(r)) throw new Error(JSON.stringify(r.left));
      return r.right.stdout;
    };
    const inDirect = (i: number) => (argv: string[]) => direct[i]!.exec(...argv);
    const paths = [
      { path: "direct veth pair (no netemu)", a: inDirect(0), b: inDirect(1), ip: "10.85.0.2" },
      { path: `netemu switch, nio_tap (${WORKERS === 0 ? "main thread" : `${WORKERS} worker(s)`})`, a: inHost("a"), b: inHost("b"), ip: "10.84.0.2" },
    ];
    const figures = paths.map(() => ({ forward: [] as number[], reverse: [] as number[] }));
    for (let round = 0; round < ROUNDS; round++) {
      for (const [i, p] of paths.entries()) {
        process.stderr.write(`${p.path}: round ${round + 1}/${ROUNDS}\n`);
        figures[i]!.forward.push(await iperf(p.a, p.b, p.ip, false));
        figures[i]!.reverse.push(await iperf(p.a, p.b, p.ip, true));
      }
    }
    console.log(`| path | TCP a→b Mbit/s (median of ${ROUNDS}) | TCP b→a | ping min/avg/max ms (${PINGS} at 10 ms) |`);
    console.log("| --- | --- | --- | --- |");
    for (const [i, p] of paths.entries()) {
      const r = await rtts(p.a, p.ip);
      console.log(`| ${p.path} | ${(median(figures[i]!.forward) / 1e6).toFixed(0)} | ${(median(figures[i]!.reverse) / 1e6).toFixed(0)} | ${r.map((x) => x.toFixed(3)).join(" / ")} |`);
    }
  } finally {
    await hosts.close();
    await s.close();
    for (const ns of direct) await ns.remove();
    rmSync(stateDir, { recursive: true, force: true });
  }
}

main().catch((err) => {
  console.error(err);
  process.exitCode = 1;
});
