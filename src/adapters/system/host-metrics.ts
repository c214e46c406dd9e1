import { readFileSync } from "node:fs";
import { statfs } from "node:fs/promises";
import os from "node:os";
import { dirname, resolve } from "node:path";
import type { HostLoad, HostMetrics, HostStatistics } from "../../application/ports/host.js";

/** The times of one CPU as `os.cpus()` gives them, in milliseconds since boot. */
export interface CpuTimes {
  readonly user: number;
  readonly nice: number;
  readonly sys: number;
  readonly idle: number;
  readonly irq: number;
}

/** The fields of `fs.statfs` that disk usage needs (counts of `bsize` blocks). */
export interface FileSystemBlocks {
  readonly blocks: number;
  readonly bfree: number;
  readonly bavail: number;
}

/** Where the numbers come from; every one is replaceable so tests need not read the real machine. */
export interface HostMetricsSources {
  cpus(): readonly { readonly times: CpuTimes }[];
  /** The text of /proc/meminfo, or undefined where there is none (not Linux, or unreadable). */
  meminfo(): string | undefined;
  loadavg(): readonly number[];
  totalmem(): number;
  freemem(): number;
  statfs(path: string): Promise<FileSystemBlocks>;
  /** A monotonic clock in milliseconds. */
  now(): number;
}

/** Below this, a new CPU sample would cover too few clock ticks to mean anything. */
const MIN_SAMPLE_INTERVAL_MS = 500;

const defaultSources: HostMetricsSources = {
  cpus: () => os.cpus(),
  meminfo: () => {
    try {
      return readFileSync("/proc/meminfo", "utf8");
    } catch {
      return undefined;
    }
  },
  loadavg: () => os.loadavg(),
  totalmem: () => os.totalmem(),
  freemem: () => os.freemem(),
  statfs: (path) => statfs(path),
  now: () => performance.now(),
};

interface CpuSample {
  readonly at: number;
  readonly busy: number;
  readonly total: number;
}

interface Memory {
  readonly total: number;
  readonly available: number;
  readonly swapTotal: number;
  readonly swapFree: number;
}

/**
 * The host's load and statistics the way GNS3's compute reports them (psutil there): CPU use from
 * the difference of two samples of the CPU times, memory from /proc/meminfo's MemAvailable (or
 * `os.freemem()` where there is no /proc/meminfo), disk use of the file system holding `diskPath`.
 */
export class OsHostMetrics implements HostMetrics {
  private readonly sources: HostMetricsSources;
  private readonly diskPath: string;
  private lastSample: CpuSample;
  private lastCpuPercent = 0;

  /**
   * @param diskPath the directory whose file system's use `statistics()` reports (the projects
   *   directory); it need not exist yet.
   * @param sources replacements for the real machine's `os`, /proc/meminfo, `statfs` and clock.
   */
  constructor(diskPath: string, sources: Partial<HostMetricsSources> = {}) {
    // Called as methods of `sources`, so a fake may be a class with prototype methods.
    const s = sources;
    const d = defaultSources;
    this.sources = {
      cpus: () => (s.cpus ? s.cpus() : d.cpus()),
      meminfo: () => (s.meminfo ? s.meminfo() : d.meminfo()),
      loadavg: () => (s.loadavg ? s.loadavg() : d.loadavg()),
      totalmem: () => (s.totalmem ? s.totalmem() : d.totalmem()),
      freemem: () => (s.freemem ? s.freemem() : d.freemem()),
      statfs: (path) => (s.statfs ? s.statfs(path) : d.statfs(path)),
      now: () => (s.now ? s.now() : d.now()),
    };
    this.diskPath = resolve(diskPath);
    // The first sample is taken now, so that the first load() a second later already has a window.
    this.lastSample = this.sampleCpu(this.sources.now());
  }

  load(): HostLoad {
    const memory = this.memory();
    // One decimal, as psutil gives them in GNS3's ping.
    return {
      cpuUsagePercent: roundTenth(this.cpuPercent()),
      memoryUsagePercent: roundTenth(percent(memory.total - memory.available, memory.total)),
    };
  }

  async statistics(): Promise<HostStatistics> {
    const memory = this.memory();
    const disk = await this.statfsNearest(this.diskPath);
    const diskUsed = Math.max(0, disk.blocks - disk.bfree);
    const cpuCount = this.sources.cpus().length || 1;
    const [one = 0, five = 0, fifteen = 0] = this.sources.loadavg();
    // A load above the CPU count is real (over 100 %), so load percentages are not capped at 100.
    const loadPercent = (load: number) => Math.max(0, Math.trunc(finite((load / cpuCount) * 100)));
    const swapUsed = Math.max(0, memory.swapTotal - memory.swapFree);
    return {
      memoryTotal: memory.total,
      memoryFree: memory.available,
      memoryUsed: memory.total - memory.available,
      swapTotal: memory.swapTotal,
      swapFree: memory.swapFree,
      swapUsed,
      // GNS3 truncates with int(); so do these.
      cpuUsagePercent: Math.trunc(this.cpuPercent()),
      memoryUsagePercent: Math.trunc(percent(memory.total - memory.available, memory.total)),
      swapUsagePercent: Math.trunc(percent(swapUsed, memory.swapTotal)),
      // As df and psutil do: the blocks reserved for root count as neither used nor available.
      diskUsagePercent: Math.trunc(percent(diskUsed, diskUsed + disk.bavail)),
      loadAveragePercent: [loadPercent(one), loadPercent(five), loadPercent(fifteen)],
    };
  }

  /** CPU use since the previous sample, or the previous answer while the window is too short. */
  private cpuPercent(): number {
    const at = this.sources.now();
    if (at - this.lastSample.at < MIN_SAMPLE_INTERVAL_MS) return this.lastCpuPercent;
    const sample = this.sampleCpu(at);
    const total = sample.total - this.lastSample.total;
    const busy = sample.busy - this.lastSample.busy;
    this.lastSample = sample;
    // A CPU going offline between samples makes the sums shrink: keep the previous answer then.
    if (total > 0 && busy >= 0) this.lastCpuPercent = percent(busy, total);
    return this.lastCpuPercent;
  }

  private sampleCpu(at: number): CpuSample {
    let busy = 0;
    let total = 0;
    for (const { times } of this.sources.cpus()) {
      const all = times.user + times.nice + times.sys + times.idle + times.irq;
      total += all;
      busy += all - times.idle;
    }
    return { at, busy, total };
  }

  private memory(): Memory {
    const info = parseMeminfo(this.sources.meminfo());
    const total = nonNegativeInteger(info.get("MemTotal") ?? this.sources.totalmem());
    const available = Math.min(total, nonNegativeInteger(info.get("MemAvailable") ?? this.sources.freemem()));
    const swapTotal = nonNegativeInteger(info.get("SwapTotal") ?? 0);
    const swapFree = Math.min(swapTotal, nonNegativeInteger(info.get("SwapFree") ?? 0));
    return { total, available, swapTotal, swapFree };
  }

  /** statfs of the path, or of its nearest existing ancestor (the projects directory may not exist yet). */
  private async statfsNearest(path: string): Promise<FileSystemBlocks> {
    for (let current = path; ; current = dirname(current)) {
      try {
        return await this.sources.statfs(current);
      } catch (err) {
        const code = (err as NodeJS.ErrnoException).code;
        if ((code !== "ENOENT" && code !== "ENOTDIR") || dirname(current) === current) throw err;
      }
    }
  }
}

/** /proc/meminfo's `Key:   value kB` lines, in bytes. */
function parseMeminfo(text: string | undefined): Map<string, number> {
  const values = new Map<string, number>();
  for (const line of (text ?? "").split("\n")) {
    const match = /^([^:\s]+):\s*(\d+)\s*(kB)?\s*$/.exec(line);
    if (match?.[1] === undefined || match[2] === undefined) continue;
    values.set(match[1], Number(match[2]) * (match[3] === undefined ? 1 : 1024));
  }
  return values;
}

/** part / whole × 100, within 0..100, and 0 when there is no whole. */
function percent(part: number, whole: number): number {
  if (!(whole > 0)) return 0;
  return Math.min(100, Math.max(0, finite((part / whole) * 100)));
}

function finite(value: number): number {
  return Number.isFinite(value) ? value : 0;
}

function nonNegativeInteger(value: number): number {
  return Math.max(0, Math.trunc(finite(value)));
}

function roundTenth(value: number): number {
  return Math.round(value * 10) / 10;
}
