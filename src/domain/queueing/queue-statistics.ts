/** What one direction's queue did since its port opened (ADR 0100): the port's statistics and the metrics. */
export interface QueueStatistics {
  readonly discipline: "codel" | "fq_codel";
  /** Frames and bytes waiting now. */
  readonly backlogFrames: number;
  readonly backlogBytes: number;
  /** Frames CoDel dropped (also counted in the port's drops as `codel`). */
  readonly codelDrops: number;
  /** Frames dropped at the discipline's frame or memory limit (counted in the port's drops as `bandwidth`). */
  readonly overlimitDrops: number;
  /** ECN-capable frames marked Congestion Experienced instead of dropped. */
  readonly ecnMarks: number;
  /** Frames sent from the queue, and the sum and largest of their sojourn times, ms. */
  readonly sentFrames: number;
  readonly sojournSumMs: number;
  readonly sojournMaxMs: number;
  /** The sojourn of the last frame sent, ms. */
  readonly lastSojournMs: number;
}

/** A port's queues by direction, for the directions that ran one. */
export interface PortQueueStatistics {
  readonly ingress?: QueueStatistics;
  readonly egress?: QueueStatistics;
}
