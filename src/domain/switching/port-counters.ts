import { FILTER_DROP_REASONS, type FilterDropReason } from "../filters/filter-chain.js";
import { QueueDelayRecord, type QueueDelayReading, type QueueDelayState } from "../filters/queue-delay.js";

/** Why the switch itself dropped a frame received on a port. */
export type SwitchDropReason =
  /** shorter than 14 bytes, or tagged and shorter than 18 */
  | "runt"
  /** the port does not admit the frame's VLAN (tag not allowed on the port, reserved VID 4095) */
  | "vlan"
  /** nowhere to send it: known unicast to its own ingress port, or no other port in its VLAN */
  | "no_route";

/** Why a frame the switch sent to a port did not leave through its NIO. */
type EgressDropReason =
  /** the port's NIO is a nio_null: connected to nothing */
  | "nio_null"
  /** larger than a UDP datagram can carry (65,507 bytes), e.g. after a tag was pushed */
  | "oversize";

/**
 * "stopped": received while the node is stopped or suspended, nothing is forwarded then. "overload":
 * the port had spent its work budget for the turn and its backlog was full (ADR 0075).
 */
type NodeDropReason = "stopped" | "overload";

/** A delayed frame the port's or its thread's bound on held frames had no room for (ADR 0072). */
type HoldDropReason = "delay_limit";

/** A frame from an in-process link beyond the port's receive buffer, where the kernel would have dropped it (ADR 0105). */
type LinkDropReason = "receive_buffer";

export type DropReason = SwitchDropReason | FilterDropReason | EgressDropReason | NodeDropReason | HoldDropReason | LinkDropReason;

/** Every drop reason, as the metrics label them (docs/metrics.md lists each; a test holds it to this list). */
export const DROP_REASONS = [...FILTER_DROP_REASONS, "delay_limit", "stopped", "overload", "runt", "vlan", "no_route", "nio_null", "oversize", "receive_buffer"] as const satisfies readonly DropReason[];
type SameMembers<A, B> = [A] extends [B] ? ([B] extends [A] ? true : false) : false;
type Holds<T extends true> = T;
/** Compiles only when DROP_REASONS has every DropReason. */
type EveryDropReasonListed = Holds<SameMembers<(typeof DROP_REASONS)[number], DropReason>>;

/** A point-in-time copy of one port's counters. */
export interface PortCountersSnapshot {
  /** Frames / bytes received from the port's NIO (before any filter). */
  readonly framesIn: number;
  readonly bytesIn: number;
  /** Frames / bytes sent to the port's NIO (after its filters). */
  readonly framesOut: number;
  readonly bytesOut: number;
  /** Received frames the switch delivered to at least one other port. */
  readonly framesForwarded: number;
  /** Frames the switch handed to this port for sending (before its filters). */
  readonly framesOffered: number;
  /** Received frames dropped, by reason (ingress filters, suspend, runt, vlan, no_route). */
  readonly ingressDrops: Readonly<Record<string, number>>;
  /** Offered frames dropped by the port's filters on the way out, by reason. */
  readonly egressDrops: Readonly<Record<string, number>>;
  /** ingressDrops + egressDrops, by reason. */
  readonly drops: Readonly<Record<string, number>>;
  /** The queue each direction's frames waited in (ADR 0097); absent in counts taken before it was recorded. */
  readonly queueDelay?: { readonly ingress: QueueDelayState; readonly egress: QueueDelayState };
}

function sum(record: Readonly<Record<string, number>>): number {
  let total = 0;
  for (const k in record) total += record[k]!;
  return total;
}

/**
 * The two balances that always hold for a port:
 * framesIn = framesForwarded + Σ ingressDrops, and framesOffered = framesOut + Σ egressDrops.
 * (Frames held back by a delay filter and not yet sent are the only exception, while in flight.)
 */
export function countersBalance(s: PortCountersSnapshot): { readonly ingress: boolean; readonly egress: boolean } {
  return {
    ingress: s.framesIn === s.framesForwarded + sum(s.ingressDrops),
    egress: s.framesOffered === s.framesOut + sum(s.egressDrops),
  };
}

/**
 * Mutable counters of one switch port. The switch counts framesIn, framesForwarded, framesOffered
 * and its own ingress drops; the data plane counts what its filters drop (countIngressDrop /
 * countEgressDrop, or countInDropped for a frame dropped before it reached the switch) and what it
 * actually sends (countOut).
 */
export class PortCounters {
  framesIn = 0;
  bytesIn = 0;
  framesOut = 0;
  bytesOut = 0;
  framesForwarded = 0;
  framesOffered = 0;
  private readonly ingress: Record<string, number> = Object.create(null) as Record<string, number>;
  private readonly egress: Record<string, number> = Object.create(null) as Record<string, number>;
  /** How long received frames waited in the port's ingress queue (bandwidth in), and sent ones in its egress queue (ADR 0097). */
  readonly ingressQueue = new QueueDelayRecord();
  readonly egressQueue = new QueueDelayRecord();

  /** `frames` received (one unless said), of `bytes` in all. */
  countIn(bytes: number, frames = 1): void {
    this.framesIn += frames;
    this.bytesIn += bytes;
  }

  /**
   * A frame received on the port and dropped before reaching the switch (ingress filter, suspend), or
   * `frames` of `bytes` in all (an in-process link's receive buffer counts its drops so, ADR 0111).
   */
  countInDropped(bytes: number, reason: DropReason, frames = 1): void {
    this.countIn(bytes, frames);
    this.countIngressDrop(reason, frames);
  }

  countIngressDrop(reason: DropReason, frames = 1): void {
    this.ingress[reason] = (this.ingress[reason] ?? 0) + frames;
  }

  countEgressDrop(reason: DropReason): void {
    this.egress[reason] = (this.egress[reason] ?? 0) + 1;
  }

  countOut(bytes: number): void {
    this.framesOut++;
    this.bytesOut += bytes;
  }

  reset(): void {
    this.framesIn = this.bytesIn = this.framesOut = this.bytesOut = this.framesForwarded = this.framesOffered = 0;
    for (const k in this.ingress) delete this.ingress[k];
    for (const k in this.egress) delete this.egress[k];
    this.ingressQueue.reset();
    this.egressQueue.reset();
  }

  /** Each direction's queue delay as read at `nowMs` (its recent maximum depends on when it is read). */
  queueDelay(nowMs: number): { readonly ingress: QueueDelayReading; readonly egress: QueueDelayReading } {
    return { ingress: this.ingressQueue.reading(nowMs), egress: this.egressQueue.reading(nowMs) };
  }

  /** Goes on from counts taken elsewhere (the same port on another thread, ADR 0069); a count that is not one is left at zero. */
  resume(from: PortCountersSnapshot): void {
    this.reset();
    const count = (n: unknown): number => (typeof n === "number" && Number.isSafeInteger(n) && n >= 0 ? n : 0);
    this.framesIn = count(from.framesIn);
    this.bytesIn = count(from.bytesIn);
    this.framesOut = count(from.framesOut);
    this.bytesOut = count(from.bytesOut);
    this.framesForwarded = count(from.framesForwarded);
    this.framesOffered = count(from.framesOffered);
    const drops = (into: Record<string, number>, record: unknown): void => {
      if (typeof record !== "object" || record === null) return;
      for (const [reason, n] of Object.entries(record)) if ((DROP_REASONS as readonly string[]).includes(reason) && count(n) > 0) into[reason] = count(n);
    };
    drops(this.ingress, from.ingressDrops);
    drops(this.egress, from.egressDrops);
    const queues: unknown = from.queueDelay;
    if (typeof queues === "object" && queues !== null) {
      this.ingressQueue.resume((queues as Record<string, QueueDelayState | undefined>)["ingress"]);
      this.egressQueue.resume((queues as Record<string, QueueDelayState | undefined>)["egress"]);
    }
  }

  snapshot(): PortCountersSnapshot {
    const drops: Record<string, number> = {};
    for (const k in this.ingress) drops[k] = this.ingress[k]!;
    for (const k in this.egress) drops[k] = (drops[k] ?? 0) + this.egress[k]!;
    return {
      framesIn: this.framesIn,
      bytesIn: this.bytesIn,
      framesOut: this.framesOut,
      bytesOut: this.bytesOut,
      framesForwarded: this.framesForwarded,
      framesOffered: this.framesOffered,
      ingressDrops: { ...this.ingress },
      egressDrops: { ...this.egress },
      drops,
      queueDelay: { ingress: this.ingressQueue.state(), egress: this.egressQueue.state() },
    };
  }
}
