import type { FilterChainState } from "../../domain/filters/filter-chain.js";
import type { PortCountersSnapshot } from "../../domain/switching/port-counters.js";
import type { HeldFrames } from "./delay-line.js";
import type { SocketHandover } from "../ports/udp-transport.js";
import type { HeldQueue } from "./transmit-queue.js";

/**
 * What a live node knows beyond its record, as plain data (structuredClone-able): what it takes with
 * it when it moves to another data-plane worker (ADR 0069), so that it goes on there as it would have
 * where it was. Times are on the Clock port's scale (epoch ms, the same in every thread).
 */
export interface NodeState {
  readonly nodeId: string;
  /** The MAC table, least recently seen first (a switch; a hub learns nothing). */
  readonly learned: readonly LearnedAddress[];
  readonly ports: readonly PortState[];
}

interface LearnedAddress {
  readonly vlan: number;
  /** The 48-bit address as a number. */
  readonly mac: number;
  readonly port: number;
  readonly lastSeenMs: number;
}

export interface PortState {
  readonly portNumber: number;
  /** Its socket, still bound and connected, where the transport can hand it over (the batched path). */
  readonly socket?: SocketHandover;
  readonly counters: PortCountersSnapshot;
  readonly faults: number;
  /** The chain of each direction; `egress` absent when both directions share one chain. */
  readonly chains: { readonly ingress: FilterChainState; readonly egress?: FilterChainState };
  /** The frames each delay line held, the express lines (reorder) too. */
  readonly held: { readonly ingress: HeldFrames; readonly egress: HeldFrames; readonly expressIngress?: HeldFrames; readonly expressEgress?: HeldFrames };
  /** What each direction's CoDel/FQ-CoDel queue held (ADR 0100); absent for a direction that ran none. */
  readonly queues?: { readonly ingress?: HeldQueue; readonly egress?: HeldQueue };
}

/** Why a node cannot move now: a capture runs on one of its ports (its file is open on this thread). */
export interface CaptureRunning {
  readonly _tag: "CaptureRunning";
  readonly portNumber: number;
}
