import { readFileSync } from "node:fs";
import { monitorEventLoopDelay } from "node:perf_hooks";

/** Above this 99th percentile of its event loop's delay, netemu (in this process) counts as starved of CPU. */
export const STARVED_LOOP_P99_MS = 10;
/** Above this share of all the machine's cores busy (steal included), the machine counts as starved. */
export const STARVED_MACHINE_BUSY = 0.9;

/** The machine's CPU time so far (all cores, /proc/stat's first line, in ticks), its idle part, and this process's (netemu's data plane and the test) in µs. */
export interface CpuSample {
  readonly total: number;
  readonly idle: number;
  readonly self: NodeJS.CpuUsage;
  readonly at: number;
}

export function cpuSample(): CpuSample {
  const fields = (readFileSync("/proc/stat", "utf8").split("\n")[0] as string).trim().split(/\s+/).slice(1).map(Number);
  // user nice system idle iowait irq softirq steal: idle and iowait are the idle part.
  return { total: fields.slice(0, 8).reduce((n, x) => n + x, 0), idle: (fields[3] as number) + (fields[4] as number), self: process.cpuUsage(), at: Date.now() };
}

/** Between two samples: how busy the machine was (0–1 of all its cores) and how many cores this process used. */
export function cpuBetween(from: CpuSample, to: CpuSample): { machineBusy: number; selfCores: number } {
  const used = process.cpuUsage(from.self);
  const total = to.total - from.total;
  return { machineBusy: total === 0 ? 0 : 1 - (to.idle - from.idle) / total, selfCores: (used.user + used.system) / 1000 / Math.max(1, to.at - from.at) };
}

/** What the machine and this process's event loop went through while a measurement ran. */
export interface Load {
  readonly machineBusy: number;
  readonly selfCores: number;
  /** This process's event loop: its 99th percentile and longest delay, ms. */
  readonly loopP99Ms: number;
  readonly loopMaxMs: number;
}

/** Runs `measure` and says the load it ran under. */
export async function underLoad<T>(measure: () => Promise<T>): Promise<{ value: T; load: Load }> {
  const loop = monitorEventLoopDelay({ resolution: 5 });
  loop.enable();
  const cpu0 = cpuSample();
  try {
    const value = await measure();
    const cpu = cpuBetween(cpu0, cpuSample());
    return { value, load: { ...cpu, loopP99Ms: loop.percentile(99) / 1e6, loopMaxMs: loop.max / 1e6 } };
  } finally {
    loop.disable();
  }
}

/** Whether a run fell short for want of CPU: netemu's loop held up, or the machine's cores all but full. */
export const starved = (load: Load): boolean => load.loopP99Ms > STARVED_LOOP_P99_MS || load.machineBusy > STARVED_MACHINE_BUSY;

export const describeLoad = (load: Load): string =>
  `machine ${(load.machineBusy * 100).toFixed(0)} % busy, this process (netemu) ${(load.selfCores * 100).toFixed(0)} % of a core, event loop delay p99 ${load.loopP99Ms.toFixed(1)} ms, max ${load.loopMaxMs.toFixed(1)} ms`;
