import type * as E from "fp-ts/lib/Either.js";
import type { ComputeNode } from "../../domain/switching/compute-node.js";
import type { SyncError } from "../errors.js";
import type { QueueDelayReading } from "../../domain/filters/queue-delay.js";

export type { QueueDelayReading } from "../../domain/filters/queue-delay.js";
import type { PortQueueStatistics } from "../../domain/queueing/queue-statistics.js";
import type { TraceReading } from "../../domain/traces/trace.js";

export interface PortCounters {
  readonly framesIn: number;
  readonly bytesIn: number;
  readonly framesOut: number;
  readonly bytesOut: number;
  readonly drops: Readonly<Record<string, number>>;
  /**
   * How long frames waited in the port's queue before their transmission started, each way (ADR 0097):
   * `ingress` the frames received from the NIO, `egress` the frames sent to it.
   */
  readonly queueDelay: { readonly ingress: QueueDelayReading; readonly egress: QueueDelayReading };
  /** The bandwidth stage's queues (CoDel, FQ-CoDel: ADR 0100), when the port ran one. */
  readonly queues?: PortQueueStatistics;
  /** Where each direction's replayed traces stand (ADR 0103), when one has started. */
  readonly traces?: { readonly ingress?: TraceReading; readonly egress?: TraceReading };
}

export interface MacTableEntry {
  readonly mac: string;
  readonly vlan: number;
  readonly port: number;
  readonly age: number;
}

/**
 * The frame-moving side of the switches and hubs: sockets, forwarding and filter chains. The use
 * cases change a node's record and hand it here; the live node is made to match it (ADR 0037).
 */
export interface DataPlane {
  /**
   * Makes the live node match the record: a socket for each NIO it has (opened, kept, or closed when
   * the NIO is gone), each NIO's filters and suspend flag, a switch's port modes, the status (only a
   * started node forwards; stopping a switch empties its MAC table) and the name used in messages.
   * A socket that cannot be opened, or a filter that cannot be built, is reported and nothing changes.
   */
  sync(node: ComputeNode): Promise<E.Either<SyncError, void>>;
  /** Closes every socket of the node and forgets it. */
  removeNode(nodeId: string): Promise<void>;
  /** The live counters of each port with a NIO (asked, so that a data plane may run apart: ADR 0037). */
  counters(nodeId: string): Promise<ReadonlyMap<number, PortCounters>>;
  macTable(nodeId: string): Promise<readonly MacTableEntry[]>;
  /** Closes everything (shutdown). */
  close(): Promise<void>;
}

/** The event-loop delay of one data-plane worker thread, over the time since its previous reading. */
export interface LoopDelay {
  /** The worker's index (0..N-1). */
  readonly worker: number;
  /** Delays, in seconds; NaN when nothing was measured since the previous reading. */
  readonly minSeconds: number;
  readonly meanSeconds: number;
  readonly p50Seconds: number;
  readonly p90Seconds: number;
  readonly p99Seconds: number;
  readonly maxSeconds: number;
}

/**
 * The threads that run the data plane apart from the API's (ADR 0041): where frames wait when a
 * loop is late. A data plane on the main thread has none: the process's own delay is that thread's.
 */
export interface DataPlaneThreads {
  /** One reading per worker that answered; each reading starts that worker's next measure. */
  eventLoopDelays(): Promise<readonly LoopDelay[]>;
}
