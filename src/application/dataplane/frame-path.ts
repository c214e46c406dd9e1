import { deviceOf } from "../../domain/switching/nio.js";
import type { DropReason } from "../../domain/switching/port-counters.js";
import type { QueueDelayRecord } from "../../domain/filters/queue-delay.js";
import type { Clock, Logger } from "../ports/system.js";
import type { LiveNode, LivePort, Tell } from "./live-node.js";

/** The largest UDP payload over IPv4: a frame that grew past it (a pushed tag) cannot be sent. */
const MAX_UDP_PAYLOAD = 65_507;
/** Frames kept for a port not attached yet: a few ms of a busy link; more waits in the kernel anyway. */
const MAX_EARLY_FRAMES = 4096;

/** What a frame (and its copy, when duplicate sent one through the queue too) waited in a direction's queue (ADR 0097). */
function recordQueueWaits(record: QueueDelayRecord, waitMs: number, copyWaitMs: number, nowMs: number): void {
  record.record(waitMs, nowMs);
  if (copyWaitMs >= 0) record.record(copyWaitMs, nowMs);
}

/**
 * The frame path of the switches and hubs. A frame received on port P: P's counters, P's filter
 * chain (drop, or corrupt, or hold for its delay), P's capture, then the node's fabric (802.1Q
 * switch or hub); each egress port Q: Q's filter chain, Q's delay, Q's capture, Q's socket. So a
 * link end's filters act on both directions, and captures see frames after the filters. A stopped
 * or suspended node drops what it receives. It holds no state of its own: every frame's way is
 * decided by the live port and node it is given (reconcile wires ports to it when it opens them).
 */
export class FramePath {
  constructor(
    private readonly clock: Clock,
    private readonly logger: Logger,
    private readonly tell: Tell,
  ) {}

  /** The socket says the peer cannot be reached: told once, until frames come from it again. */
  peerFailed(live: LiveNode, port: LivePort, reason: string): void {
    if (port.peerUnreachable || port.nio.type !== "nio_udp") return;
    port.peerUnreachable = true;
    const peer = `${port.nio.rhost}:${port.nio.rport}`;
    this.tell({ kind: "peer_unreachable", node: live.node, portNumber: port.portNumber, peer, reason }, "NIO peer unreachable", { port: port.portNumber, peer, reason });
  }

  /** The port's device (nio_tap, nio_ethernet) failed: told once, until frames come from it again. */
  deviceFailed(live: LiveNode, port: LivePort, reason: string): void {
    if (port.peerUnreachable || (port.nio.type !== "nio_tap" && port.nio.type !== "nio_ethernet")) return;
    port.peerUnreachable = true;
    const device = deviceOf(port.nio);
    this.tell({ kind: "device_failed", node: live.node, portNumber: port.portNumber, device, reason }, "NIO device failed", { port: port.portNumber, device, reason });
  }

  /** A frame the port had neither the budget to handle this turn nor the room to keep. */
  overloaded(port: LivePort, frame: Uint8Array): void {
    if (port.counters !== undefined) port.counters.countInDropped(frame.length, "overload");
    else if (port.early !== undefined && port.early.length < MAX_EARLY_FRAMES) port.early.push(frame);
  }

  /** Frames of an in-process link the port's receive buffer had no room for (ADR 0105, 0111): dropped where the kernel would have. */
  overflowed(port: LivePort, frames: number, bytes: number): void {
    port.counters?.countInDropped(bytes, "receive_buffer", frames);
  }

  /** A throw out of a socket's message event would end the process: it costs the one frame instead. */
  receivedGuarded(live: LiveNode, port: LivePort, frame: Uint8Array): void {
    try {
      this.received(live, port, frame);
    } catch (err) {
      this.faulted(live, port, err);
    }
  }

  /** Logged at the first fault of a port and then every 1,000th, so a fault per frame cannot flood the log. */
  faulted(live: LiveNode, port: LivePort, err: unknown): void {
    port.faults++;
    if (port.faults !== 1 && port.faults % 1000 !== 0) return;
    const reason = err instanceof Error ? (err.stack ?? err.message) : String(err);
    this.logger.error("frame lost to a fault in the data plane", {
      projectId: live.node.projectId,
      nodeId: live.node.nodeId,
      port: port.portNumber,
      faults: port.faults,
      reason,
    });
  }

  /** A datagram from the port's peer. */
  private received(live: LiveNode, port: LivePort, frame: Uint8Array): void {
    const counters = port.counters;
    if (counters === undefined) {
      if (port.early !== undefined && port.early.length < MAX_EARLY_FRAMES) port.early.push(frame);
      return;
    }
    port.peerUnreachable = false;
    if (!live.running) {
      counters.countInDropped(frame.length, "stopped");
      return;
    }
    const chain = port.chains.ingress;
    const nowMs = chain.needsTime ? this.clock.nowMs() : 0;
    const outcome = chain.process(frame, "ingress", nowMs);
    if (outcome.drop !== undefined) {
      counters.countInDropped(frame.length, outcome.drop);
      return;
    }
    if (outcome.queueWaitMs >= 0) recordQueueWaits(counters.ingressQueue, outcome.queueWaitMs, outcome.copyQueueWaitMs, nowMs);
    if (outcome.queued) {
      this.intoQueue(port, "ingress", outcome.frame, outcome.copies);
      return;
    }
    // Read before the first copy goes on: forwarding may run this port's chain again (the outcome is reused).
    const { frame: passed, delayMs, copies, copyDelayMs, bypassed, precise } = outcome;
    const overtakes = outcome.overtakes || bypassed;
    this.towardsSwitch(live, port, passed, delayMs, overtakes, precise);
    if (copies === 2) this.towardsSwitch(live, port, passed, copyDelayMs, overtakes, precise);
  }

  /** `precise`: the delay has a fraction of a ms, which the line keeps by waking to the µs (ADR 0101). */
  private towardsSwitch(live: LiveNode, port: LivePort, frame: Uint8Array, delayMs: number, overtakes: boolean, precise: boolean): void {
    // The switch counts it as received when it takes it in, once its delay is over. A frame without
    // delay still waits behind frames held under an earlier delay setting: the order is kept (ADR
    // 0055); one that overtakes on purpose (reorder) or that match left untouched does not.
    if (overtakes && delayMs <= 0) this.intoSwitch(live, port, frame);
    else if (!overtakes && delayMs <= 0 && port.ingressDelay.pending === 0) this.intoSwitch(live, port, frame);
    // Beyond the port's or the thread's bound (ADR 0072): received, and dropped there.
    else if (!(overtakes ? port.expressLine("ingress") : port.ingressDelay).push(frame, delayMs, precise && !overtakes)) port.dropHeld("ingress", frame.length);
  }

  /** A frame whose ingress delay is over: P's capture, then the node's fabric, then each egress port's way. */
  intoSwitch(live: LiveNode, port: LivePort, frame: Uint8Array): void {
    if (!live.running) {
      // Held by a delay while the node stopped: it is received now, into a node that forwards nothing.
      port.counters?.countInDropped(frame.length, "stopped");
      return;
    }
    const nowMs = this.clock.nowMs();
    port.capture?.writer.write(frame, nowMs);
    const result = live.forward(port.portNumber, frame, nowMs);
    for (let i = 0; i < result.count; i++) {
      const egress = live.ports.get(result.ports[i] as number);
      if (egress !== undefined) this.towardsPort(egress, result.frames[i] as Uint8Array);
    }
  }

  /** A frame the switch sends to a port: that port's filters, then its delay, capture and socket. */
  private towardsPort(port: LivePort, frame: Uint8Array): void {
    const chain = port.chains.egress;
    const nowMs = chain.needsTime ? this.clock.nowMs() : 0;
    const outcome = chain.process(frame, "egress", nowMs);
    if (outcome.drop !== undefined) {
      port.counters?.countEgressDrop(outcome.drop as DropReason);
      return;
    }
    if (outcome.queueWaitMs >= 0 && port.counters !== undefined) recordQueueWaits(port.counters.egressQueue, outcome.queueWaitMs, outcome.copyQueueWaitMs, nowMs);
    if (outcome.queued) {
      this.intoQueue(port, "egress", outcome.frame, outcome.copies);
      return;
    }
    const { frame: passed, delayMs, copies, copyDelayMs, bypassed, precise } = outcome;
    const overtakes = outcome.overtakes || bypassed;
    this.onToPort(port, passed, delayMs, overtakes, precise);
    if (copies === 2) this.onToPort(port, passed, copyDelayMs, overtakes, precise);
  }

  private onToPort(port: LivePort, frame: Uint8Array, delayMs: number, overtakes: boolean, precise: boolean): void {
    if (overtakes && delayMs <= 0) this.ontoWire(port, frame);
    else if (!overtakes && delayMs <= 0 && port.egressDelay.pending === 0) this.ontoWire(port, frame);
    else if (!(overtakes ? port.expressLine("egress") : port.egressDelay).push(frame, delayMs, precise && !overtakes)) port.dropHeld("egress", frame.length);
  }

  /** Into the direction's bandwidth queue (CoDel, FQ-CoDel: ADR 0100), with its copy when duplicate made one. */
  private intoQueue(port: LivePort, direction: "ingress" | "egress", frame: Uint8Array, copies: 1 | 2): void {
    const queue = port.chains[direction].queue;
    const transmit = port.transmitQueue(direction);
    if (queue === undefined || transmit === undefined) return;
    transmit.offer(frame, queue.discipline, queue.rateKbps);
    if (copies === 2) transmit.offer(frame, queue.discipline, queue.rateKbps);
  }

  /**
   * A frame whose last bit left the bandwidth queue's transmitter: the rest of its chain (reorder,
   * delay), then on. `untilSentMs`: how long until its last bit leaves, for a frame a queue let go to
   * a tail-drop transmitter (ADR 0100): it waits that out in the delay line, as a Shaper's frame does.
   */
  leftQueue(live: LiveNode, port: LivePort, direction: "ingress" | "egress", frame: Uint8Array, untilSentMs = 0): void {
    const chain = port.chains[direction];
    const after = chain.afterQueue(chain.needsTime ? this.clock.nowMs() : 0);
    const delayMs = Math.max(0, untilSentMs) + after.delayMs;
    if (direction === "ingress") this.towardsSwitch(live, port, frame, delayMs, after.overtakes, after.precise);
    else if (!live.running) port.counters?.countEgressDrop("stopped");
    else this.onToPort(port, frame, delayMs, after.overtakes, after.precise);
  }

  /** A frame whose egress delay is over: its capture, then its socket. */
  ontoWire(port: LivePort, frame: Uint8Array): void {
    if (frame.length > MAX_UDP_PAYLOAD) {
      port.counters?.countEgressDrop("oversize");
      return;
    }
    port.capture?.writer.write(frame, this.clock.nowMs());
    if (port.endpoint === undefined) {
      port.counters?.countEgressDrop("nio_null");
      return;
    }
    port.endpoint.send(frame);
    port.counters?.countOut(frame.length);
  }
}
