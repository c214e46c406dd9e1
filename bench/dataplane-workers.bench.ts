/**
 * The data plane in worker threads (issue 10, ADR 0041), against the data plane on the main thread,
 * measured in the same run with the generator / DUT / sink processes of the data-plane benchmark:
 *
 *   1. a 50 ms delay at 20,000 frames/s while a client polls the node list of a 1,000-node project
 *      as fast as it can (and, for reference, with the API idle);
 *   2. the CPU time per frame (the whole DUT process: main thread and workers) at 40,000 frames/s;
 *   3. the aggregate loss-free rate of a chain of switches (each frame crosses every switch) with the
 *      data plane on the main thread, in 1 worker and in 2;
 *   4. (--only links, not in a run of all) the chain in 1 worker (its links between switches of one
 *      thread) and in 2 with the switches alternated (every link between the two workers), its links
 *      over UDP sockets and in process (ADR 0105, 0111), alternated round by round: the loss-free rate
 *      and the CPU per frame at a fixed rate (--links-rate, 20,000/s by default). With --links-dut-cpu P
 *      the search holds the DUT to P % of one core (a CPU cgroup, root only): on 2 cores the load side
 *      otherwise limits both set-ups before the DUT does, and the rate a share of a core forwards is
 *      what compares them.
 *      --links-cores places the DUT: "own" (all its threads on CPU 1, the load side on CPU 0), "shared"
 *      (all on CPU 0) or "any" (the scheduler's choice); own,shared by default. Where the DUT runs
 *      decides what a frame costs it on a VM: from a core of its own, each send to the sink wakes the
 *      other core (an inter-processor interrupt, a hypervisor exit charged to the sender); on the load
 *      side's core it does not, and the hops' own work is what is left to compare.
 *
 *   node build/bench/dataplane-workers.bench.js [--quick] [--rounds N] [--only delay|cost|chain|links]
 *     [--planes 0,1] [--dut-flags "--a --b"] [--chain-setup 0-4[,0-4...]] [--loadgen c|node]
 *     [--links-workers 1,2] [--links-rate 20000] [--links-dut-cpu 5-100] [--links-cores own,shared,any]
 *
 * --planes picks the data planes of the delay section (0: main thread, n: n workers); --dut-flags are
 * Node flags for the DUT and the control's process alike (to profile the coupling, issue 20).
 * --loadgen picks the chain section's generator and sink: the C program of bench:udp-paths (one
 * process, sendmmsg / recvmmsg; the default where cc builds it) or the Node ones; the delay and cost
 * sections keep the Node ones (their latency and CPU figures compare with the earlier runs').
 *
 * Prints markdown tables (docs/benchmarks.md) on stdout, progress on stderr. Everything listens on
 * 127.0.0.1 and every child process is ended by the benchmark.
 */
import { readFileSync } from "node:fs";
import { cpus } from "node:os";
import { DEFAULTS } from "../src/adapters/config/server-config.js";
import { holdToCpuShare } from "./lib/cpu-quota.js";
import { DataplaneRig, type LoadSide, type Trial, withDut } from "./lib/dataplane-rig.js";
import { fmt, markdownTable, median, monoMs, percentile, pinProcess } from "./lib/util.js";

const argv = process.argv.slice(2);
const QUICK = argv.includes("--quick");
const roundsAt = argv.indexOf("--rounds");
const ROUNDS = roundsAt >= 0 ? Math.max(1, Number(argv[roundsAt + 1]) || 1) : QUICK ? 1 : 3;
const onlyAt = argv.indexOf("--only");
/** Runs one section only (all three unless given). */
const ONLY = onlyAt >= 0 ? argv[onlyAt + 1] : undefined;
const runs = (section: "delay" | "cost" | "chain" | "links"): boolean => (ONLY === undefined && section !== "links") || ONLY === section;
const planesAt = argv.indexOf("--planes");
/** The data planes of the delay section. */
const PLANES = planesAt >= 0 ? (argv[planesAt + 1] ?? "0,1").split(",").map(Number) : [0, 1];
const flagsAt = argv.indexOf("--dut-flags");
const DUT_FLAGS = flagsAt >= 0 ? (argv[flagsAt + 1] ?? "").split(" ").filter((f) => f !== "") : [];
const MiB4 = 4 * 1024 * 1024;
const API_NODES = 1000;
const DELAY_RATE = 20_000;
const COST_RATE = 40_000;
const CHAIN = 4;
/** Traffic before each chain search: long enough for placement by load to make its 2 moves (1 s loads, 2 quiet intervals after each). */
const WARM_UP_MS = 7000;
const setupAt = argv.indexOf("--chain-setup");
/** Only the chain set-ups of these indexes (0-4, CHAIN_SETUPS; e.g. "1,3"), to look at some. */
const SETUPS = setupAt >= 0 ? (argv[setupAt + 1] ?? "").split(",").map(Number) : undefined;

const linksWorkersAt = argv.indexOf("--links-workers");
/** The links section's set-ups: the chain in 1 worker, and in 2 with every link between the two. */
const LINKS_WORKERS = linksWorkersAt >= 0 ? (argv[linksWorkersAt + 1] ?? "1,2").split(",").map(Number) : [1, 2];
if (!LINKS_WORKERS.every((w) => w === 1 || w === 2)) throw new Error(`--links-workers 1, 2 or 1,2, not ${argv[linksWorkersAt + 1]}`);

const loadgenAt = argv.indexOf("--loadgen");
/** The chain section's load side; undefined: C where it builds, else Node. */
const LOADGEN = loadgenAt >= 0 ? argv[loadgenAt + 1] : undefined;
if (LOADGEN !== undefined && LOADGEN !== "c" && LOADGEN !== "node") throw new Error(`--loadgen c|node, not ${LOADGEN}`);

const started = monoMs();
const log = (s: string): void => void process.stderr.write(`[${((monoMs() - started) / 1000).toFixed(0).padStart(4)} s] ${s}\n`);
const pct = (x: number, d = 3): string => `${(x * 100).toFixed(d)} %`;
const ms = (x: number | undefined): string => (x === undefined || !Number.isFinite(x) ? "–" : x.toFixed(3));
/** a / b, or "–" when b was not measured (a set-up left out by --chain-setup). */
const ratio = (a: number, b: number): string => (Number.isFinite(b) && b > 0 ? (a / b).toFixed(2) : "–");
const where = (workers: number): string => (workers === 0 ? "main thread" : `${workers} worker${workers > 1 ? "s" : ""}`);

async function post(url: string, body: unknown): Promise<Record<string, unknown>> {
  const r = await fetch(url, { method: "POST", headers: { "content-type": "application/json" }, body: JSON.stringify(body) });
  const json = (await r.json()) as Record<string, unknown>;
  if (!r.ok) throw new Error(`POST ${url}: ${r.status} ${JSON.stringify(json)}`);
  return json;
}

/** A controller project of `count` switches on the local compute: its node list is what the client polls. */
async function bigProject(base: string, count: number): Promise<string> {
  const project = (await post(`${base}/v2/projects`, { name: "api-load" }))["project_id"] as string;
  for (let i = 0; i < count; i++) await post(`${base}/v2/projects/${project}/nodes`, { name: `SW${i + 1}`, node_type: "ethernet_switch", compute_id: "local" });
  return `${base}/v2/projects/${project}/nodes`;
}

/** GETs `url` back to back until `stop` says so; answers each request's duration (ms) and the bytes of the last. */
function pollAsFastAsItCan(url: string): { stop: () => Promise<{ durations: number[]; bytes: number }> } {
  let polling = true;
  const durations: number[] = [];
  let bytes = 0;
  const loop = (async () => {
    while (polling) {
      const t0 = monoMs();
      const r = await fetch(url);
      bytes = (await r.arrayBuffer()).byteLength;
      durations.push(monoMs() - t0);
    }
  })();
  return {
    stop: async () => {
      polling = false;
      await loop;
      return { durations, bytes };
    },
  };
}

/** CPU (% of one core) of the DUT process, the generator, the sink and the rest of the machine. */
const cpuSplit = (t: Trial): string => `${t.cpu.dut.toFixed(0)} / ${t.cpu.gen.toFixed(0)} / ${t.cpu.sink.toFixed(0)} / ${t.cpu.other.toFixed(0)} %`;

/** The chain section's rig: with the C load side unless told otherwise or cc cannot build it. */
async function chainRig(): Promise<DataplaneRig> {
  if (LOADGEN === "node") return DataplaneRig.start();
  try {
    return await DataplaneRig.start({ loadSide: "c" });
  } catch (err) {
    if (LOADGEN === "c") throw err;
    log(`chain: the Node load side (${err instanceof Error ? err.message : String(err)})`);
    return DataplaneRig.start();
  }
}

/** The load side's CPU: the C program's one process, or the Node generator and sink. */
const loadCpu = (t: Trial, side: LoadSide): string => (side === "c" ? t.cpu.gen.toFixed(0) : `${t.cpu.gen.toFixed(0)} / ${t.cpu.sink.toFixed(0)}`);

/** Where the polled API runs: in the DUT's process, or (the control) in another netemu process. */
type ApiLoad = "idle" | "polled" | "polled elsewhere";

interface DelayRow {
  workers: number;
  /** The delay filter's value on the ingress NIO (0: none, the path's own latency for reference). */
  delayMs: number;
  api: ApiLoad;
  t: Trial;
  polls?: { count: number; p50: number; bytes: number };
  /** The worker's event-loop delay over the trial (ms), when the data plane is in a worker. */
  loop?: { p99: number; max: number };
}

/**
 * The delay line's error with the DUT's API idle and polled; for each data plane also the path's own
 * latency (no delay) under the poll, and, as the control, the same poll served by another netemu
 * process: what the machine's 2 cores impose whatever the DUT does.
 */
async function delayUnderApiLoad(rig: DataplaneRig): Promise<DelayRow[]> {
  const rows: DelayRow[] = [];
  const durationMs = QUICK ? 2000 : 5000;
  // The control's API process: started first, as a DUT starting later takes the generator and sink.
  const elsewhere = await rig.startDut({ mode: "netemu", bufferBytes: MiB4, http: true, execArgv: DUT_FLAGS });
  try {
    log(`API elsewhere: creating ${API_NODES} nodes`);
    const elsewhereList = await bigProject(elsewhere.url as string, API_NODES);
    for (const workers of PLANES) {
      await withDut(rig, { mode: "netemu", bufferBytes: MiB4, http: true, workers, execArgv: DUT_FLAGS }, async (dut) => {
        log(`delay under API load, ${where(workers)}: creating ${API_NODES} nodes`);
        const list = await bigProject(dut.url as string, API_NODES);
        const trial = async (delayMs: number, api: ApiLoad): Promise<void> => {
          // Read (and so reset) before the trial: the reading after it covers the trial only.
          await dut.child.call("loopDelays", {});
          const poller = api === "idle" ? undefined : pollAsFastAsItCan(api === "polled" ? list : elsewhereList);
          const t = await rig.trial(dut, { rate: DELAY_RATE, durationMs, size: 64, latency: true, settleMs: 100 });
          const polled = await poller?.stop();
          const [loop] = await dut.child.call<{ p99: number; max: number }[]>("loopDelays", {});
          const row: DelayRow = { workers, delayMs, api, t, ...(loop === undefined ? {} : { loop: { p99: loop.p99, max: loop.max } }) };
          if (polled !== undefined) {
            const sorted = Float64Array.from(polled.durations).sort();
            row.polls = { count: polled.durations.length, p50: percentile(sorted, 50), bytes: polled.bytes };
          }
          const e = (x: number | undefined): string => ms(x === undefined ? undefined : x - delayMs);
          log(`  ${where(workers)}, delay ${delayMs} ms, API ${api}${row.polls ? ` (${row.polls.count} polls)` : ""}: error p50 ${e(t.latency?.p50)} p99 ${e(t.latency?.p99)} max ${e(t.latency?.max)} ms, worker loop late p99 ${ms(row.loop?.p99)} max ${ms(row.loop?.max)} ms, loss ${pct(t.loss)}, cpu DUT/gen/sink/rest ${cpuSplit(t)}`);
          rows.push(row);
        };
        await rig.trial(dut, { rate: 5000, durationMs: 500, size: 64, settleMs: 100 }); // warm-up
        await trial(0, "polled");
        await dut.child.call("setFilters", { filters: { delay: [50] }, ports: [0] });
        for (let round = 1; round <= ROUNDS; round++) {
          await trial(50, "idle");
          // Alternated, so that neither poll always follows the other (or the idle trial).
          for (const api of round % 2 === 1 ? (["polled", "polled elsewhere"] as const) : (["polled elsewhere", "polled"] as const)) await trial(50, api);
        }
      });
    }
  } finally {
    await elsewhere.child.stop();
  }
  return rows;
}

async function costPerFrame(rig: DataplaneRig): Promise<{ workers: number; size: number; usPerFrame: number; t: Trial }[]> {
  const cost: { workers: number; size: number; usPerFrame: number; t: Trial }[] = [];
  for (let round = 1; round <= ROUNDS; round++) {
    for (const size of [64, 1500]) {
      for (const workers of [0, 1]) {
        await withDut(rig, { mode: "netemu", bufferBytes: MiB4, workers }, async (dut) => {
          await rig.trial(dut, { rate: COST_RATE, durationMs: 500, size }); // JIT warm-up
          const t = await rig.trial(dut, { rate: COST_RATE, durationMs: QUICK ? 1500 : 4000, size });
          const usPerFrame = t.dutCpuUs / Math.max(1, t.sent - t.kernelDrops.dutIn);
          log(`cost ${where(workers)} ${size} B round ${round}: ${usPerFrame.toFixed(2)} µs/frame (loss ${pct(t.loss)}, rest of machine ${t.cpu.other.toFixed(0)} %)`);
          cost.push({ workers, size, usPerFrame, t });
        });
      }
    }
  }
  return cost;
}

/**
 * The chain's set-ups: the main thread, 1 worker, then 2 workers with the switches' ids chosen to
 * alternate the workers or to hash all onto one, with `netemu serve`'s default settings (placement by
 * load, ADR 0069) and, for reference, without placement by load.
 */
const CHAIN_SETUPS = [
  { label: "main thread", workers: 0, placement: "alternate", balance: false },
  { label: "1 worker", workers: 1, placement: "alternate", balance: false },
  { label: "2 workers, alternated, default settings", workers: 2, placement: "alternate", balance: DEFAULTS.dataPlaneBalance },
  { label: "2 workers, ids hashed onto one, default settings", workers: 2, placement: "together", balance: DEFAULTS.dataPlaneBalance },
  { label: "2 workers, ids hashed onto one, --no-dataplane-balance", workers: 2, placement: "together", balance: false },
] as const;
/** A set-up's loss-free rate, with where its trial at that rate spent the machine's CPU (what bounds a 2-core machine). */
type ChainRow = { label: string; rate: number; split: readonly number[] | undefined; best: Trial | undefined; restCpu: number };

/** How the chain's loss-free rate is searched, in the chain and links sections alike. */
const CHAIN_SEARCH = { size: 64, durationMs: QUICK ? 600 : 2000, startRate: 8000, maxRate: 400_000, precision: QUICK ? 0.12 : 0.05, retries: 1, disturbedRetries: 3 } as const;

async function chainRates(rig: DataplaneRig): Promise<ChainRow[]> {
  const rows: ChainRow[] = [];
  for (let round = 1; round <= ROUNDS; round++) {
    for (const setup of CHAIN_SETUPS.filter((_, i) => SETUPS === undefined || SETUPS.includes(i))) {
      await withDut(rig, { mode: "netemu", bufferBytes: MiB4, workers: setup.workers, chain: CHAIN, placement: setup.placement, balance: setup.balance }, async (dut) => {
        // The same warm-up for every set-up (the JIT, the sockets' buffers), which is also traffic for the
        // balancer to measure and act on (2 moves, each followed by quiet intervals) before the search.
        await rig.trial(dut, { rate: 20_000, durationMs: WARM_UP_MS, size: 64 });
        if (setup.workers > 1) log(`chain of ${CHAIN}, ${setup.label}, round ${round}: after the warm-up, switches on workers ${(await dut.child.call<number[]>("split")).join(", ")}`);
        const result = await rig.search(dut, {
          ...CHAIN_SEARCH,
          onStep: (t) => log(`    ${fmt(t.rate)}/s: sent ${fmt(t.achievedRate)}/s, loss ${pct(t.loss)}, kernel drops in/out ${t.kernelDrops.dutIn}/${t.kernelDrops.dutOut}, CPU DUT / load / rest ${t.cpu.dut.toFixed(0)} / ${loadCpu(t, rig.loadSide)} / ${t.cpu.other.toFixed(0)} %, machine's softirq ${t.cpu.softirq?.toFixed(0) ?? "–"} %`),
        });
        const split = await dut.child.call<number[] | undefined>("split");
        log(`chain of ${CHAIN}, ${setup.label}${split ? ` (switches on workers ${split.join(", ")})` : ""}, round ${round}: ${fmt(result.rate)} frames/s through the chain`);
        // What other processes took during the search (median over its trials): a round they took a core from says little.
        rows.push({ label: setup.label, rate: result.rate, split, best: result.best, restCpu: median(result.steps.map((t) => t.cpu.other)) });
      });
    }
  }
  return rows;
}

/** The links section's fixed rate for CPU per frame: a moderate load, well below either set-up's capacity (--links-rate). */
const linksRateAt = argv.indexOf("--links-rate");
const LINKS_RATE = linksRateAt >= 0 ? Number(argv[linksRateAt + 1]) : 20_000;
if (!Number.isInteger(LINKS_RATE) || LINKS_RATE < 1000 || LINKS_RATE > 300_000) throw new Error(`--links-rate is frames per second from 1000 to 300000, not ${argv[linksRateAt + 1]}`);
const linksCpuAt = argv.indexOf("--links-dut-cpu");
/** The share of one core the DUT is held to during the links section's search (undefined: not held). */
const LINKS_DUT_CPU = linksCpuAt >= 0 ? Number(argv[linksCpuAt + 1]) : undefined;
if (LINKS_DUT_CPU !== undefined && !(LINKS_DUT_CPU >= 5 && LINKS_DUT_CPU <= 100)) throw new Error(`--links-dut-cpu is a share of one core from 5 to 100 (%), not ${argv[linksCpuAt + 1]}`);
const linksCoresAt = argv.indexOf("--links-cores");
type LinksCores = "own" | "shared" | "any";
const isLinksCores = (c: string): c is LinksCores => c === "own" || c === "shared" || c === "any";
/** Where the links section runs the DUT against the load side (--links-cores). */
const LINKS_CORES: readonly LinksCores[] = (linksCoresAt >= 0 ? (argv[linksCoresAt + 1] ?? "") : "own,shared").split(",").map((c) => {
  if (!isLinksCores(c)) throw new Error(`--links-cores is a list of own, shared and any, not ${argv[linksCoresAt + 1]}`);
  return c;
});
if (LINKS_CORES.some((c) => c !== "any") && cpus().length < 2) throw new Error(`--links-cores own and shared pin the DUT and the load side to CPUs 1 and 0: this machine has ${cpus().length} CPU`);
/** The CPUs of the load side and of the DUT for each placement (undefined: the scheduler's choice). */
const CORES_OF: Record<LinksCores, { load: number | undefined; dut: number | undefined }> = { own: { load: 0, dut: 1 }, shared: { load: 0, dut: 0 }, any: { load: undefined, dut: undefined } };
const CORES_LABEL: Record<LinksCores, string> = { own: "the DUT on a core of its own (CPU 1, the load side on CPU 0)", shared: "the DUT on the load side's core (both on CPU 0)", any: "the DUT and the load side where the scheduler puts them" };

type LinksRow = { cores: LinksCores; workers: number; inProcess: boolean; rate: number; best: Trial | undefined; usAtFixed: number; restCpu: number };

/**
 * The chain of CHAIN switches in 1 worker, and in 2 with the switches alternated (no placement by load:
 * every link stays between the two workers), its links over UDP sockets and in process, alternated round by round.
 */
async function linksRates(rig: DataplaneRig): Promise<LinksRow[]> {
  const rows: LinksRow[] = [];
  for (let round = 1; round <= ROUNDS; round++) {
    for (const cores of LINKS_CORES) for (const workers of LINKS_WORKERS) for (const inProcess of round % 2 === 1 ? [false, true] : [true, false]) {
      rig.pinLoadSide(CORES_OF[cores].load);
      await withDut(rig, { mode: "netemu", bufferBytes: MiB4, workers, chain: CHAIN, inProcessLinks: inProcess && workers > 1 ? "threads" : inProcess, placement: "alternate", balance: false }, async (dut) => {
        const dutCpu = CORES_OF[cores].dut;
        if (dutCpu !== undefined) pinProcess(dut.child.pid, dutCpu);
        const label = `${workers === 1 ? "1 worker" : "2 workers, alternated"}, ${inProcess ? (workers > 1 ? "in-process links between threads" : "in-process links") : "UDP links"}, ${cores} core`;
        await rig.trial(dut, { rate: LINKS_RATE, durationMs: 2000, size: 64 });
        const fixed = await rig.trial(dut, { rate: LINKS_RATE, durationMs: QUICK ? 2000 : 4000, size: 64 });
        const usAtFixed = fixed.sent === 0 ? NaN : fixed.dutCpuUs / fixed.sent;
        log(`chain of ${CHAIN}, ${label}, round ${round}: ${usAtFixed.toFixed(2)} µs of DUT CPU per frame at ${fmt(LINKS_RATE)}/s (loss ${pct(fixed.loss)})`);
        // Held only for the search: at the fixed rate UDP links need more of a core than the share may be.
        const held = LINKS_DUT_CPU === undefined ? undefined : holdToCpuShare(dut.child.proc.pid as number, LINKS_DUT_CPU);
        let result: Awaited<ReturnType<typeof rig.search>>;
        try {
          result = await rig.search(dut, {
            ...CHAIN_SEARCH,
            onStep: (t) => log(`    ${fmt(t.rate)}/s: sent ${fmt(t.achievedRate)}/s, loss ${pct(t.loss)}, CPU DUT / load / rest ${t.cpu.dut.toFixed(0)} / ${loadCpu(t, rig.loadSide)} / ${t.cpu.other.toFixed(0)} %`),
          });
        } finally {
          held?.release();
        }
        log(`chain of ${CHAIN}, ${label}, round ${round}: ${fmt(result.rate)} frames/s through the chain${held === undefined ? "" : ` (DUT held to ${held.percent} % of a core)`}`);
        rows.push({ cores, workers, inProcess, rate: result.rate, best: result.best, usAtFixed, restCpu: median(result.steps.map((t) => t.cpu.other)) });
      });
    }
  }
  return rows;
}

async function main(): Promise<void> {
  log(`machine ${cpus().length} × ${cpus()[0]?.model ?? "?"}, Node ${process.version}, quick=${QUICK}, rounds ${ROUNDS}`);
  log(`load average at start: ${readFileSync("/proc/loadavg", "utf8").trim()}`);
  let delay: DelayRow[] = [];
  let cost: Awaited<ReturnType<typeof costPerFrame>> = [];
  if (runs("delay") || runs("cost")) {
    const rig = await DataplaneRig.start();
    delay = runs("delay") ? await delayUnderApiLoad(rig) : [];
    cost = runs("cost") ? await costPerFrame(rig) : [];
    await rig.stop();
  }
  let chain: ChainRow[] = [];
  let loadSide: LoadSide = "node";
  if (runs("chain")) {
    const rig = await chainRig();
    loadSide = rig.loadSide;
    log(`chain: load side ${loadSide === "c" ? "C (bench/native/udp-loadgen.c, generator and sink in one process)" : "Node (generator and sink processes)"}`);
    chain = await chainRates(rig);
    await rig.stop();
  }
  let links: LinksRow[] = [];
  if (runs("links")) {
    const rig = await chainRig();
    loadSide = rig.loadSide;
    links = await linksRates(rig);
    await rig.stop();
  }
  const loadEnd = readFileSync("/proc/loadavg", "utf8").trim();

  const out: string[] = [`## Data plane in worker threads (${QUICK ? "--quick" : "full"} run${ONLY === undefined ? "" : ` of --only ${ONLY}`}, ${ROUNDS} round${ROUNDS > 1 ? "s" : ""}, ${((monoMs() - started) / 1000).toFixed(0)} s)`, ""];
  if (delay.length > 0) {
    out.push(`### delay 50 ms at ${fmt(DELAY_RATE)} frames/s of 64 B (error = one-way latency − delay), the API idle or polled (GET of a ${fmt(API_NODES)}-node list, back to back) in the DUT's process or, as the control, in another netemu process`);
    out.push("");
    out.push(
      markdownTable(
        ["data plane", "delay", "API", "frames", "loss", "error p50", "error p99", "error max", "worker loop late p99 / max (beyond its 10 ms tick)", "polls (p50 ms, size)", "CPU DUT / gen / sink / rest", "p99 ≤ 2 ms and no loss"],
        delay.map(({ workers, delayMs, api, t, polls, loop }) => {
          const e = (x: number | undefined): string => ms(x === undefined ? undefined : x - delayMs);
          return [
            where(workers),
            delayMs === 0 ? "none (the path itself)" : `${delayMs} ms`,
            api,
            fmt(t.sent),
            pct(t.loss),
            e(t.latency?.p50),
            e(t.latency?.p99),
            e(t.latency?.max),
            loop === undefined ? "–" : `${ms(loop.p99)} / ${ms(loop.max)}`,
            polls === undefined ? "–" : `${polls.count} (${polls.p50.toFixed(0)} ms, ${(polls.bytes / 1e6).toFixed(1)} MB)`,
            cpuSplit(t),
            delayMs === 0 ? "" : t.loss === 0 && (t.latency?.p99 ?? 99) - delayMs <= 2 ? "met" : "not met",
          ];
        }),
      ),
    );
    out.push("");
    out.push(`### The coupling (issue 20): median over ${ROUNDS} round${ROUNDS > 1 ? "s" : ""} of the delay error's p99 with the poll in the DUT's process and in another (the control)`);
    out.push("");
    out.push(
      markdownTable(
        ["data plane", "p99 same process (each round)", "p99 control (each round)", "difference of the medians", "≤ 1 ms"],
        PLANES.map((workers) => {
          const p99s = (api: ApiLoad): number[] => delay.filter((r) => r.workers === workers && r.delayMs === 50 && r.api === api).map((r) => (r.t.latency?.p99 ?? NaN) - 50);
          const [same, control] = [p99s("polled"), p99s("polled elsewhere")];
          const diff = median(same) - median(control);
          const each = (xs: number[]): string => `${ms(median(xs))} (${xs.map((x) => x.toFixed(1)).join(", ")})`;
          return [where(workers), each(same), each(control), ms(diff), diff <= 1 ? "met" : "not met"];
        }),
      ),
    );
    out.push("");
  }
  if (cost.length > 0) {
    out.push(`### CPU time per frame at ${fmt(COST_RATE)} frames/s (µs, the whole DUT process; median of ${ROUNDS}, each round in brackets)`);
    out.push("");
    const costOf = (workers: number, size: number): number[] => cost.filter((c) => c.workers === workers && c.size === size).map((c) => c.usPerFrame);
    out.push(
      markdownTable(
        ["frame", "main thread", "1 worker", "worker / main (≤ 1.10)"],
        [64, 1500].map((size) => {
          const [m, w] = [median(costOf(0, size)), median(costOf(1, size))];
          const each = (workers: number): string => costOf(workers, size).map((x) => x.toFixed(2)).join(", ");
          return [`${size} B`, `${m.toFixed(2)} (${each(0)})`, `${w.toFixed(2)} (${each(1)})`, `${(w / m).toFixed(2)} ${w / m <= 1.1 ? "(met)" : "(not met)"}`];
        }),
      ),
    );
    out.push("");
  }
  if (chain.length > 0) {
    out.push(`### Loss-free rate through a chain of ${CHAIN} switches (64 B; aggregate = rate × ${CHAIN} switch crossings; median of ${ROUNDS}, each round in brackets)`);
    out.push("");
    out.push(`${new Date().toISOString().slice(0, 16).replace("T", " ")} UTC. Load side: ${loadSide === "c" ? "the C generator and sink of bench:udp-paths (bench/native/udp-loadgen.c, one process, sendmmsg / recvmmsg)" : "the Node generator and sink (two processes, node:dgram)"}; load average at the end ${loadEnd}. A step passes with < 0.1 % loss at a rate the generator kept (≥ 95 % of it).`);
    out.push("");
    out.push(
      markdownTable(
        ["data plane", "switches per worker", "rate through the chain (frames/s)", "aggregate (frames switched/s)", "vs main thread", "vs 1 worker", `CPU at that rate: DUT / ${loadSide === "c" ? "load side (gen + sink)" : "gen / sink"} / rest; the machine's softirq, also in those (% of a core)`, "DUT µs per frame", "rest of the machine during the search (median % of a core, each round)"],
        CHAIN_SETUPS.filter((setup) => chain.some((c) => c.label === setup.label)).map(({ label, workers }) => {
          const rates = chain.filter((c) => c.label === label).map((c) => c.rate);
          const split = chain.find((c) => c.label === label)?.split;
          const perWorker = split === undefined ? "–" : `${Array.from({ length: workers }, (_, w) => split.filter((s) => s === w).length).join(" / ")} (workers ${split.join(", ")} along the chain, at the end)`;
          const main = median(chain.filter((c) => c.label === "main thread").map((c) => c.rate));
          const one = median(chain.filter((c) => c.label === "1 worker").map((c) => c.rate));
          // The CPU of the round whose rate is the median: on 2 cores, the generator and the sink share what the DUT's threads could use.
          const mid = chain.filter((c) => c.label === label).sort((a, b) => a.rate - b.rate)[Math.floor(rates.length / 2)]?.best;
          const cpu = mid === undefined ? "–" : `${mid.cpu.dut.toFixed(0)} / ${loadCpu(mid, loadSide)} / ${mid.cpu.other.toFixed(0)}${mid.cpu.softirq === undefined ? "" : `; ${mid.cpu.softirq.toFixed(0)}`}`;
          const usPerFrame = mid === undefined || mid.sent === 0 ? "–" : (mid.dutCpuUs / mid.sent).toFixed(2);
          const rest = chain.filter((c) => c.label === label).map((c) => c.restCpu.toFixed(0)).join(", ");
          return [label, perWorker, `${fmt(median(rates))} (${rates.map((r) => fmt(r)).join(", ")})`, fmt(median(rates) * CHAIN), ratio(median(rates), main), ratio(median(rates), one), cpu, usPerFrame, rest];
        }),
      ),
    );
  }
  for (const cores of LINKS_CORES) for (const workers of LINKS_WORKERS) {
    const of = (inProcess: boolean): LinksRow[] => links.filter((l) => l.cores === cores && l.workers === workers && l.inProcess === inProcess);
    if (of(false).length + of(true).length === 0) continue;
    const where = workers === 1 ? "in 1 worker" : "in 2 workers, alternated (every link between the two workers)";
    const heldNote = LINKS_DUT_CPU === undefined ? "" : `, the DUT held to ${LINKS_DUT_CPU} % of one core during the search`;
    out.push(`### A chain of ${CHAIN} switches ${where}, ${CORES_LABEL[cores]}: its ${CHAIN - 1} links between switches over UDP sockets or in process (ADR ${workers === 1 ? "0105" : "0111"}; 64 B${heldNote}; median of ${ROUNDS}, each round in brackets, the two alternated)`);
    out.push("");
    out.push(`${new Date().toISOString().slice(0, 16).replace("T", " ")} UTC. Load side: ${loadSide === "c" ? "the C generator and sink (bench/native/udp-loadgen.c)" : "the Node generator and sink"}; load average at the end ${loadEnd}.`);
    out.push("");
    const udpRate = median(of(false).map((l) => l.rate));
    const udpUs = median(of(false).map((l) => l.usAtFixed));
    out.push(
      markdownTable(
        ["links", "loss-free rate through the chain (frames/s)", "vs UDP links", `DUT CPU per frame at ${fmt(LINKS_RATE)}/s (µs)`, "vs UDP links", "CPU at the loss-free rate: DUT / load side / rest (% of a core)", "rest of the machine during the search (median %, each round)"],
        [false, true].map((inProcess) => {
          const rows = of(inProcess);
          const rates = rows.map((r) => r.rate);
          const us = rows.map((r) => r.usAtFixed);
          const mid = [...rows].sort((a, b) => a.rate - b.rate)[Math.floor(rows.length / 2)]?.best;
          const cpu = mid === undefined ? "–" : `${mid.cpu.dut.toFixed(0)} / ${loadCpu(mid, loadSide)} / ${mid.cpu.other.toFixed(0)}`;
          return [
            inProcess ? "in process" : "UDP sockets",
            `${fmt(median(rates))} (${rates.map((r) => fmt(r)).join(", ")})`,
            ratio(median(rates), udpRate),
            `${median(us).toFixed(2)} (${us.map((u) => u.toFixed(2)).join(", ")})`,
            (median(us) / udpUs).toFixed(2),
            cpu,
            rows.map((r) => r.restCpu.toFixed(0)).join(", "),
          ];
        }),
      ),
    );
    out.push("");
  }
  process.stdout.write(`${out.join("\n")}\n`);
}

await main();
