import { collectDefaultMetrics, Registry } from "prom-client";

let shared: Registry | undefined;

/**
 * prom-client's process and Node.js metrics (CPU, memory, handles, GC, event-loop delay from
 * perf_hooks.monitorEventLoopDelay), made once per process: they describe the process, not a netemu
 * instance, and each set keeps a GC observer and a delay histogram alive for good, so one set per
 * instance would pile up in a host (or a test run) that makes many (ADR 0043).
 */
export function processMetrics(): Registry {
  if (shared === undefined) {
    shared = new Registry();
    collectDefaultMetrics({ register: shared });
  }
  return shared;
}
