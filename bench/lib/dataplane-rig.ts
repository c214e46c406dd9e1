/**
 * The data-plane test rig: a frame generator and a sink, each in its own process, and a device
 * under test (a netemu switch or a bare relay) in a third, wired gen → DUT port 0 → DUT port 1 → sink.
 */
import { Child, cpuTimes, monoMs, pinProcess, sleep, udpDrops } from "./util.js";
import { cpus } from "node:os";
import { buildLoadgen, runLoadgen } from "./loadgen.js";
import { freeUdpPort } from "../../test/support/udp-peer.js";

/**
 * The generator and the sink: two Node processes (node:dgram, a send call per frame), or the C
 * program of bench:udp-paths, both in one process (sendmmsg / recvmmsg), several times cheaper per
 * frame, which leaves a 2-core machine's CPU to the device under test.
 */
export type LoadSide = "node" | "c";

export interface DutOptions {
  readonly mode: "netemu" | "relay" | "relay-cb";
  readonly bufferBytes: number;
  readonly http?: boolean;
  readonly execArgv?: readonly string[];
  /** netemu's data-plane worker threads (0: the main thread). */
  readonly workers?: number;
  /** A chain of this many switches between the generator and the sink (1 unless given). */
  readonly chain?: number;
  /** With workers: switch i on worker i mod N ("alternate", the default), or all on worker 0 ("together"). */
  readonly placement?: "alternate" | "together";
  /** Runs netemu with --dataplane-balance (ADR 0069). */
  readonly balance?: boolean;
  /** In-process links (ADR 0105, 0111): on, off or between threads too, by NETEMU_IN_PROCESS_LINKS in the DUT's environment; this process's own when not given. */
  readonly inProcessLinks?: boolean | "threads";
}

export interface Dut {
  readonly child: Child;
  readonly options: DutOptions;
  readonly lports: readonly [number, number];
  readonly url: string | undefined;
  /** With workers: the worker each switch of the chain runs on, in chain order. */
  readonly split: readonly number[] | undefined;
}

export interface Latency {
  p50: number;
  p90: number;
  p99: number;
  max: number;
  min: number;
}

export interface Trial {
  rate: number;
  size: number;
  sent: number;
  achievedRate: number;
  maxBurst: number;
  received: number;
  /** Frames the filters dropped on purpose (frequency_drop, packet_loss), from the switch's counters. */
  intendedDrops: number;
  /** Unintended loss: (sent − received − intended drops) / sent. */
  loss: number;
  /** Kernel receive-queue drops by socket: the DUT's ingress socket, its egress socket, the sink. */
  kernelDrops: { dutIn: number; dutOut: number; sink: number };
  /**
   * CPU use in % of one core; `other` is what the rest of the machine used during the step. With the
   * C load side, `gen` is its one process (generator and sink) and `sink` is 0. `softirq` is the
   * machine's softirq time, the loopback's delivery of every process's datagrams; not a share of its
   * own: with tick-based accounting the same ticks are also in the time of the process they interrupted.
   */
  cpu: { dut: number; gen: number; sink: number; other: number; softirq?: number };
  /** CPU time the DUT spent during the step (user + system), in µs. */
  dutCpuUs: number;
  latency?: Latency;
}

/**
 * CPU (% of one core) that the rest of the machine may use during a step before a failing trial
 * counts as disturbed. Saturated steps on an idle machine show 5–15 % (the orchestrator, softirq
 * threads); the disturbed ones that decided earlier runs showed 35–70 % while the DUT sat at 40–60 %.
 */
export const DISTURBED_OTHER_CPU_PCT = 30;

export interface SearchResult {
  /** Highest offered rate with under `maxLoss` loss (0 if none). */
  rate: number;
  /** Failing trials that were repeated because other load on the machine disturbed them. */
  disturbed: number;
  best: Trial | undefined;
  firstFail: Trial | undefined;
  steps: Trial[];
}

interface CountersView {
  [port: string]: { framesIn: number; framesOut: number; drops: Record<string, number> };
}

function intended(c: CountersView): number {
  let n = 0;
  for (const p of Object.values(c)) n += (p.drops["frequency_drop"] ?? 0) + (p.drops["packet_loss"] ?? 0);
  return n;
}

export class DataplaneRig {
  private runId = 1;
  private nextLport = 41000 + (process.pid % 500) * 8;
  /** The CPU the load side runs on (pinLoadSide), the scheduler's choice when undefined. */
  private loadCpu: number | undefined;

  private constructor(
    readonly gen: Child | undefined,
    readonly sink: Child | undefined,
    readonly genPort: number,
    readonly sinkPort: number,
    /** The C load generator's path, with the C load side. */
    private readonly loadgen?: string,
  ) {}

  get loadSide(): LoadSide {
    return this.loadgen === undefined ? "node" : "c";
  }

  /**
   * Pins the load side to one CPU from now on (undefined: any, from the next C trial): the Node
   * generator and sink at once, the C program at each trial's start.
   */
  pinLoadSide(cpu: number | undefined): void {
    this.loadCpu = cpu;
    const all = cpus().map((_, i) => i).join(",");
    for (const child of [this.gen, this.sink]) if (child !== undefined) pinProcess(child.pid, cpu ?? all);
  }

  /** With the C load side: its compiled program, or an error saying why it cannot be built. */
  static async start(o: { loadSide?: LoadSide } = {}): Promise<DataplaneRig> {
    if (o.loadSide === "c") {
      const built = buildLoadgen();
      if ("error" in built) throw new Error(`cannot build the C load generator (${built.error})`);
      // Its sockets exist during a run only; the ports stay the DUT's peers from run to run.
      return new DataplaneRig(undefined, undefined, await freeUdpPort(), await freeUdpPort(), built.path);
    }
    const [gen, sink] = await Promise.all([
      Child.start(import.meta.url, "../dataplane-child.js", ["gen"], "gen"),
      Child.start(import.meta.url, "../dataplane-child.js", ["sink"], "sink"),
    ]);
    const g = await gen.call<{ port: number }>("info");
    const s = await sink.call<{ port: number }>("info");
    return new DataplaneRig(gen, sink, g.port, s.port);
  }

  async startDut(options: DutOptions): Promise<Dut> {
    const lports: [number, number] = [this.nextLport, this.nextLport + 1];
    this.nextLport += 2;
    const args = { mode: options.mode, bufferBytes: options.bufferBytes, lports, peers: [this.genPort, this.sinkPort], http: options.http ?? false, workers: options.workers ?? 0, chain: options.chain ?? 1, placement: options.placement ?? "alternate", balance: options.balance ?? false };
    const env = options.inProcessLinks === undefined ? process.env : { ...process.env, NETEMU_IN_PROCESS_LINKS: options.inProcessLinks === "threads" ? "threads" : options.inProcessLinks ? "on" : "off" };
    const child = await Child.start(import.meta.url, "../dataplane-child.js", ["dut", JSON.stringify(args)], `dut:${options.mode}`, options.execArgv ?? [], env);
    const info = options.mode === "netemu" ? await child.call<{ url?: string; split?: number[] }>("info") : {};
    // The C load side aims each run itself and says hello at its start.
    await this.gen?.call("target", { port: lports[0] });
    await this.sink?.call("hello", { port: lports[1] });
    await sleep(50);
    return { child, options, lports, url: info.url, split: info.split };
  }

  async trial(dut: Dut, o: { rate: number; durationMs: number; size: number; latency?: boolean; count?: number; settleMs?: number }): Promise<Trial> {
    if (this.gen === undefined || this.sink === undefined) return this.cTrial(dut, o);
    const runId = this.runId++;
    const ports = [dut.lports[0], dut.lports[1], this.sinkPort];
    await this.sink.call("reset", { runId });
    await dut.child.call("cpuReset");
    const c0 = await dut.child.call<CountersView>("counters");
    const d0 = udpDrops(ports);
    const s0 = cpuTimes();
    const g = await this.gen.call<{ sent: number; achievedRate: number; maxBurst: number; cpuPct: number }>("run", { rate: o.rate, durationMs: o.durationMs, size: o.size, runId, count: o.count });
    const dutCpu = await dut.child.call<{ cpuPct: number; cpuUs: number }>("cpu");
    const s1 = cpuTimes();
    const machinePct = s1.total > s0.total ? ((s1.busy - s0.busy) / (s1.total - s0.total)) * 100 * cpus().length : 0;
    // Let in-flight and delayed frames arrive: stop once nothing new came for 200 ms (+ settleMs).
    const quiet = 200 + (o.settleMs ?? 0);
    const deadline = monoMs() + 3000 + (o.settleMs ?? 0);
    let r = await this.sink.call<{ received: number; lastArrival: number; now: number; cpuPct: number; latency: Latency }>("report", {});
    for (;;) {
      if (r.received >= g.sent || monoMs() > deadline) break;
      if (r.received > 0 && r.now - r.lastArrival > quiet) break;
      if (r.received === 0 && monoMs() > deadline - 2500) break;
      await sleep(50);
      r = await this.sink.call("report", {});
    }
    if (o.latency === true) r = await this.sink.call("report", { latency: true });
    const c1 = await dut.child.call<CountersView>("counters");
    const d1 = udpDrops(ports);
    const drop = (p: number): number => (d1.get(p) ?? 0) - (d0.get(p) ?? 0);
    const intendedDrops = intended(c1) - intended(c0);
    const t: Trial = {
      rate: o.rate,
      size: o.size,
      sent: g.sent,
      achievedRate: g.achievedRate,
      maxBurst: g.maxBurst,
      received: r.received,
      intendedDrops,
      loss: g.sent === 0 ? 0 : Math.max(0, g.sent - r.received - intendedDrops) / g.sent,
      kernelDrops: { dutIn: drop(dut.lports[0]), dutOut: drop(dut.lports[1]), sink: drop(this.sinkPort) },
      cpu: { dut: dutCpu.cpuPct, gen: g.cpuPct, sink: r.cpuPct, other: Math.max(0, machinePct - dutCpu.cpuPct - g.cpuPct - r.cpuPct), softirq: s1.total > s0.total ? ((s1.softirq - s0.softirq) / (s1.total - s0.total)) * 100 * cpus().length : 0 },
      dutCpuUs: dutCpu.cpuUs,
    };
    if (o.latency === true) t.latency = r.latency;
    return t;
  }

  /**
   * A trial with the C load side: the same measures, from its one process. It waits for in-flight
   * frames itself (until nothing came for 200 ms, at most 3 s after its last send).
   */
  private async cTrial(dut: Dut, o: { rate: number; durationMs: number; size: number; latency?: boolean; count?: number; settleMs?: number }): Promise<Trial> {
    if (o.count !== undefined) throw new Error("the C load side sends for a duration, not a count");
    if ((o.settleMs ?? 0) > 0) throw new Error("the C load side waits 200 ms for late frames, no more");
    const runId = this.runId++;
    const ports = [dut.lports[0], dut.lports[1], this.sinkPort];
    await dut.child.call("cpuReset");
    const c0 = await dut.child.call<CountersView>("counters");
    const d0 = udpDrops(ports);
    const s0 = cpuTimes();
    const g = await runLoadgen(this.loadgen as string, { genPort: this.genPort, target: dut.lports[0], sinkPort: this.sinkPort, sinkPeer: dut.lports[1], rate: o.rate, durationMs: o.durationMs, size: o.size, runId, latency: o.latency === true, cpu: this.loadCpu });
    const dutCpu = await dut.child.call<{ cpuPct: number; cpuUs: number }>("cpu");
    const s1 = cpuTimes();
    const machinePct = s1.total > s0.total ? ((s1.busy - s0.busy) / (s1.total - s0.total)) * 100 * cpus().length : 0;
    const loadPct = g.wallMs > 0 ? (g.cpuUs / 1000 / g.wallMs) * 100 : 0;
    const softirqPct = s1.total > s0.total ? ((s1.softirq - s0.softirq) / (s1.total - s0.total)) * 100 * cpus().length : 0;
    const c1 = await dut.child.call<CountersView>("counters");
    const d1 = udpDrops(ports);
    const drop = (p: number): number => (d1.get(p) ?? 0) - (d0.get(p) ?? 0);
    const intendedDrops = intended(c1) - intended(c0);
    const t: Trial = {
      rate: o.rate,
      size: o.size,
      sent: g.sent,
      achievedRate: g.achievedRate,
      maxBurst: 0, // paced per loop round, not per timer tick: no burst to speak of
      received: g.received,
      intendedDrops,
      loss: g.sent === 0 ? 0 : Math.max(0, g.sent - g.received - intendedDrops) / g.sent,
      // The sink's socket is closed when the run ends, so its drops are not in /proc/net/udp then: the loss says them.
      kernelDrops: { dutIn: drop(dut.lports[0]), dutOut: drop(dut.lports[1]), sink: drop(this.sinkPort) },
      cpu: { dut: dutCpu.cpuPct, gen: loadPct, sink: 0, other: Math.max(0, machinePct - dutCpu.cpuPct - loadPct), softirq: softirqPct },
      dutCpuUs: dutCpu.cpuUs,
    };
    if (o.latency === true) t.latency = { ...g.latency, p90: Number.NaN };
    return t;
  }

  /**
   * The highest offered rate with loss under `maxLoss`: doubling from `startRate` until a step
   * fails, then bisecting until the bracket is within `precision` (relative). A step passes when
   * one of its 1 + `retries` trials does, with loss under `maxLoss` at a rate the generator really
   * offered (≥ 95 % of it: a generator starved of CPU did not test the rate).
   */
  async search(
    dut: Dut,
    o: {
      size: number;
      durationMs: number;
      startRate: number;
      maxRate: number;
      precision: number;
      maxLoss?: number;
      retries?: number;
      /** Extra trials for a failing step whose trial other load disturbed (see DISTURBED_OTHER_CPU_PCT). */
      disturbedRetries?: number;
      onStep?: (t: Trial) => void;
    },
  ): Promise<SearchResult> {
    const maxLoss = o.maxLoss ?? 0.001;
    await this.trial(dut, { rate: Math.min(o.startRate, 5000), durationMs: 400, size: o.size }); // JIT warm-up
    const steps: Trial[] = [];
    let lo = 0;
    let hi = Number.POSITIVE_INFINITY;
    let best: Trial | undefined;
    let firstFail: Trial | undefined;
    let disturbed = 0;
    const passes = (t: Trial): boolean => t.loss < maxLoss && t.achievedRate >= 0.95 * t.rate;
    const step = async (rate: number): Promise<boolean> => {
      // A failing step is tried again (`retries` times): on a 2-core machine a single scheduling
      // hiccup of the generator or the device can lose a burst at rates the device otherwise sustains.
      let t = await this.trial(dut, { rate, durationMs: o.durationMs, size: o.size });
      steps.push(t);
      o.onStep?.(t);
      let retriesLeft = o.retries ?? 0;
      let disturbedLeft = o.disturbedRetries ?? 0;
      while (!passes(t)) {
        // Another process took a core's share, or the generator's: this trial says nothing about the DUT.
        if ((t.cpu.other > DISTURBED_OTHER_CPU_PCT || t.achievedRate < 0.95 * t.rate) && disturbedLeft > 0) {
          disturbedLeft--;
          disturbed++;
        } else if (retriesLeft > 0) retriesLeft--;
        else break;
        await sleep(200);
        t = await this.trial(dut, { rate, durationMs: o.durationMs, size: o.size });
        steps.push(t);
        o.onStep?.(t);
      }
      const ok = passes(t);
      if (ok) {
        lo = rate;
        best = t;
      } else {
        hi = rate;
        if (firstFail === undefined || rate < firstFail.rate) firstFail = t;
      }
      await sleep(100);
      return ok;
    };
    let rate = o.startRate;
    while (await step(rate)) {
      if (rate >= o.maxRate) break;
      rate = Math.min(rate * 2, o.maxRate);
    }
    while (Number.isFinite(hi) && (hi - lo) / hi > o.precision) {
      const mid = Math.round((lo + hi) / 2 / 100) * 100;
      if (mid <= lo || mid >= hi) break;
      await step(mid);
    }
    return { rate: lo, disturbed, best, firstFail, steps };
  }

  async stop(): Promise<void> {
    await Promise.all([this.gen?.stop(), this.sink?.stop()]);
  }
}

/** Runs `body` with a DUT started for it, and ends the DUT whatever happens. */
export async function withDut<T>(rig: DataplaneRig, options: DutOptions, body: (dut: Dut) => Promise<T>): Promise<T> {
  const dut = await rig.startDut(options);
  try {
    return await body(dut);
  } finally {
    await dut.child.stop();
  }
}
