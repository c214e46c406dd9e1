/** A node that forwards nothing because the data-plane worker it runs on is down, or has not given it back yet. */
export interface DarkNode {
  readonly nodeId: string;
  readonly projectId: string;
  readonly name: string;
  /**
   * Its frame rate as its worker last reported it before the death (frames/s), undefined when none was
   * reported: the node that floods its worker stands out here (ADR 0073).
   */
  readonly framesPerSecond: number | undefined;
}

/**
 * A data-plane worker whose nodes are dark (ADR 0073): it died and is being started again
 * (`restarting`), died too often and waits for its next attempt or an operator (`given_up`), or runs
 * again but could not take some of its nodes back (`running`: those nodes are listed).
 */
export interface DarkWorker {
  readonly worker: number;
  readonly state: "restarting" | "given_up" | "running";
  /** Why it last died: the worker's error (out of memory, an uncaught exception) or its exit code. */
  readonly reason: string;
  readonly exitCode: number;
  /** When the first death of this episode happened: its nodes have been dark since. */
  readonly since: Date;
  /** Deaths within the restart window (a worker dying MAX_DEATHS times in it is given up). */
  readonly deaths: number;
  /** When a given-up worker is tried again by itself (undefined: not given up). */
  readonly nextAttempt: Date | undefined;
  readonly nodes: readonly DarkNode[];
}

/** What each data-plane worker went through since start, for the metrics. */
export interface WorkerLifeCounts {
  readonly worker: number;
  readonly deaths: number;
  readonly restarts: number;
}

/**
 * The data plane's worker threads as the operator sees them (ADR 0073): which nodes are dark and why,
 * deaths and restarts counted, and the way back for a worker given up on, without restarting netemu.
 * Read by the readiness route and the metrics.
 */
export interface DataPlaneHealth {
  darkWorkers(): readonly DarkWorker[];
  lifeCounts(): readonly WorkerLifeCounts[];
  /**
   * Starts the given-up workers now (each with a fresh restart window) and syncs again the nodes a
   * running worker could not take back; resolves once they are given back (or failed again), with
   * the workers started.
   */
  bringBack(): Promise<readonly number[]>;
}

/** A data plane on the main thread (or a host's own): no worker that could die apart from netemu. */
export const NO_DATA_PLANE_WORKERS: DataPlaneHealth = { darkWorkers: () => [], lifeCounts: () => [], bringBack: async () => [] };
