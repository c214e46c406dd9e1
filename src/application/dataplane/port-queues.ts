import type { HoldBudget } from "../../domain/filters/hold-limit.js";
import type { Clock } from "../ports/system.js";
import type { Timers } from "../ports/timers.js";
import type { FramePath } from "./frame-path.js";
import type { LiveNode, LivePort } from "./live-node.js";
import { TransmitQueue } from "./transmit-queue.js";

/**
 * A port direction's bandwidth queue (ADR 0100), wired to the frame path: a frame that leaves it
 * goes on through the rest of the chain (reorder, delay) and to the switch or the wire; one it drops
 * is counted where a filter's drop of that direction is. Its room counts against the port's hold
 * budget, as its delay lines' does (ADR 0072).
 */
export function makeTransmitQueue(clock: Clock, timers: Timers, path: FramePath, live: LiveNode, port: LivePort, direction: "ingress" | "egress", budget: HoldBudget): TransmitQueue {
  return new TransmitQueue(
    clock,
    timers,
    (frame) => path.leftQueue(live, port, direction, frame),
    (bytes, reason) => (direction === "ingress" ? port.counters?.countInDropped(bytes, reason) : port.counters?.countEgressDrop(reason)),
    (err) => path.faulted(live, port, err),
    budget,
    // A perturbation per queue, as Linux draws one per qdisc: flows collide differently on each port.
    (Math.random() * 2 ** 32) >>> 0,
    // The page and /metrics read one queue delay per direction, whichever discipline queued the frame.
    (waitMs, nowMs) => port.counters?.[direction === "ingress" ? "ingressQueue" : "egressQueue"].record(waitMs, nowMs),
  );
}
