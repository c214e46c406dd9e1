/** What the live state says, read without changing it: counters, MAC tables, the load of each node. */
import type { PortCounters as LivePortCounters } from "../../domain/switching/port-counters.js";
import type { MacTableEntry, PortCounters } from "../ports/data-plane.js";
import type { Clock } from "../ports/system.js";
import type { LiveNode, LiveNodes } from "./live-node.js";

/** The counters of each attached port of a node (none for a node not here). */
export function portCountersOf(live: LiveNode | undefined, clock: Clock): ReadonlyMap<number, PortCounters> {
  const out = new Map<number, PortCounters>();
  if (live === undefined) return out;
  const nowMs = clock.nowMs();
  for (const portNumber of live.ports.keys()) {
    const c: LivePortCounters | undefined = live.counters(portNumber);
    if (c === undefined) continue;
    const s = c.snapshot();
    const port = live.ports.get(portNumber);
    const queues = port?.queueStatistics();
    const ingress = port?.chains.ingress.traceReading("ingress", nowMs);
    const egress = port?.chains.egress.traceReading("egress", nowMs);
    const traces = ingress === undefined && egress === undefined ? undefined : { ...(ingress === undefined ? {} : { ingress }), ...(egress === undefined ? {} : { egress }) };
    out.set(portNumber, { framesIn: s.framesIn, bytesIn: s.bytesIn, framesOut: s.framesOut, bytesOut: s.bytesOut, drops: s.drops, queueDelay: c.queueDelay(nowMs), ...(queues === undefined ? {} : { queues }), ...(traces === undefined ? {} : { traces }) });
  }
  return out;
}

/**
 * Frames each node has taken in and sent out since its ports were attached: the work it costs its
 * thread, which the placement of nodes over workers compares (ADR 0069). Counted, not timed, so it
 * costs the frame path nothing more.
 */
export function frameTotalsOf(nodes: LiveNodes): ReadonlyMap<string, number> {
  const totals = new Map<string, number>();
  for (const [nodeId, live] of nodes) {
    let frames = 0;
    for (const portNumber of live.ports.keys()) {
      const c = live.counters(portNumber);
      if (c !== undefined) frames += c.framesIn + c.framesOut;
    }
    totals.set(nodeId, frames);
  }
  return totals;
}

/** A switch's MAC table as it stands now (a hub, or a node not here, has none). */
export function macTableOf(live: LiveNode | undefined, clock: Clock): readonly MacTableEntry[] {
  return live?.live.kind === "ethernet_switch" ? live.live.fabric.macTable(clock.nowMs()) : [];
}
