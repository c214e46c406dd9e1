import { collectDefaultMetrics, Registry } from "prom-client";

let shared: Promise<Registry> | undefined;

/** How often the loop-delay monitor of the process's metrics samples (prom-client's default). */
const LOOP_MONITOR_RESOLUTION_MS = 10;

/**
 * prom-client's process and Node.js metrics (CPU, memory, handles, GC, event-loop delay from
 * perf_hooks.monitorEventLoopDelay), made once per process: they describe the process, not a netemu
 * instance, and each set keeps a GC observer and a delay histogram alive for good, so one set per
 * instance would pile up in a host (or a test run) that makes many (ADR 0043).
 *
 * Made when first asked for, at a scrape (ADR 0113): the delay monitor wakes the main thread every
 * 10 ms from then on. A monitor just started has no sample (Node's empty histogram reads a minimum of
 * 2^63 ns), so every caller waits until it has two.
 */
export function processMetrics(): Promise<Registry> {
  shared ??= (async () => {
    const registry = new Registry();
    collectDefaultMetrics({ register: registry, eventLoopMonitoringPrecision: LOOP_MONITOR_RESOLUTION_MS });
    await new Promise((resolve) => setTimeout(resolve, 2 * LOOP_MONITOR_RESOLUTION_MS + 5));
    return registry;
  })();
  return shared;
}
