/**
 * What an idle netemu costs (issue 30, ADR 0113): the CPU and the wake-ups per second of `netemu serve`
 * holding a lab of idle switches (each with two UDP NIOs, no frames), first with nobody scraping its
 * metrics, then after a scrape of /metrics has started the process's monitors; against, in the same run,
 * a bare Node.js process doing nothing (the floor of any Node server) and uBridge 0.9.19 with one bridge
 * of two UDP NIOs (GNS3's forwarder, when installed). With --compare-build DIR the same server is also
 * run from another build (its dist/cli.js): the before of a change.
 *
 *   node build/bench/idle.bench.js [--seconds S] [--rounds N] [--switches N] [--compare-build DIR]
 *
 * Each process is measured over S seconds (default 20) after 10 s of settling (and 5 s more after the scrape), the processes one after
 * another within each round; medians over rounds. CPU: the sum of the threads' time on a CPU
 * (schedstat). Wake-ups: the threads' voluntary context switches (each sleep ends in one wake-up).
 */
import { spawn, type ChildProcess } from "node:child_process";
import { existsSync, mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join, resolve } from "node:path";
import { fileURLToPath } from "node:url";
import { fmt, markdownTable, median, monoMs, sleep, stopProcess, threadTimes } from "./lib/util.js";
import { startUbridgeBridge, UBRIDGE } from "./lib/ubridge.js";
import { freeTcpPort } from "../test/support/free-tcp-port.js";
import { freeUdpPort } from "../test/support/udp-peer.js";

const argv = process.argv.slice(2);
const opt = (name: string): string | undefined => {
  const i = argv.indexOf(name);
  return i < 0 ? undefined : argv[i + 1];
};
function positive(name: string, fallback: number): number {
  const raw = opt(name);
  if (raw === undefined) return fallback;
  const n = Number(raw);
  if (!Number.isInteger(n) || n < 1) throw new Error(`${name} takes a whole number of at least 1, not ${raw}`);
  return n;
}
const SECONDS = positive("--seconds", 20);
const ROUNDS = positive("--rounds", 3);
const SWITCHES = positive("--switches", 10);
const COMPARE_BUILD = opt("--compare-build");
const SETTLE_MS = 10_000;
/** After the scrape: its own work (the answer, the garbage it leaves) settles first. */
const AFTER_SCRAPE_MS = 5000;
const PROJECT = "1d1e0000-0000-4000-8000-000000000030";

const here = fileURLToPath(new URL(".", import.meta.url));
const THIS_CLI = resolve(here, "..", "..", "dist", "cli.js");
const started = monoMs();
const log = (s: string): void => void process.stderr.write(`[${((monoMs() - started) / 1000).toFixed(0).padStart(4)} s] ${s}\n`);

/** A process under measurement, and what to do once it is settled (before the measure) and at the end. */
interface Subject {
  readonly pid: number;
  /** Between settling and measuring: a scrape, for the "scraped" set-up. */
  readonly beforeMeasure?: () => Promise<void>;
  stop(): Promise<void>;
}

type Label = "netemu" | "netemu-scraped" | "before" | "before-scraped" | "node" | "ubridge";
const NAMES: Record<Label, string> = {
  netemu: "netemu serve, nobody scraping",
  "netemu-scraped": "netemu serve, after one scrape of /metrics",
  before: "netemu serve (--compare-build), nobody scraping",
  "before-scraped": "netemu serve (--compare-build), after one scrape of /metrics",
  node: "bare Node.js process (an idle event loop)",
  ubridge: "uBridge 0.9.19, one bridge of two UDP NIOs",
};

async function request(port: number, method: string, path: string, body?: unknown): Promise<{ status: number; json: Record<string, unknown> }> {
  const r = await fetch(`http://127.0.0.1:${port}${path}`, { method, headers: { "content-type": "application/json" }, body: body === undefined ? undefined : JSON.stringify(body) });
  const text = await r.text();
  if (r.status >= 300) throw new Error(`${method} ${path}: ${r.status} ${text}`);
  return { status: r.status, json: text === "" ? {} : (JSON.parse(text) as Record<string, unknown>) };
}

/** `netemu serve` from `cli` on a config dir of its own, with SWITCHES idle switches of two UDP NIOs each. */
async function startNetemu(cli: string, scraped: boolean): Promise<Subject> {
  const configDir = mkdtempSync(join(tmpdir(), "netemu-idle-bench-"));
  const port = await freeTcpPort();
  const proc: ChildProcess = spawn(process.execPath, [cli, "serve", "--port", String(port), "--config-dir", configDir, "--log-level", "warn"], { stdio: ["ignore", "ignore", "inherit"] });
  const stop = async (): Promise<void> => {
    await stopProcess(proc);
    rmSync(configDir, { recursive: true, force: true });
  };
  try {
    const deadline = monoMs() + 15_000;
    for (;;) {
      try {
        await request(port, "GET", "/v2/version");
        break;
      } catch (err) {
        if (monoMs() > deadline || proc.exitCode !== null) throw new Error(`netemu serve (${cli}) did not answer: ${(err as Error).message}`);
        await sleep(100);
      }
    }
    await request(port, "POST", "/v2/compute/projects", { name: "idle", project_id: PROJECT });
    for (let i = 0; i < SWITCHES; i++) {
      const sw = await request(port, "POST", `/v2/compute/projects/${PROJECT}/ethernet_switch/nodes`, { name: `SW${i + 1}` });
      for (const p of [0, 1]) {
        const lport = (await request(port, "POST", `/v2/compute/projects/${PROJECT}/ports/udp`)).json["udp_port"] as number;
        // Towards a port nobody listens on: no frame ever comes or goes.
        const rport = await freeUdpPort();
        await request(port, "POST", `/v2/compute/projects/${PROJECT}/ethernet_switch/nodes/${String(sw.json["node_id"])}/adapters/0/ports/${p}/nio`, { type: "nio_udp", lport, rhost: "127.0.0.1", rport });
      }
    }
  } catch (err) {
    await stop();
    throw err;
  }
  if (proc.pid === undefined) throw new Error("netemu serve has no pid");
  return { pid: proc.pid, stop, ...(scraped ? { beforeMeasure: async () => void (await fetch(`http://127.0.0.1:${port}/metrics`)).text() } : {}) };
}

async function startBareNode(): Promise<Subject> {
  const proc = spawn(process.execPath, ["-e", "setInterval(() => {}, 2 ** 30)"], { stdio: "ignore" });
  if (proc.pid === undefined) throw new Error("node did not start");
  return { pid: proc.pid, stop: () => stopProcess(proc) };
}

async function startUbridge(): Promise<Subject> {
  const [a, b] = [await freeUdpPort(), await freeUdpPort()];
  const bridge = await startUbridgeBridge([{ lport: a, rport: await freeUdpPort() }, { lport: b, rport: await freeUdpPort() }]);
  return { pid: bridge.pid, stop: () => bridge.stop() };
}

function start(label: Label): Promise<Subject> {
  switch (label) {
    case "netemu":
    case "netemu-scraped":
      return startNetemu(THIS_CLI, label === "netemu-scraped");
    case "before":
    case "before-scraped":
      return startNetemu(resolve(COMPARE_BUILD!, "dist", "cli.js"), label === "before-scraped");
    case "node":
      return startBareNode();
    case "ubridge":
      return startUbridge();
  }
}

interface Reading {
  /** Per cent of one core. */
  readonly cpu: number;
  readonly wakeups: number;
  /** The busiest threads: CPU ms/s and wake-ups/s each. */
  readonly threads: string;
}

async function measure(label: Label): Promise<Reading> {
  const subject = await start(label);
  try {
    await sleep(SETTLE_MS);
    if (subject.beforeMeasure !== undefined) {
      await subject.beforeMeasure();
      await sleep(AFTER_SCRAPE_MS);
    }
    const before = threadTimes(subject.pid);
    const t0 = monoMs();
    await sleep(SECONDS * 1000);
    const after = threadTimes(subject.pid);
    const seconds = (monoMs() - t0) / 1000;
    const per = [...after].map(([tid, a]) => {
      const b = before.get(tid) ?? { cpuNs: 0, sleeps: 0 };
      return { tid, cpuMsPerS: (a.cpuNs - b.cpuNs) / 1e6 / seconds, wakeupsPerS: (a.sleeps - b.sleeps) / seconds };
    });
    const cpu = per.reduce((sum, t) => sum + t.cpuMsPerS, 0) / 10;
    const wakeups = per.reduce((sum, t) => sum + t.wakeupsPerS, 0);
    const busiest = per.filter((t) => t.cpuMsPerS > 0.05).sort((x, y) => y.cpuMsPerS - x.cpuMsPerS).slice(0, 3);
    const threads = busiest.map((t) => `${fmt(t.cpuMsPerS, 2)} ms/s, ${fmt(t.wakeupsPerS, 1)}/s`).join("; ") || "none above 0.05 ms/s";
    log(`  ${label}: ${fmt(cpu, 3)} % of a core, ${fmt(wakeups, 1)} wake-ups/s (${threads})`);
    return { cpu, wakeups, threads };
  } finally {
    await subject.stop();
  }
}

async function main(): Promise<void> {
  if (!existsSync(THIS_CLI)) throw new Error(`${THIS_CLI} not found: npm run build first`);
  if (COMPARE_BUILD !== undefined && !existsSync(resolve(COMPARE_BUILD, "dist", "cli.js"))) throw new Error(`--compare-build ${COMPARE_BUILD}: no dist/cli.js there`);
  const labels: Label[] = ["netemu", "netemu-scraped", ...(COMPARE_BUILD === undefined ? [] : (["before", "before-scraped"] as const)), "node"];
  if (existsSync(UBRIDGE)) labels.push("ubridge");
  else log(`uBridge left out: not found at ${UBRIDGE} (../shared/gns3-peer/install.sh installs it)`);
  log(`${SWITCHES} idle switches of 2 UDP NIOs each; ${SECONDS} s a measure after ${SETTLE_MS / 1000} s of settling; ${ROUNDS} rounds`);
  const readings = new Map<Label, Reading[]>(labels.map((l) => [l, []]));
  for (let round = 1; round <= ROUNDS; round++) {
    log(`round ${round}/${ROUNDS}`);
    for (const label of labels) readings.get(label)!.push(await measure(label));
  }
  const cpuOf = (label: Label): number => median(readings.get(label)!.map((r) => r.cpu));
  /** This build against the other, set-up by set-up. */
  const against: Partial<Record<Label, Label>> = { netemu: "before", "netemu-scraped": "before-scraped" };
  const rows = labels.map((label) => {
    const rs = readings.get(label)!;
    const other = COMPARE_BUILD === undefined ? undefined : against[label];
    const ratio = other === undefined ? "" : `${fmt(cpuOf(label) / cpuOf(other), 2)} ×`;
    return [NAMES[label], `${fmt(cpuOf(label), 3)} (${rs.map((r) => fmt(r.cpu, 3)).join(", ")})`, fmt(median(rs.map((r) => r.wakeups)), 1), ratio, rs[rs.length - 1]!.threads];
  });
  process.stdout.write(`\n${markdownTable(["process", "CPU, % of a core: median (each round)", "wake-ups/s (median)", "CPU against --compare-build", "busiest threads, CPU and wake-ups (last round)"], rows)}\n`);
}

await main();
