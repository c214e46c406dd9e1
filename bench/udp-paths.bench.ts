/**
 * Batched datagrams against uBridge (issue 20). Six forwarders, each its own process pinned on CPU 1
 * with all its threads, carry frames gen → port 0 → port 1 → sink in the same run:
 *   relay    the bare node:dgram relay (the data-plane rig's), the runtime's ceiling before issue 20;
 *   addon-relay  netemu's batched UDP transport (its addon) with each frame given straight to the other
 *            NIO: what Node, the addon and the transport cost without the switch (issue 30, ADR 0114);
 *   c-relay  a bare C recvmmsg/sendmmsg relay (bench/native/udp-relay.c, compiled here with cc): two
 *            connected sockets as netemu has, one thread, epoll, no switching: an event loop's floor (issue 30);
 *   batched  a netemu switch, 2 UDP NIOs, on the recvmmsg/sendmmsg addon (ADR 0068);
 *   dgram    the same switch with NETEMU_UDP_PATH=dgram;
 *   ubridge  uBridge 0.9.19, one bridge with two UDP NIOs, driven through its hypervisor;
 *   batched-cT  with --coalesce-us T[,T...]: the batched switch with receive coalescing at T µs
 *            (NETEMU_UDP_COALESCE_US, ADR 0110), one forwarder per T.
 * The generator and the sink are one small C program (bench/native/udp-loadgen.c, compiled here with
 * cc) pinned on CPU 0: sendmmsg / recvmmsg, one clock for the one-way latency.
 *
 *   node build/bench/udp-paths.bench.js [--quick] [--rounds N] [--sizes 64,1500] [--workers N]
 *        [--offer FRAMES_PER_S] [--cost-rate 1000,10000,30000] [--only relay,addon-relay,c-relay,batched,dgram,ubridge]
 *        [--coalesce-us 200,500] [--compare-build DIR] [--buffer BYTES] [--profile DIR] [--capacity-only | --latency-only | --cost-only]
 *        [--verbose] [--json FILE]
 *
 * Per forwarder and size: capacity (frames/s delivered when offered more than it takes), loss-free
 * rate (searched as bench/lib/dataplane-rig.ts does), CPU per frame (utime + stime of the whole process
 * from /proc/<pid>/stat at each of the fixed rates of --cost-rate, which every forwarder carries, with
 * the one-way latency at each of those rates) and latency at 1,000 frames/s. --cost-only skips the capacity and loss-free trials. --compare-build DIR
 * adds "batched-alt": the batched path of another checkout's build (DIR/build/bench/dataplane-child.js,
 * with that checkout's native/build addon), for an A/B of two commits in one run. The
 * forwarders alternate within each round; the report takes each cell's median and prints markdown.
 * Everything listens on 127.0.0.1; every process it starts is ended by its pid.
 */
import { buildLoadgen, runLoadgen, type LoadgenRun } from "./lib/loadgen.js";
import { spawn, spawnSync, type ChildProcess } from "node:child_process";
import { existsSync, mkdirSync, readFileSync, writeFileSync } from "node:fs";
import { cpus } from "node:os";
import { dirname, join } from "node:path";
import { fileURLToPath, pathToFileURL } from "node:url";
import { Child, cpuTimes, fmt, markdownTable, median, monoMs, readSysctl, pinProcess, processCpuUs, sleep, stopProcess, udpDrops } from "./lib/util.js";
import { startUbridgeBridge, UBRIDGE } from "./lib/ubridge.js";
import { freeUdpPort } from "../test/support/udp-peer.js";

const argv = process.argv.slice(2);
const QUICK = argv.includes("--quick");
const VERBOSE = argv.includes("--verbose");
const opt = (name: string): string | undefined => {
  const i = argv.indexOf(name);
  return i >= 0 ? argv[i + 1] : undefined;
};
const ROUNDS = Math.max(1, Number(opt("--rounds")) || (QUICK ? 1 : 3));
const SIZES = (opt("--sizes") ?? "64,1500").split(",").map(Number).filter((n) => n >= 64 && n <= 9000);
/** Data-plane workers of the netemu forwarders: `netemu serve`'s default (the cores but one, at least 1). */
const WORKERS = opt("--workers") !== undefined ? Number(opt("--workers")) : Math.max(1, Math.min(8, cpus().length - 1));
/** Offered rate of the capacity trials: above every forwarder's capacity, under the load side's. */
const OFFER = Number(opt("--offer")) || 600_000;
/** Fixed rates of the CPU-per-frame trials, each one every forwarder carries without loss: the moderate
 * rates most links of a lab run at, where each frame is its own wake-up (issue 30). */
const COST_RATES = (opt("--cost-rate") ?? "1000,10000,30000").split(",").map(Number).filter((n) => n > 0);
/** Only the CPU-per-frame and latency trials (no capacity, no loss-free search). */
const COST_ONLY = argv.includes("--cost-only");
const COMPARE_BUILD = opt("--compare-build");
/** Receive coalescing intervals (µs) to run the batched switch with, each its own forwarder (ADR 0110). */
const COALESCE_US = (opt("--coalesce-us") ?? "").split(",").filter((x) => x !== "").map(Number);
if (COALESCE_US.some((us) => !Number.isInteger(us) || us < 1 || us > 1000)) throw new Error(`--coalesce-us takes whole microseconds from 1 to 1000, got ${opt("--coalesce-us")}`);
const LATENCY_RATE = 1000;
const ONLY = opt("--only")?.split(",");
const PROFILE_DIR = opt("--profile");
const JSON_OUT = opt("--json");
/** Only 5 s capacity trials (with --profile: a profile of the saturated forwarder). */
const CAPACITY_ONLY = argv.includes("--capacity-only");
/** Only the latency trials (the rest of the table is then meaningless). */
const LATENCY_ONLY = argv.includes("--latency-only");
const STEP_MS = QUICK ? 800 : 2000;
const COST_MS = QUICK ? 1500 : 4000;
const LATENCY_MS = QUICK ? 2000 : 5000;
const PRECISION = QUICK ? 0.12 : 0.05;
const MAX_LOSS = 0.001;
/** Other processes' CPU (% of one core) above which a failing trial is repeated (as the data-plane rig). */
const DISTURBED_OTHER_CPU_PCT = 30;
const DISTURBED_RETRIES = 3;
/** NIO socket buffers of the Node forwarders: serve's default (--udp-buffer), 4 MiB. */
const BUFFER = Number(opt("--buffer")) || 4 * 1024 * 1024;

const started = monoMs();
const log = (s: string): void => void process.stderr.write(`[${((monoMs() - started) / 1000).toFixed(0).padStart(4)} s] ${s}\n`);

interface Forwarder {
  readonly label: Label;
  readonly pid: number;
  readonly lports: readonly [number, number];
  /** What the forwarder says about itself (netemu's datagram path). */
  readonly note: string;
  stop(): Promise<void>;
}

type Coalesced = `batched-c${number}`;
type Label = "relay" | "addon-relay" | "c-relay" | "batched" | "batched-alt" | "dgram" | "ubridge" | Coalesced;
const LABELS: readonly Label[] = [
  ...(["relay", "addon-relay", "c-relay", "batched", "batched-alt", "dgram", "ubridge"] as const).filter((l) => (l === "batched-alt" ? COMPARE_BUILD !== undefined : ONLY === undefined || ONLY.includes(l))),
  ...COALESCE_US.map((us): Coalesced => `batched-c${us}`),
];
/** The coalescing interval a label runs the batched switch with (µs), 0 for none. */
const coalescingOf = (label: Label): number => (label.startsWith("batched-c") ? Number(label.slice("batched-c".length)) : 0);
const NAMES: Record<Exclude<Label, Coalesced>, string> = {
  relay: "bare node:dgram relay",
  "addon-relay": "netemu's batched transport, no switch",
  "c-relay": "bare C recvmmsg/sendmmsg relay",
  batched: "netemu, batched path",
  "batched-alt": `netemu, batched path, build of ${COMPARE_BUILD ?? ""}`,
  dgram: "netemu, node:dgram path",
  ubridge: "uBridge 0.9.19",
};
const nameOf = (label: Label): string => (coalescingOf(label) > 0 ? `netemu, batched path, receive coalescing ${coalescingOf(label)} µs` : NAMES[label as Exclude<Label, Coalesced>]);

let nextLport = 43000 + (process.pid % 400) * 10;

async function startNodeForwarder(label: Exclude<Label, "ubridge" | "c-relay">, gen: number, sink: number): Promise<Forwarder> {
  const lports: [number, number] = [nextLport, nextLport + 1];
  nextLport += 2;
  const mode = label === "relay" || label === "addon-relay" ? label : "netemu";
  const env = { ...process.env };
  delete env["NETEMU_UDP_PATH"];
  delete env["NETEMU_UDP_COALESCE_US"];
  if (label === "dgram") env["NETEMU_UDP_PATH"] = "dgram";
  if (coalescingOf(label) > 0) env["NETEMU_UDP_COALESCE_US"] = String(coalescingOf(label));
  const execArgv = PROFILE_DIR !== undefined && mode === "netemu" ? ["--cpu-prof", "--cpu-prof-dir", join(PROFILE_DIR, label)] : [];
  const args = { mode, bufferBytes: BUFFER, lports, peers: [gen, sink], http: false, workers: mode === "netemu" ? WORKERS : 0, chain: 1 };
  const base = label === "batched-alt" && COMPARE_BUILD !== undefined ? pathToFileURL(join(COMPARE_BUILD, "build", "bench", "udp-paths.bench.js")).href : import.meta.url;
  const child = await Child.start(base, "./dataplane-child.js", ["dut", JSON.stringify(args)], `fwd:${label}`, execArgv, env);
  pinProcess(child.pid, 1);
  let note = "";
  if (mode === "netemu") {
    const info = await child.call<{ udpPath: { kind: string; reason?: string; coalescingMicroseconds?: number } }>("info");
    note = info.udpPath.kind === "batched" ? "batched" : `dgram (${info.udpPath.reason ?? ""})`;
    const expected = label === "dgram" ? "dgram" : "batched";
    if (info.udpPath.kind !== expected) throw new Error(`${label}: the forwarder runs the ${note} path; is the addon built (npm run build:native)?`);
    if (coalescingOf(label) > 0 && info.udpPath.coalescingMicroseconds !== coalescingOf(label)) throw new Error(`${label}: the forwarder coalesces at ${info.udpPath.coalescingMicroseconds ?? 0} µs`);
    note += WORKERS > 0 ? `, data plane in ${WORKERS} worker thread${WORKERS > 1 ? "s" : ""}` : ", data plane on the main thread";
  }
  pinProcess(child.pid, 1); // the worker threads started during the set-up inherit it; this catches any other
  return { label, pid: child.pid, lports, note, stop: () => child.stop() };
}

/** Compiles bench/native/udp-relay.c next to the compiled bench, as the load generator is. */
function buildCRelay(): string {
  const here = dirname(fileURLToPath(import.meta.url));
  const source = join(here, "..", "..", "bench", "native", "udp-relay.c");
  const out = join(here, "native", "udp-relay");
  mkdirSync(dirname(out), { recursive: true });
  const r = spawnSync(process.env["CC"] ?? "cc", ["-O2", "-Wall", "-Wextra", "-o", out, source], { stdio: ["ignore", "ignore", "pipe"], encoding: "utf8" });
  if (r.error !== undefined || r.status !== 0) throw new Error(`cannot build the C relay: ${r.error?.message ?? r.stderr.trim()}`);
  return out;
}

async function startCRelay(gen: number, sink: number): Promise<Forwarder> {
  const lports: [number, number] = [nextLport, nextLport + 1];
  nextLport += 2;
  cRelayPath ??= buildCRelay();
  const proc: ChildProcess = spawn("taskset", ["-c", "1", cRelayPath, String(lports[0]), String(gen), String(lports[1]), String(sink), String(BUFFER)], { stdio: ["ignore", "pipe", "pipe"] });
  const exited = new Promise<void>((r) => proc.on("exit", () => r()));
  const stop = (): Promise<void> => stopProcess(proc);
  const ready = await Promise.race([
    new Promise<boolean>((r) => proc.stdout?.on("data", (d: Buffer) => d.toString("utf8").includes("ready") && r(true))),
    exited.then(() => false),
    sleep(5000).then(() => false),
  ]);
  if (!ready || proc.pid === undefined) {
    await stop();
    throw new Error("the C relay did not start");
  }
  return { label: "c-relay", pid: proc.pid, lports, note: "", stop };
}
let cRelayPath: string | undefined;

async function startUbridge(gen: number, sink: number): Promise<Forwarder> {
  const lports: [number, number] = [nextLport, nextLport + 1];
  nextLport += 2;
  const bridge = await startUbridgeBridge([{ lport: lports[0], rport: gen }, { lport: lports[1], rport: sink }], { cpu: 1 });
  pinProcess(bridge.pid, 1);
  return { label: "ubridge", pid: bridge.pid, lports, note: `uBridge ${bridge.version}, kernel-default socket buffers`, stop: () => bridge.stop() };
}

interface Trial {
  rate: number;
  size: number;
  sent: number;
  received: number;
  achievedRate: number;
  /** Frames/s that reached the sink while the generator sent. */
  deliveredRate: number;
  loss: number;
  fwdCpuUs: number;
  /** The forwarder's CPU time per frame it delivered, µs. */
  usPerFrame: number;
  kernelDrops: { fwdIn: number; fwdOut: number; sink: number };
  cpu: { fwd: number; load: number; other: number };
  latency: { p50: number; p99: number; max: number; min: number };
}


let runId = 1;

class Rig {
  constructor(
    readonly loadgen: string,
    readonly genPort: number,
    readonly sinkPort: number,
  ) {}

  private run(target: number, sinkPeer: number, o: { rate: number; durationMs: number; size: number; latency?: boolean }): Promise<LoadgenRun> {
    return runLoadgen(this.loadgen, { genPort: this.genPort, target, sinkPort: this.sinkPort, sinkPeer, ...o, runId: runId++, latency: o.latency === true, cpu: 0 });
  }

  /** The load side alone, the generator straight into the sink: its own ceiling. */
  async ceiling(size: number, rate: number): Promise<LoadgenRun> {
    return this.run(this.sinkPort, this.genPort, { rate, durationMs: QUICK ? 1000 : 2000, size });
  }

  async trial(f: Forwarder, o: { rate: number; durationMs: number; size: number; latency?: boolean }): Promise<Trial> {
    const ports = [f.lports[0], f.lports[1], this.sinkPort];
    const d0 = udpDrops(ports);
    const c0 = processCpuUs(f.pid);
    const m0 = cpuTimes();
    const t0 = monoMs();
    const g = await this.run(f.lports[0], f.lports[1], o);
    const wall = monoMs() - t0;
    const c1 = processCpuUs(f.pid);
    const m1 = cpuTimes();
    const d1 = udpDrops(ports);
    const drop = (p: number): number => (d1.get(p) ?? 0) - (d0.get(p) ?? 0);
    const fwdCpuUs = c1 - c0;
    const machinePct = m1.total > m0.total ? ((m1.busy - m0.busy) / (m1.total - m0.total)) * 100 * cpus().length : 0;
    const fwdPct = (fwdCpuUs / 1000 / wall) * 100;
    const loadPct = (g.cpuUs / 1000 / wall) * 100;
    return {
      rate: o.rate,
      size: o.size,
      sent: g.sent,
      received: g.received,
      achievedRate: g.achievedRate,
      deliveredRate: g.sendMs > 0 ? (g.received / g.sendMs) * 1000 : 0,
      loss: g.sent === 0 ? 0 : Math.max(0, g.sent - g.received) / g.sent,
      fwdCpuUs,
      usPerFrame: fwdCpuUs / Math.max(1, g.received),
      kernelDrops: { fwdIn: drop(f.lports[0]), fwdOut: drop(f.lports[1]), sink: drop(this.sinkPort) },
      cpu: { fwd: fwdPct, load: loadPct, other: Math.max(0, machinePct - fwdPct - loadPct) },
      latency: g.latency,
    };
  }

  /** Highest offered rate with loss under 0.1 %: doubling, then bisecting (as DataplaneRig.search). */
  async search(f: Forwarder, size: number, maxRate: number): Promise<{ rate: number; disturbed: number; firstFail: Trial | undefined }> {
    await this.trial(f, { rate: 5000, durationMs: 400, size }); // JIT warm-up
    let lo = 0;
    let hi = Number.POSITIVE_INFINITY;
    let disturbed = 0;
    let firstFail: Trial | undefined;
    const step = async (rate: number): Promise<boolean> => {
      let t = await this.trial(f, { rate, durationMs: STEP_MS, size });
      if (VERBOSE) log(`    ${stepLine(t)}`);
      let retries = 1;
      let disturbedLeft = DISTURBED_RETRIES;
      while (!passes(t)) {
        // A load side that could not send at the rate did not test it (CPU 0 was taken from it).
        if ((t.cpu.other > DISTURBED_OTHER_CPU_PCT || t.achievedRate < 0.95 * t.rate) && disturbedLeft > 0) {
          disturbedLeft--;
          disturbed++;
        } else if (retries > 0) retries--;
        else break;
        await sleep(200);
        t = await this.trial(f, { rate, durationMs: STEP_MS, size });
        if (VERBOSE) log(`    ${stepLine(t)} (again)`);
      }
      const ok = passes(t);
      if (ok) lo = rate;
      else {
        hi = rate;
        if (firstFail === undefined || rate < firstFail.rate) firstFail = t;
      }
      await sleep(100);
      return ok;
    };
    let rate = 10_000;
    while (await step(rate)) {
      if (rate >= maxRate) break;
      rate = Math.min(rate * 2, maxRate);
    }
    while (Number.isFinite(hi) && (hi - lo) / hi > PRECISION) {
      const mid = Math.round((lo + hi) / 2 / 100) * 100;
      if (mid <= lo || mid >= hi) break;
      await step(mid);
    }
    return { rate: lo, disturbed, firstFail };
  }
}

/** A search step passes with < 0.1 % loss at an offered rate the generator really kept (≥ 95 %). */
function passes(t: Trial): boolean {
  return t.loss < MAX_LOSS && t.achievedRate >= 0.95 * t.rate;
}

function stepLine(t: Trial): string {
  return `rate ${fmt(t.rate)} (sent ${fmt(t.achievedRate)}/s) delivered ${fmt(t.deliveredRate)}/s loss ${(t.loss * 100).toFixed(3)} % kdrops in/out/sink ${t.kernelDrops.fwdIn}/${t.kernelDrops.fwdOut}/${t.kernelDrops.sink} cpu fwd/load/other ${t.cpu.fwd.toFixed(0)}/${t.cpu.load.toFixed(0)}/${t.cpu.other.toFixed(0)} %`;
}

interface Cell {
  label: Label;
  size: number;
  round: number;
  note: string;
  capacity: Trial;
  lossFree: number;
  disturbed: number;
  firstFail: Trial | undefined;
  /** One CPU-per-frame trial per rate of --cost-rate, in that order. */
  costs: Trial[];
  /** The forwarder's CPU with no frames at all, % of one core: what every frame at a low rate shares. */
  idlePct: number;
  latency: Trial;
}

async function measure(rig: Rig, label: Label, size: number, round: number): Promise<Cell> {
  const f =
    label === "ubridge" ? await startUbridge(rig.genPort, rig.sinkPort) : label === "c-relay" ? await startCRelay(rig.genPort, rig.sinkPort) : await startNodeForwarder(label, rig.genPort, rig.sinkPort);
  try {
    log(`${label} ${size} B round ${round}/${ROUNDS} (pid ${f.pid}${f.note ? `, ${f.note}` : ""})`);
    await rig.trial(f, { rate: 20_000, durationMs: 500, size }); // JIT warm-up, MAC learnt
    if (LATENCY_ONLY) {
      const latency = await rig.trial(f, { rate: LATENCY_RATE, durationMs: LATENCY_MS, size, latency: true });
      log(`  latency at ${fmt(LATENCY_RATE)}/s: p50 ${latency.latency.p50.toFixed(3)} p99 ${latency.latency.p99.toFixed(3)} ms, loss ${(latency.loss * 100).toFixed(3)} %, rest of machine ${latency.cpu.other.toFixed(0)} %`);
      return { label, size, round, note: f.note, capacity: latency, lossFree: Number.NaN, disturbed: 0, firstFail: undefined, costs: COST_RATES.map(() => latency), idlePct: Number.NaN, latency };
    }
    const idle = async (): Promise<number> => {
      const c0 = processCpuUs(f.pid);
      const t0 = monoMs();
      await sleep(COST_MS);
      const pct = ((processCpuUs(f.pid) - c0) / 1000 / (monoMs() - t0)) * 100;
      log(`  idle: ${pct.toFixed(2)} % of a core`);
      return pct;
    };
    const costTrials = async (): Promise<Trial[]> => {
      const costs: Trial[] = [];
      for (const rate of COST_RATES) {
        const cost = await rig.trial(f, { rate, durationMs: COST_MS, size, latency: true });
        log(`  cost at ${fmt(rate)}/s: ${cost.usPerFrame.toFixed(2)} µs/frame, latency p50 ${cost.latency.p50.toFixed(3)} p99 ${cost.latency.p99.toFixed(3)} ms (loss ${(cost.loss * 100).toFixed(3)} %, rest of machine ${cost.cpu.other.toFixed(0)} %)`);
        costs.push(cost);
      }
      return costs;
    };
    if (COST_ONLY) {
      const idlePct = await idle();
      const costs = await costTrials();
      const latency = await rig.trial(f, { rate: LATENCY_RATE, durationMs: LATENCY_MS, size, latency: true });
      log(`  latency at ${fmt(LATENCY_RATE)}/s: p50 ${latency.latency.p50.toFixed(3)} p99 ${latency.latency.p99.toFixed(3)} ms, loss ${(latency.loss * 100).toFixed(3)} %`);
      return { label, size, round, note: f.note, capacity: latency, lossFree: Number.NaN, disturbed: 0, firstFail: undefined, costs, idlePct, latency };
    }
    const capacity = await rig.trial(f, { rate: OFFER, durationMs: CAPACITY_ONLY ? 5000 : STEP_MS, size });
    log(`  capacity: ${stepLine(capacity)} (${capacity.usPerFrame.toFixed(2)} µs/frame)`);
    if (CAPACITY_ONLY) return { label, size, round, note: f.note, capacity, lossFree: Number.NaN, disturbed: 0, firstFail: undefined, costs: COST_RATES.map(() => capacity), idlePct: Number.NaN, latency: capacity };
    const search = await rig.search(f, size, OFFER);
    log(`  loss-free: ${fmt(search.rate)} frames/s${search.disturbed > 0 ? ` (${search.disturbed} disturbed trials repeated)` : ""}${search.firstFail ? `; first failing step: ${stepLine(search.firstFail)}` : ""}`);
    const idlePct = await idle();
    const costs = await costTrials();
    const latency = await rig.trial(f, { rate: LATENCY_RATE, durationMs: LATENCY_MS, size, latency: true });
    log(`  latency at ${fmt(LATENCY_RATE)}/s: p50 ${latency.latency.p50.toFixed(3)} p99 ${latency.latency.p99.toFixed(3)} ms, loss ${(latency.loss * 100).toFixed(3)} %`);
    return { label, size, round, note: f.note, capacity, lossFree: search.rate, disturbed: search.disturbed, firstFail: search.firstFail, costs, idlePct, latency };
  } finally {
    await f.stop();
  }
}

async function main(): Promise<void> {
  if (!existsSync(UBRIDGE) && LABELS.includes("ubridge")) throw new Error(`uBridge not found at ${UBRIDGE} (../shared/gns3-peer/install.sh installs it; NETEMU_BENCH_UBRIDGE points elsewhere)`);
  if (cpus().length < 2) throw new Error("this bench pins the load on CPU 0 and the forwarder on CPU 1: it needs 2 CPUs");
  // The orchestrator only waits during trials; it stays off the forwarder's CPU.
  pinProcess(process.pid, 0);
  const machine = { nproc: cpus().length, cpu: cpus()[0]?.model ?? "?", node: process.version, rmemMax: readSysctl("net.core.rmem_max"), rmemDefault: readSysctl("net.core.rmem_default"), load: readFileSync("/proc/loadavg", "utf8").trim() };
  log(`machine ${JSON.stringify(machine)} quick=${QUICK} rounds=${ROUNDS} sizes=${SIZES.join(",")} workers=${WORKERS} offer=${OFFER}`);
  const loadgen = buildLoadgen();
  if ("error" in loadgen) throw new Error(`cannot build the load generator (${loadgen.error}): this bench needs a C compiler`);
  const rig = new Rig(loadgen.path, await freeUdpPort(), await freeUdpPort());

  // The load side's own ceiling: the generator straight into the sink, both on CPU 0. It pays the
  // kernel's delivery of every frame too (a forwarder on CPU 1 pays it for the frames it sends), so
  // in the real set-up the load side goes further than this.
  const ceilings: { size: number; offered: number; g: LoadgenRun }[] = [];
  for (const size of SIZES) {
    for (const offered of [OFFER, 2 * OFFER]) {
      const g = await rig.ceiling(size, offered);
      log(`load side alone, ${size} B offered ${fmt(offered)}/s: sent ${fmt(g.achievedRate)}/s, received ${fmt((g.received / g.sendMs) * 1000)}/s, loss ${(((g.sent - g.received) / g.sent) * 100).toFixed(3)} %`);
      ceilings.push({ size, offered, g });
    }
  }

  const cells: Cell[] = [];
  for (let round = 1; round <= ROUNDS; round++) {
    for (const size of SIZES) {
      // Interleaved, and in a rotated order each round so no forwarder always runs first.
      const order = LABELS.map((_, i) => LABELS[(i + round - 1) % LABELS.length] as Label);
      for (const label of order) cells.push(await measure(rig, label, size, round));
    }
  }

  const out = report(machine, ceilings, cells);
  process.stdout.write(`${out}\n`);
  if (JSON_OUT !== undefined) writeFileSync(JSON_OUT, JSON.stringify({ machine, options: { QUICK, ROUNDS, SIZES, WORKERS, OFFER, COST_RATES, COST_ONLY, COMPARE_BUILD }, ceilings, cells }, null, 2));
}

function report(machine: Record<string, unknown>, ceilings: { size: number; offered: number; g: LoadgenRun }[], cells: Cell[]): string {
  const at = (label: Label, size: number): Cell[] => cells.filter((c) => c.label === label && c.size === size);
  const med = (label: Label, size: number, f: (c: Cell) => number): number => median(at(label, size).map(f));
  const each = (label: Label, size: number, f: (c: Cell) => number, digits = 0): string => (ROUNDS > 1 ? ` (${at(label, size).map((c) => fmt(f(c), digits)).join(", ")})` : "");
  const capacityOf = (c: Cell): number => c.capacity.deliveredRate;
  /** A forwarder that lost nothing at the offered rate was not saturated: its capacity is at least that. */
  const saturated = (label: Label, size: number): boolean => at(label, size).some((c) => c.capacity.loss >= MAX_LOSS);
  const ratio = (a: number, b: number): string => (Number.isFinite(a / b) && b > 0 ? `${(a / b).toFixed(2)}×` : "–");
  const lines: string[] = [];
  lines.push(`## Batched datagrams against uBridge (${QUICK ? "--quick" : "full"} run, ${((monoMs() - started) / 1000).toFixed(0)} s, ${new Date().toISOString().slice(0, 16).replace("T", " ")} UTC)`);
  lines.push("");
  lines.push(`Machine: ${String(machine["nproc"])} × ${String(machine["cpu"])}, Node ${String(machine["node"])}, net.core.rmem_max ${String(machine["rmemMax"])}; load average at start ${String(machine["load"])}.`);
  lines.push(`Generator and sink (bench/native/udp-loadgen.c: UDP GSO sends, recvmmsg) on CPU 0, each forwarder and all its threads on CPU 1. netemu: ${cells.find((c) => c.label === "batched")?.note ?? cells.find((c) => c.label === "dgram")?.note ?? "–"}; ${fmt(BUFFER / 1024)} KiB socket buffers for the Node forwarders (serve's default is 4,096), uBridge the kernel's default.`);
  lines.push(`${ROUNDS} round${ROUNDS > 1 ? "s" : ""}, forwarders interleaved within each round, medians (each round's figure in brackets). Capacity: frames/s delivered while ${fmt(OFFER)} frames/s are offered for ${STEP_MS} ms. Loss-free: highest offered rate with < 0.1 % loss over a ${STEP_MS} ms trial, the generator keeping ≥ 95 % of it (doubling from 10,000, bisection to ${PRECISION * 100} %, a failing step tried twice). CPU per frame: the forwarder's CPU time (the sum of its threads' /proc/<pid>/task/*/schedstat) over the frames delivered, at ${COST_RATES.map((r) => fmt(r)).join(", ")} frames/s for ${COST_MS} ms each, and at capacity. Latency: one way, ${fmt(LATENCY_RATE)} frames/s for ${LATENCY_MS} ms.`);
  lines.push("");
  lines.push("Load side alone (generator straight into the sink, both on CPU 0):");
  lines.push("");
  lines.push(markdownTable(["frame", "offered", "sent", "received", "loss"], ceilings.map(({ size, offered, g }) => [`${size} B`, fmt(offered), fmt(g.achievedRate), fmt((g.received / g.sendMs) * 1000), `${(((g.sent - g.received) / Math.max(1, g.sent)) * 100).toFixed(2)} %`])));
  lines.push("");
  if (COST_ONLY) return costReport(lines, cells).join("\n");
  for (const size of SIZES) {
    const ub = { cap: med("ubridge", size, capacityOf), lf: med("ubridge", size, (c) => c.lossFree) };
    const dg = { cap: med("dgram", size, capacityOf), lf: med("dgram", size, (c) => c.lossFree) };
    lines.push(`### ${size}-byte frames`);
    lines.push("");
    lines.push(
      markdownTable(
        ["forwarder", "capacity (frames/s)", "vs uBridge", "vs dgram", "loss-free (frames/s)", "vs uBridge", "vs dgram", "idle CPU (% of a core)", ...COST_RATES.map((r) => `CPU µs/frame at ${fmt(r)}/s`), "CPU µs/frame at capacity", "one core's worth (10⁶ / µs per frame at capacity)", "vs uBridge", "latency p50 / p99 (ms)"],
        LABELS.map((label) => {
          const cap = med(label, size, capacityOf);
          const lf = med(label, size, (c) => c.lossFree);
          const ge = saturated(label, size) ? "" : "≥ ";
          return [
            nameOf(label),
            `${ge}${fmt(cap)}${each(label, size, capacityOf)}`,
            ratio(cap, ub.cap),
            ratio(cap, dg.cap),
            `${fmt(lf)}${each(label, size, (c) => c.lossFree)}`,
            ratio(lf, ub.lf),
            ratio(lf, dg.lf),
            `${med(label, size, (c) => c.idlePct).toFixed(2)}${each(label, size, (c) => c.idlePct, 2)}`,
            ...COST_RATES.map((_, i) => `${med(label, size, (c) => c.costs[i]?.usPerFrame ?? Number.NaN).toFixed(2)}${each(label, size, (c) => c.costs[i]?.usPerFrame ?? Number.NaN, 2)}`),
            `${med(label, size, (c) => c.capacity.usPerFrame).toFixed(2)}${each(label, size, (c) => c.capacity.usPerFrame, 2)}`,
            fmt(1e6 / med(label, size, (c) => c.capacity.usPerFrame)),
            ratio(med("ubridge", size, (c) => c.capacity.usPerFrame), med(label, size, (c) => c.capacity.usPerFrame)),
            `${med(label, size, (c) => c.latency.latency.p50).toFixed(3)} / ${med(label, size, (c) => c.latency.latency.p99).toFixed(3)}`,
          ];
        }),
      ),
    );
    lines.push("");
  }
  if (LABELS.includes("batched") && LABELS.includes("ubridge") && LABELS.includes("dgram")) {
    lines.push("### Goals (netemu's batched path)");
    lines.push("");
    const goals: string[][] = [];
    for (const size of SIZES) {
      const b = { cap: med("batched", size, capacityOf), lf: med("batched", size, (c) => c.lossFree), p50: med("batched", size, (c) => c.latency.latency.p50), p99: med("batched", size, (c) => c.latency.latency.p99) };
      const u = { cap: med("ubridge", size, capacityOf), lf: med("ubridge", size, (c) => c.lossFree) };
      const d = { p50: med("dgram", size, (c) => c.latency.latency.p50), p99: med("dgram", size, (c) => c.latency.latency.p99) };
      const met = (ok: boolean): string => (ok ? "met" : "not met");
      goals.push([`${size} B`, "capacity ≥ 1.0× uBridge (one core)", `${ratio(b.cap, u.cap)} (${fmt(b.cap)} vs ${fmt(u.cap)})`, met(b.cap >= u.cap)]);
      const perCore = (label: Label): number => 1e6 / med(label, size, (c) => c.capacity.usPerFrame);
      goals.push([`${size} B`, "the same per core: 10⁶ / CPU µs per frame at capacity ≥ 1.0× uBridge's", `${ratio(perCore("batched"), perCore("ubridge"))} (${fmt(perCore("batched"))} vs ${fmt(perCore("ubridge"))})`, met(perCore("batched") >= perCore("ubridge"))]);
      goals.push([`${size} B`, "loss-free ≥ 1.5× uBridge", `${ratio(b.lf, u.lf)} (${fmt(b.lf)} vs ${fmt(u.lf)})`, met(b.lf >= 1.5 * u.lf)]);
      // "No worse" within 10 % or 20 µs: the figures are a few tens of µs and wake-up noise is that size.
      const noWorse = (x: number, y: number): boolean => x <= y * 1.1 || x - y <= 0.02;
      goals.push([`${size} B`, "latency at 1,000/s no worse than dgram (p50, p99; within 10 % or 20 µs)", `${b.p50.toFixed(3)} / ${b.p99.toFixed(3)} vs ${d.p50.toFixed(3)} / ${d.p99.toFixed(3)} ms`, met(noWorse(b.p50, d.p50) && noWorse(b.p99, d.p99))]);
    }
    lines.push(markdownTable(["frame", "goal", "measured", "result"], goals));
    lines.push("");
  }
  costGoal(lines, cells);
  lines.push("Where the frames were lost in each capacity trial (kernel receive-queue drops by socket) and what the CPUs did:");
  lines.push("");
  lines.push(
    markdownTable(
      ["forwarder", "frame", "round", "offered / sent", "delivered", "drops forwarder-in / forwarder-out / sink", "CPU forwarder / load side / rest of machine"],
      cells.map((c) => [c.label, `${c.size} B`, String(c.round), `${fmt(c.capacity.rate)} / ${fmt(c.capacity.achievedRate)}`, fmt(c.capacity.deliveredRate), `${c.capacity.kernelDrops.fwdIn} / ${c.capacity.kernelDrops.fwdOut} / ${c.capacity.kernelDrops.sink}`, `${c.capacity.cpu.fwd.toFixed(0)} / ${c.capacity.cpu.load.toFixed(0)} / ${c.capacity.cpu.other.toFixed(0)} %`]),
    ),
  );
  const disturbed = cells.reduce((n, c) => n + c.disturbed, 0);
  lines.push("");
  lines.push(`Failing search trials repeated because other processes used more than ${DISTURBED_OTHER_CPU_PCT} % of a core or the generator kept under 95 % of the offered rate (up to ${DISTURBED_RETRIES} per step): ${disturbed}.`);
  return lines.join("\n");
}

/** --cost-only: per size, each forwarder's idle CPU, CPU per frame at each rate and latency; what else ran. */
function costReport(lines: string[], cells: Cell[]): string[] {
  const at = (label: Label, size: number): Cell[] => cells.filter((c) => c.label === label && c.size === size);
  const med = (label: Label, size: number, f: (c: Cell) => number): number => median(at(label, size).map(f));
  const each = (label: Label, size: number, f: (c: Cell) => number): string => (ROUNDS > 1 ? ` (${at(label, size).map((c) => f(c).toFixed(2)).join(", ")})` : "");
  for (const size of SIZES) {
    lines.push(`### ${size}-byte frames, CPU per frame`);
    lines.push("");
    lines.push(
      markdownTable(
        ["forwarder", "idle CPU (% of a core)", ...COST_RATES.map((r) => `CPU µs/frame at ${fmt(r)}/s`), ...COST_RATES.map((r) => `latency p50 / p99 in the trial at ${fmt(r)}/s (ms)`), "latency p50 / p99, own trial at 1,000/s (ms)"],
        LABELS.map((label) => [
          nameOf(label),
          `${med(label, size, (c) => c.idlePct).toFixed(2)}${each(label, size, (c) => c.idlePct)}`,
          ...COST_RATES.map((_, i) => `${med(label, size, (c) => c.costs[i]?.usPerFrame ?? Number.NaN).toFixed(2)}${each(label, size, (c) => c.costs[i]?.usPerFrame ?? Number.NaN)}`),
          ...COST_RATES.map((_, i) => `${med(label, size, (c) => c.costs[i]?.latency.p50 ?? Number.NaN).toFixed(3)} / ${med(label, size, (c) => c.costs[i]?.latency.p99 ?? Number.NaN).toFixed(3)}`),
          `${med(label, size, (c) => c.latency.latency.p50).toFixed(3)} / ${med(label, size, (c) => c.latency.latency.p99).toFixed(3)}`,
        ]),
      ),
    );
    lines.push("");
  }
  costGoal(lines, cells);
  const other = cells.flatMap((c) => c.costs.map((t) => t.cpu.other));
  lines.push(`The rest of the machine (other processes) during the CPU-per-frame trials: median ${median(other).toFixed(0)} % of a core, max ${Math.max(...other).toFixed(0)} % (of ${cpus().length * 100} %); frames lost in them: ${cells.flatMap((c) => c.costs).filter((t) => t.loss > 0).length} of ${other.length} trials lost some.`);
  return lines;
}

function costGoal(lines: string[], cells: Cell[]): void {
  const at = (label: Label, size: number): Cell[] => cells.filter((c) => c.label === label && c.size === size);
  const med = (label: Label, size: number, f: (c: Cell) => number): number => median(at(label, size).map(f));
  if (!(LABELS.includes("batched") && LABELS.includes("ubridge"))) return;
    lines.push("### Goal of issue 30 (CPU per frame at moderate rates)");
    lines.push("");
    const rows: string[][] = [];
    for (const size of SIZES) {
      COST_RATES.forEach((rate, i) => {
        const cost = (label: Label): number => med(label, size, (c) => c.costs[i]?.usPerFrame ?? Number.NaN);
        const u = cost("ubridge");
        // The two floors beside it: a C event loop's, and netemu's transport without the switch (ADR 0114).
        const floors = [["c-relay", "C relay"], ["addon-relay", "no switch"]] as const;
        const shown = floors.filter(([l]) => LABELS.includes(l)).map(([l, name]) => `${name} ${cost(l).toFixed(2)}`);
        const c = shown.length > 0 ? ` (${shown.join(", ")})` : "";
        for (const label of LABELS.filter((l) => l === "batched" || coalescingOf(l) > 0)) {
          const b = cost(label);
          const how = coalescingOf(label) > 0 ? `, coalescing ${coalescingOf(label)} µs` : "";
          rows.push([`${size} B`, fmt(rate), `${b.toFixed(2)}${how} vs ${u.toFixed(2)}${c}`, b <= u ? "met" : "not met"]);
        }
      });
    }
    lines.push(markdownTable(["frame", "frames/s", "netemu batched vs uBridge, CPU µs/frame", "at most uBridge's"], rows));
    lines.push("");
}

await main();
