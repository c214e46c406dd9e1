import type { HoldBudget } from "../../domain/filters/hold-limit.js";
import type { Clock } from "../ports/system.js";
import type { Timers } from "../ports/timers.js";
import type { FramePath } from "./frame-path.js";
import type { LiveNode, LivePort } from "./live-node.js";
import type { PortChains } from "./port-chains.js";
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

/**
 * After a port's chains changed (ADR 0055), the bandwidth stage's backlog goes on across a switch of
 * discipline (ADR 0100), per direction: tail drop → codel/fq_codel, the queue's first frame starts when
 * the Shaper is free (the frames it admitted leave first, in order); codel/fq_codel → tail drop, what the
 * queue held goes to the delay line as the Shaper's frames would, one after the other at the rate it
 * was queued for, and the Shaper starts after the last of them. The rate stays exact across the switch.
 */
export function carryBacklogs(path: FramePath, live: LiveNode, port: LivePort, before: PortChains, nowMs: number): void {
  for (const direction of ["ingress", "egress"] as const) {
    const was = before[direction];
    const is = port.chains[direction];
    if (was === is) continue;
    const shaperFreeAt = was.transmitterFreeAtMs(direction);
    if (shaperFreeAt !== undefined && is.queue !== undefined) port.transmitQueue(direction)?.startAfter(shaperFreeAt);
    const queue = port.queueOf(direction);
    if (was.queue !== undefined && is.transmitterFreeAtMs(direction) !== undefined && queue !== undefined) {
      const released = queue.release();
      for (const { frame, doneMs } of released.frames) path.leftQueue(live, port, direction, frame, doneMs - nowMs);
      is.transmitterBusyUntil(direction, released.freeAtMs);
    }
  }
}
