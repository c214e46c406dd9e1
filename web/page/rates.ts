import type { LabCounters, PortCounters, QueueDelay } from "./api.js";

/** A port's rates between two readings, per direction: in (from its peer) and out (to its peer). */
export interface PortRates {
  readonly framesInPerSecond: number;
  readonly framesOutPerSecond: number;
  readonly bitsInPerSecond: number;
  readonly bitsOutPerSecond: number;
  /** The port's queue each way between the two readings (ADR 0097). */
  readonly queueIn: QueueFigures;
  readonly queueOut: QueueFigures;
}

/** A direction's queue between two readings. */
export interface QueueFigures {
  /** Frames that went through the queue between the readings. */
  readonly frames: number;
  /** Their mean wait before transmission, in ms (0 when none went through). */
  readonly meanMs: number;
  /** The largest wait of the last one to two seconds, in ms. */
  readonly maxMs: number;
  /** Whether a frame ever went through this queue (false where no bandwidth is set). */
  readonly everQueued: boolean;
}

function queueBetween(before: QueueDelay | undefined, after: QueueDelay | undefined): QueueFigures {
  if (after === undefined) return { frames: 0, meanMs: 0, maxMs: 0, everQueued: false };
  const frames = before === undefined || after.frames < before.frames ? after.frames : after.frames - before.frames;
  const sum = before === undefined || after.frames < before.frames ? after.sum_ms : after.sum_ms - before.sum_ms;
  return { frames, meanMs: frames > 0 ? sum / frames : 0, maxMs: after.max_ms, everQueued: after.frames > 0 };
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
      // An answer from a netemu without queue figures reads as no queue.
      queueIn: queueBetween(q.queue_delay?.in, p.queue_delay?.in),
      queueOut: queueBetween(q.queue_delay?.out, p.queue_delay?.out),
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

/** A wait as people read it: 0.4 ms, 12 ms, 1.2 s. */
export function humanWait(ms: number): string {
  if (ms >= 1000) return `${(ms / 1000).toFixed(1)} s`;
  return ms < 10 ? `${ms.toFixed(1)} ms` : `${ms.toFixed(0)} ms`;
}
