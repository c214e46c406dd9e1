import type { LabCounters, PortCounters } from "./api.js";

/** A port's rates between two readings, per direction: in (from its peer) and out (to its peer). */
export interface PortRates {
  readonly framesInPerSecond: number;
  readonly framesOutPerSecond: number;
  readonly bitsInPerSecond: number;
  readonly bitsOutPerSecond: number;
}

export const portKey = (nodeId: string, port: number): string => `${nodeId}:${port}`;

/**
 * Rates from two readings of a lab's counters, by port. A port absent from the earlier reading, or
 * whose counts went down (the node was made again), has no rate yet.
 */
export function ratesBetween(before: LabCounters | undefined, after: LabCounters): Map<string, PortRates> {
  const rates = new Map<string, PortRates>();
  if (before === undefined) return rates;
  const seconds = (after.at_ms - before.at_ms) / 1000;
  if (!(seconds > 0)) return rates;
  const earlier = new Map<string, PortCounters>(before.ports.map((p) => [portKey(p.node_id, p.port_number), p]));
  for (const p of after.ports) {
    const key = portKey(p.node_id, p.port_number);
    const q = earlier.get(key);
    if (q === undefined || p.frames_in < q.frames_in || p.frames_out < q.frames_out) continue;
    rates.set(key, {
      framesInPerSecond: (p.frames_in - q.frames_in) / seconds,
      framesOutPerSecond: (p.frames_out - q.frames_out) / seconds,
      bitsInPerSecond: ((p.bytes_in - q.bytes_in) * 8) / seconds,
      bitsOutPerSecond: ((p.bytes_out - q.bytes_out) * 8) / seconds,
    });
  }
  return rates;
}

/** A rate as people read it: 1.2 kb/s, 3.4 Mb/s. */
export function humanRate(value: number, unit: string): string {
  const steps = ["", "k", "M", "G"];
  let v = value;
  let i = 0;
  while (Math.abs(v) >= 1000 && i < steps.length - 1) {
    v /= 1000;
    i++;
  }
  return `${v >= 100 || i === 0 ? v.toFixed(0) : v.toFixed(1)} ${steps[i]}${unit}`;
}
