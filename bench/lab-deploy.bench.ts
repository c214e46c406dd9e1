/**
 * Lab deploy (issue 27): `netemu lab deploy FILE` and `netemu lab destroy NAME` of a 100-node and a
 * 1,000-node lab file, against the same topology built through the controller API call by call, as a
 * script would with fetch. Time, and the server's memory.
 *
 *   node build/bench/lab-deploy.bench.js [--rounds N] [--sizes 100,1000] [--only lab|api] [--hosts-per-switch N] [--udp-range 10000-19999] [--console-range 31000-31999]
 *     [--vpcs PATH] [--server-flags "--cpu-prof --cpu-prof-dir DIR"] [--server-cli PATH] [--cli PATH] [--cli-flags "..."]
 *
 * `--cli PATH`: another build's cli.js for the `netemu lab` commands (the server stays dist/cli.js): before/after.
 * `--server-flags`, `--cli-flags`: node flags for each `netemu serve`, each `netemu lab` (e.g. a CPU profile,
 * written when the process ends).
 *
 * The topology: a chain of Ethernet switches (8 access ports each; a fifth of the nodes), on each switch
 * `--hosts-per-switch` VPCS (default 0.25: one switch in four has a PC, 50 real VPCS processes at 1,000 nodes)
 * and hubs on its other ports: `size - 1` links, every tenth with one-way impairments (`a_to_b`,
 * `b_to_a`), every tenth (offset) with GNS3's both-ways `filters`. Deploy starts every node, so the
 * VPCS run (`--vpcs PATH`, default /opt/gns3-peer/bin/vpcs, 0.8.3); their count and RSS are read after
 * the deploy and after the destroy.
 *
 * `--udp-range FIRST-LAST` (default 10000-19999): the servers' UDP ports, outside 40000–60099 where test
 * servers of a shared machine bind and netemu's default 20000–30000; `--console-range FIRST-LAST` (default 31000-31999): the VPCS consoles'
 * TCP ports. `--server-cli PATH`: another build's cli.js for `netemu serve` (given no console range: an
 * older build would refuse the flag).
 *
 * Each measurement has its own `netemu serve` (the built CLI, dist/cli.js, 127.0.0.1, a free port, a
 * temporary config and projects directory removed after, its own UDP port range), stopped with SIGTERM:
 *
 * - lab: `node dist/cli.js lab deploy FILE` as a child process, wall time to its exit; then
 *   `node dist/cli.js lab destroy NAME`, wall time.
 * - API: a script (lab-deploy-api-child.ts) as a child process, as a user would run one: with fetch, one
 *   call at a time, POST the project, POST each node, POST each link, PUT each impaired link's filters,
 *   POST nodes/start (deploy starts every node too); wall time to its exit. Then DELETE the project from
 *   this process (what destroy does).
 * - The CLI's own start (`node dist/cli.js lab --help`), timed in the same rounds: the part of the lab's
 *   figure that is node loading the CLI, not the deploy.
 *
 * The server's RSS (VmRSS of /proc/PID/status) before, after the deploy and after the destroy, and its
 * peak (VmHWM). Rounds alternate lab and API; each cell is the median of the rounds, and the ratio also
 * round by round (lab over the API of the same round: the pairs a busy moment hits alike). Prints markdown
 * tables on stdout, progress on stderr.
 */
import { spawn } from "node:child_process";
import { mkdtempSync, readdirSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import { freeTcpPort } from "../test/support/free-tcp-port.js";

const CLI = fileURLToPath(new URL("../../dist/cli.js", import.meta.url));

const argv = process.argv.slice(2);
const option = (name: string, fallback: string): string => {
  const at = argv.indexOf(name);
  return at >= 0 ? (argv[at + 1] ?? fallback) : fallback;
};
const ROUNDS = Number(option("--rounds", "3"));
const SIZES = option("--sizes", "100,1000").split(",").map(Number);
const ONLY = option("--only", "");
const LAB_CLI = option("--cli", CLI);
const CLI_FLAGS = option("--cli-flags", "").split(" ").filter((f) => f !== "");
const SERVER_FLAGS = option("--server-flags", "").split(" ").filter((f) => f !== "");
/**
 * The TCP ports the VPCS consoles take: not netemu's default 5000–10000, where the VPCS of tests running
 * beside the bench take theirs (a port checked free and then taken by another's VPCS failed a start), and
 * below the kernel's ephemeral ports (32768–60999). A `--server-cli` older than the setting ignores it.
 */
const CONSOLE_RANGE = (() => {
  const [first, last] = option("--console-range", "31000-31999").split("-").map(Number) as [number, number];
  if (!(first > 0 && last <= 65535 && last >= first)) throw new Error("--console-range FIRST-LAST");
  return { first, last };
})();
/** Another build's cli.js for `netemu serve` (before/after a server change); the lab commands stay LAB_CLI. */
const SERVER_CLI = option("--server-cli", CLI);
/**
 * VPCS per switch, a fraction allowed (0.25: one switch in four has one). More than ~0.3 makes the
 * 1,000-node `lab deploy` fail: netemu starts hosts one after the other (a `vpcs -v` probe and a 300 ms
 * settle each), and 200 of them took longer than the CLI's 60 s per call (docs/benchmarks.md).
 */
const HOSTS_PER_SWITCH = Number(option("--hosts-per-switch", "0.25"));
const VPCS = option("--vpcs", "/opt/gns3-peer/bin/vpcs");
/**
 * The UDP ports the servers take (links' tunnels, the VPCS' own ends), split in two halves that the
 * measurements take in turn. Kept out of 40000–60099 by default: the test servers of a shared machine
 * bind there, and a bench beside them made them fail by the hundred; and out of netemu's default
 * 20000–30000, where tests that keep the default bind (a 1,000-node start met EADDRINUSE on 22003 there).
 */
const UDP_RANGE = (() => {
  const [first, last] = option("--udp-range", "10000-19999").split("-").map(Number) as [number, number];
  if (!(first > 0 && last <= 65535 && last - first >= 2 * 3000)) throw new Error("--udp-range FIRST-LAST needs two halves of 3,000 ports at least");
  return { first, last };
})();

// ---------------------------------------------------------------------------------------------- topology

type Kind = "ethernet_switch" | "ethernet_hub" | "vpcs";
interface End {
  readonly node: string;
  readonly port: number;
}
interface Impairments {
  readonly filters?: Record<string, number[]>;
  readonly aToB?: Record<string, number[]>;
  readonly bToA?: Record<string, number[]>;
}
interface LabNode {
  readonly name: string;
  readonly kind: Kind;
  /** A VPCS's address, with its prefix length. */
  readonly address?: string;
}
interface Topology {
  readonly name: string;
  readonly nodes: readonly LabNode[];
  readonly links: readonly ({ readonly a: End; readonly b: End } & Impairments)[];
}

const PORTS = 8;

/**
 * A chain of switches (e0 to the next one's e1; a chain, not a ring: the switches run no spanning tree
 * and the started VPCS send broadcasts), `hostsPerSwitch` VPCS on e2.. of each switch, hubs on the
 * ports after them, until there are `size` nodes (a fifth of them switches): `size - 1` links.
 */
function topology(size: number, hostsPerSwitch: number): Topology {
  const switches = Math.max(2, Math.round(size / 5));
  const hosts = Math.min(Math.round(switches * hostsPerSwitch), size - switches);
  const nodes: LabNode[] = [];
  const links: ({ a: End; b: End } & Impairments)[] = [];
  for (let s = 0; s < switches; s++) nodes.push({ name: `sw${s}`, kind: "ethernet_switch" });
  for (let s = 0; s + 1 < switches; s++) links.push({ a: { node: `sw${s}`, port: 0 }, b: { node: `sw${s + 1}`, port: 1 } });
  for (let h = 0; h < hosts; h++) {
    const name = `pc${h}`;
    nodes.push({ name, kind: "vpcs", address: `10.0.${Math.floor(h / 250)}.${(h % 250) + 1}/16` });
    links.push({ a: { node: `sw${h % switches}`, port: 2 + Math.floor(h / switches) }, b: { node: name, port: 0 } });
  }
  const firstHubPort = 2 + Math.ceil(hosts / switches);
  for (let h = 0; nodes.length < size; h++) {
    const name = `hub${h}`;
    nodes.push({ name, kind: "ethernet_hub" });
    links.push({ a: { node: `sw${h % switches}`, port: firstHubPort + Math.floor(h / switches) }, b: { node: name, port: 0 } });
  }
  if (links.some((l) => l.a.port >= PORTS)) throw new Error("too many hubs and hosts per switch");
  const impaired = links.map((l, i) => {
    if (i % 10 === 3) return { ...l, aToB: { delay: [20, 5], bandwidth: [10000] }, bToA: { delay: [20], packet_loss: [1] } };
    if (i % 10 === 8) return { ...l, filters: { delay: [10], packet_loss: [2] } };
    return l;
  });
  return { name: `bench-lab-${size}`, nodes, links: impaired };
}

const flow = (f: Record<string, number[]>): string =>
  `{${Object.entries(f)
    .map(([k, v]) => `${k}: ${v.length === 1 ? String(v[0]) : `[${v.join(", ")}]`}`)
    .join(", ")}}`;

function labFile(t: Topology): string {
  const lines = [`name: ${t.name}`, "nodes:"];
  for (const n of t.nodes) lines.push(n.kind === "vpcs" ? `  ${n.name}: {kind: vpcs, address: ${n.address ?? ""}}` : `  ${n.name}: {kind: ${n.kind}, ports: ${PORTS}}`);
  lines.push("links:");
  for (const l of t.links) {
    lines.push(`  - endpoints: [${l.a.node}:e${l.a.port}, ${l.b.node}:e${l.b.port}]`);
    if (l.filters !== undefined) lines.push(`    filters: ${flow(l.filters)}`);
    if (l.aToB !== undefined) lines.push(`    a_to_b: ${flow(l.aToB)}`);
    if (l.bToA !== undefined) lines.push(`    b_to_a: ${flow(l.bToA)}`);
  }
  return `${lines.join("\n")}\n`;
}

// ------------------------------------------------------------------------------------------------ server

interface Server {
  readonly url: string;
  readonly pid: number;
  stop(): Promise<void>;
}

/** `netemu serve` in a fresh temporary directory; answers once /v2/version does. */
async function startServer(udp: { readonly start: number; readonly end: number }): Promise<Server> {
  const dir = mkdtempSync(join(tmpdir(), "netemu-bench-lab-"));
  const port = await freeTcpPort();
  const child = spawn(
    process.execPath,
    [...SERVER_FLAGS, SERVER_CLI, "serve", "--host", "127.0.0.1", "--port", String(port), "--config-dir", dir, "--projects-path", join(dir, "projects"), "--udp-start-port", String(udp.start), "--udp-end-port", String(udp.end), "--vpcs-path", VPCS, ...(SERVER_CLI === CLI ? ["--console-start-port", String(CONSOLE_RANGE.first), "--console-end-port", String(CONSOLE_RANGE.last)] : [])],
    { stdio: ["ignore", "pipe", "pipe"] },
  );
  let err = "";
  child.stdout.resume(); // the request log (info, as a user runs it), read and dropped
  child.stderr.on("data", (d: Buffer) => (err += d.toString()));
  const url = `http://127.0.0.1:${port}`;
  const t0 = performance.now();
  for (;;) {
    if (child.exitCode !== null) throw new Error(`netemu serve exited ${child.exitCode}: ${err}`);
    try {
      if ((await fetch(`${url}/v2/version`)).ok) break;
    } catch {
      // not listening yet
    }
    if (performance.now() - t0 > 60_000) throw new Error("netemu serve did not answer within 60 s");
    await new Promise((r) => setTimeout(r, 50));
  }
  return {
    url,
    pid: child.pid ?? -1,
    stop: async () => {
      if (child.exitCode === null) {
        // Its VPCS (and what each forked), seen before it goes: a server killed below would orphan them.
        const theirs = ownProcesses(child.pid ?? -1);
        const exited = new Promise((r) => child.once("exit", r));
        child.kill("SIGTERM");
        const timer = setTimeout(() => child.kill("SIGKILL"), 20_000);
        await exited;
        clearTimeout(timer);
        const left = theirs.filter(alive);
        if (left.length > 0) {
          process.stderr.write(`netemu serve left ${left.length} of its processes running: killed\n`);
          for (const pid of left) signal(pid, "SIGKILL");
        }
      }
      // Only once nothing of it runs in it: a VPCS outliving its directory would be an orphan nobody sees.
      rmSync(dir, { recursive: true, force: true });
    },
  };
}

/** Every process's parent and command, read once from /proc. */
function processTable(): { readonly pid: number; readonly ppid: number; readonly comm: string }[] {
  const table: { pid: number; ppid: number; comm: string }[] = [];
  for (const entry of readdirSync("/proc")) {
    if (!/^\d+$/.test(entry)) continue;
    try {
      const stat = readFileSync(`/proc/${entry}/stat`, "utf8");
      // "pid (comm) state ppid ...": comm may hold spaces, so read from its closing parenthesis.
      const close = stat.lastIndexOf(")");
      table.push({ pid: Number(entry), comm: stat.slice(stat.indexOf("(") + 1, close), ppid: Number(stat.slice(close + 2).split(" ")[1]) });
    } catch {
      // gone meanwhile
    }
  }
  return table;
}

/** The pids of the processes a server started (its VPCS) and of what each of those forked. */
function ownProcesses(pid: number): number[] {
  const table = processTable();
  const children = table.filter((p) => p.ppid === pid).map((p) => p.pid);
  const theirs = new Set(children);
  return [...children, ...table.filter((p) => theirs.has(p.ppid)).map((p) => p.pid)];
}

function alive(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch {
    return false;
  }
}

function signal(pid: number, name: NodeJS.Signals): void {
  try {
    process.kill(pid, name);
  } catch {
    // ended meanwhile
  }
}

/**
 * What a failed deploy left, destroyed through the API (what `lab destroy` does) before the server is
 * stopped: every project deleted, which stops its VPCS. Bounded: the server is stopped after it anyway.
 */
async function destroyAll(url: string): Promise<void> {
  try {
    const projects = (await (await fetch(`${url}/v2/projects`, { signal: AbortSignal.timeout(30_000) })).json()) as { project_id: string }[];
    for (const p of projects) await fetch(`${url}/v2/projects/${p.project_id}`, { method: "DELETE", signal: AbortSignal.timeout(120_000) });
  } catch (err) {
    process.stderr.write(`destroying what the failed deploy left: ${(err as Error).message}\n`);
  }
}

/** How many VPCS the server runs, and their RSS together with what each forked (its console pty), MiB. */
function hostProcesses(pid: number): { count: number; rss: number } {
  const table = processTable();
  const vpcs = table.filter((p) => p.ppid === pid && p.comm === "vpcs").map((p) => p.pid);
  const theirs = new Set(vpcs);
  const forked = table.filter((p) => theirs.has(p.ppid)).map((p) => p.pid);
  let rss = 0;
  for (const p of [...vpcs, ...forked]) {
    try {
      rss += memory(p).rss;
    } catch {
      // ended meanwhile
    }
  }
  return { count: vpcs.length, rss };
}

/** VmRSS and VmHWM of a process, MiB. */
function memory(pid: number): { rss: number; hwm: number } {
  const status = readFileSync(`/proc/${pid}/status`, "utf8");
  const kb = (key: string): number => Number(new RegExp(`${key}:\\s+(\\d+) kB`).exec(status)?.[1] ?? NaN);
  return { rss: kb("VmRSS") / 1024, hwm: kb("VmHWM") / 1024 };
}

/** Lets the server finish what a call left (the project file written, sockets closed) before memory is read. */
const settle = (): Promise<void> => new Promise((r) => setTimeout(r, 1000));

// ----------------------------------------------------------------------------------------------- methods

/** The built CLI as a child process: wall time to its exit, ms; throws on a non-zero exit. */
function cli(args: readonly string[]): Promise<number> {
  return new Promise((resolve, reject) => {
    const t0 = performance.now();
    const child = spawn(process.execPath, [...CLI_FLAGS, LAB_CLI, ...args], { stdio: ["ignore", "pipe", "pipe"] });
    let out = "";
    child.stdout.on("data", (d: Buffer) => (out += d.toString()));
    child.stderr.on("data", (d: Buffer) => (out += d.toString()));
    child.once("error", reject);
    child.once("exit", (code) => {
      const ms = performance.now() - t0;
      if (code === 0) resolve(ms);
      else reject(new Error(`netemu ${args.join(" ")} exited ${code}: ${out.slice(-2000)}`));
    });
  });
}

const API_CHILD = fileURLToPath(new URL("./lab-deploy-api-child.js", import.meta.url));

/** The call-by-call script (lab-deploy-api-child) as a child process: wall time to its exit, and what it made. */
function deployByApi(base: string, topologyFile: string): Promise<{ ms: number; projectId: string; calls: number }> {
  return new Promise((resolve, reject) => {
    const t0 = performance.now();
    const child = spawn(process.execPath, [API_CHILD, base, topologyFile], { stdio: ["ignore", "pipe", "pipe"] });
    let out = "";
    let err = "";
    child.stdout.on("data", (d: Buffer) => (out += d.toString()));
    child.stderr.on("data", (d: Buffer) => (err += d.toString()));
    child.once("error", reject);
    child.once("exit", (code) => {
      const ms = performance.now() - t0;
      if (code !== 0) return reject(new Error(`the API script exited ${code}: ${err.slice(-2000)}`));
      const made = JSON.parse(out) as { projectId: string; calls: number };
      resolve({ ms, ...made });
    });
  });
}

// ------------------------------------------------------------------------------------------------- rounds

interface Sample {
  readonly deployMs: number;
  readonly destroyMs: number;
  readonly before: number;
  readonly deployed: number;
  readonly destroyed: number;
  readonly peak: number;
  /** VPCS processes running after the deploy, and after the destroy (0 unless the destroy left some). */
  readonly hosts: number;
  readonly hostsLeft: number;
  /** The VPCS processes' RSS together after the deploy, MiB. */
  readonly hostsRss: number;
}

// Each measurement's server takes the other half of UDP_RANGE than the one before: a server that has
// just stopped may leave a socket or a VPCS closing on its ports.
let half = 1;
const nextRange = (): { start: number; end: number } => {
  half = 1 - half;
  const size = Math.floor((UDP_RANGE.last - UDP_RANGE.first + 1) / 2);
  const start = UDP_RANGE.first + half * size;
  return { start, end: start + size - 1 };
};

let apiCalls = 0;

async function measure(how: "lab" | "api", t: Topology, file: string, topologyFile: string): Promise<Sample> {
  const server = await startServer(nextRange());
  let measured = false;
  try {
    await settle();
    const before = memory(server.pid).rss;
    let deployMs: number;
    let destroyMs: number;
    let after: number;
    let hosts: { count: number; rss: number };
    if (how === "lab") {
      deployMs = await cli(["lab", "deploy", file, "--server", server.url]);
      await settle();
      after = memory(server.pid).rss;
      hosts = hostProcesses(server.pid);
      destroyMs = await cli(["lab", "destroy", t.name, "--server", server.url]);
    } else {
      const made = await deployByApi(server.url, topologyFile);
      deployMs = made.ms;
      apiCalls = made.calls;
      await settle();
      after = memory(server.pid).rss;
      hosts = hostProcesses(server.pid);
      const t1 = performance.now();
      const deleted = await fetch(`${server.url}/v2/projects/${made.projectId}`, { method: "DELETE" });
      destroyMs = performance.now() - t1;
      if (!deleted.ok) throw new Error(`DELETE project: ${deleted.status}`);
    }
    await settle();
    const m = memory(server.pid);
    measured = true;
    return { deployMs, destroyMs, before, deployed: after, destroyed: m.rss, peak: m.hwm, hosts: hosts.count, hostsLeft: hostProcesses(server.pid).count, hostsRss: hosts.rss };
  } finally {
    // A deploy that failed (its start step outlasting the CLI's timeout) left a lab: destroyed first.
    if (!measured) await destroyAll(server.url);
    await server.stop();
  }
}

const median = (xs: readonly number[]): number => {
  const s = [...xs].sort((a, b) => a - b);
  const m = Math.floor(s.length / 2);
  return s.length % 2 === 1 ? (s[m] as number) : ((s[m - 1] as number) + (s[m] as number)) / 2;
};
const ms = (x: number): string => (x >= 100 ? Math.round(x).toLocaleString("en-US") : x.toFixed(1));
const mib = (x: number): string => x.toFixed(0);
const all = (xs: readonly number[], f: (x: number) => string): string => `${f(median(xs))} [${xs.map(f).join(", ")}]`;

async function main(): Promise<void> {
  const dir = mkdtempSync(join(tmpdir(), "netemu-bench-labfiles-"));
  const failures: string[] = [];
  const timing: string[] = ["| nodes (switches + hubs + VPCS) | links (impaired) | API calls | lab deploy ms | API deploy ms | lab / API (medians) | lab / API (each round, median) | lab destroy ms | API DELETE ms | CLI start ms |", "| --- | --- | --- | --- | --- | --- | --- | --- | --- | --- |"];
  const memoryRows: string[] = ["| nodes | how | server RSS before MiB | after deploy | after destroy | peak (VmHWM) | VPCS running after deploy / after destroy | VPCS RSS together MiB |", "| --- | --- | --- | --- | --- | --- | --- | --- |"];
  try {
    for (const size of SIZES) {
      const t = topology(size, HOSTS_PER_SWITCH);
      const file = join(dir, `${t.name}.yml`);
      writeFileSync(file, labFile(t));
      const topologyFile = join(dir, `${t.name}.json`);
      writeFileSync(topologyFile, JSON.stringify({ ...t, ports: PORTS }));
      const samples: Record<"lab" | "api", Sample[]> = { lab: [], api: [] };
      const starts: number[] = [];
      for (let round = 0; round < ROUNDS; round++) {
        // Alternating which goes first: a busy moment of the shared machine hits both alike.
        for (const how of round % 2 === 0 ? (["lab", "api"] as const) : (["api", "lab"] as const)) {
          if (ONLY !== "" && how !== ONLY) continue;
          let s: Sample;
          try {
            s = await measure(how, t, file, topologyFile);
          } catch (err) {
            // A failed deploy is a result too (the lab's start step outlasting the CLI's timeout): said, and the other way still measured.
            const reason = (err as Error).message.split("\n")[0] ?? "";
            failures.push(`${size} nodes, round ${round + 1}, ${how}: ${reason}`);
            process.stderr.write(`${size} nodes, round ${round + 1}, ${how}: FAILED ${reason}\n`);
            continue;
          }
          samples[how].push(s);
          process.stderr.write(`${size} nodes, round ${round + 1}, ${how}: deploy ${ms(s.deployMs)} ms, destroy ${ms(s.destroyMs)} ms, RSS ${mib(s.before)} -> ${mib(s.deployed)} -> ${mib(s.destroyed)} MiB (peak ${mib(s.peak)}), VPCS ${s.hosts} -> ${s.hostsLeft} (${mib(s.hostsRss)} MiB)\n`);
        }
        starts.push(await cli(["lab", "--help"]).catch(() => NaN));
      }
      const switches = t.nodes.filter((n) => n.kind === "ethernet_switch").length;
      const vpcs = t.nodes.filter((n) => n.kind === "vpcs").length;
      const impaired = t.links.filter((l) => l.filters !== undefined || l.aToB !== undefined).length;
      const lab = samples.lab;
      const api = samples.api;
      timing.push(
        `| ${size.toLocaleString("en-US")} (${switches} + ${size - switches - vpcs} + ${vpcs}) | ${t.links.length} (${impaired}) | ${apiCalls} | ${all(lab.map((s) => s.deployMs), ms)} | ${all(api.map((s) => s.deployMs), ms)} | ${(median(lab.map((s) => s.deployMs)) / median(api.map((s) => s.deployMs))).toFixed(2)} | ${all(lab.map((s, i) => s.deployMs / (api[i]?.deployMs ?? NaN)), (x) => x.toFixed(2))} | ${all(lab.map((s) => s.destroyMs), ms)} | ${all(api.map((s) => s.destroyMs), ms)} | ${ms(median(starts))} |`,
      );
      for (const [how, xs] of [["lab", lab], ["API", api]] as const) {
        memoryRows.push(`| ${size.toLocaleString("en-US")} | ${how} | ${mib(median(xs.map((s) => s.before)))} | ${mib(median(xs.map((s) => s.deployed)))} | ${mib(median(xs.map((s) => s.destroyed)))} | ${mib(median(xs.map((s) => s.peak)))} | ${median(xs.map((s) => s.hosts))} / ${Math.max(0, ...xs.map((s) => s.hostsLeft))} | ${mib(median(xs.map((s) => s.hostsRss)))} |`);
      }
    }
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
  process.stdout.write(`\n${ROUNDS} rounds; median [each round]\n\n${timing.join("\n")}\n\nServer memory, median of the rounds\n\n${memoryRows.join("\n")}\n${failures.length === 0 ? "" : `\nFailed:\n\n${failures.map((f) => `- ${f}`).join("\n")}\n`}`);
}

main().then(
  () => process.exit(0),
  (err: unknown) => {
    console.error(err);
    process.exit(1);
  },
);
