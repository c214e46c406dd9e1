/**
 * Where the busy nodes of the data plane should run (ADR 0069): given each node's measured load and the
 * worker it runs on, at most one node to move, and where. Pure: the caller measures, decides when to ask,
 * and carries the move out.
 */

/** One node's load over the last measurement interval (frames per second, or any unit alike for all). */
export interface NodeLoad {
  readonly nodeId: string;
  readonly worker: number;
  readonly load: number;
}

export interface PlacementPolicy {
  /**
   * A move must leave the busier of its two workers at least this fraction (0..1) below the busiest
   * load before it. It is the hysteresis: a move and its reverse can never both be taken on the same
   * loads, and small noise in the readings moves nothing.
   */
  readonly minGain: number;
  /** Below this total load (same unit), nothing is moved: spreading idle nodes gains nothing. */
  readonly minTotalLoad: number;
}

export const DEFAULT_PLACEMENT_POLICY: PlacementPolicy = { minGain: 0.1, minTotalLoad: 1000 };

export interface Move {
  readonly nodeId: string;
  readonly from: number;
  readonly to: number;
}

interface PlacementInput {
  readonly workers: number;
  readonly loads: readonly NodeLoad[];
  /** Nodes that must stay where they are (moved too recently, or being moved): a cooldown the caller keeps. */
  readonly pinned?: ReadonlySet<string>;
}

/** Each worker's total load, index by index (a worker with no node is 0). */
export function workerLoads(workers: number, loads: readonly NodeLoad[]): number[] {
  const totals = Array.from({ length: workers }, () => 0);
  for (const { worker, load } of loads) if (worker >= 0 && worker < workers) totals[worker] = (totals[worker] as number) + load;
  return totals;
}

/**
 * The one move from the busiest worker to the least busy one that balances them best, if it lowers the
 * busier of the two by at least `minGain`; else none. Asked again after each move, it spreads a chain of
 * equal switches over the workers and then stops.
 */
export function planMove(input: PlacementInput, policy: PlacementPolicy = DEFAULT_PLACEMENT_POLICY): Move | undefined {
  const { workers, loads } = input;
  if (workers < 2) return undefined;
  const valid = loads.filter((n) => Number.isFinite(n.load) && n.load >= 0 && Number.isInteger(n.worker) && n.worker >= 0 && n.worker < workers);
  const totals = workerLoads(workers, valid);
  const total = totals.reduce((a, b) => a + b, 0);
  if (total < policy.minTotalLoad) return undefined;

  // Lowest index wins ties, so the same loads always give the same move.
  let busiest = 0;
  let idlest = 0;
  totals.forEach((t, i) => {
    if (t > (totals[busiest] as number)) busiest = i;
    if (t < (totals[idlest] as number)) idlest = i;
  });
  const high = totals[busiest] as number;
  const low = totals[idlest] as number;
  if (busiest === idlest || high <= 0) return undefined;

  let best: { nodeId: string; after: number } | undefined;
  for (const node of valid) {
    if (node.worker !== busiest || node.load <= 0 || input.pinned?.has(node.nodeId) === true) continue;
    // The busier of the two workers after the move; the other workers are unchanged and below `high`.
    const after = Math.max(high - node.load, low + node.load);
    if (best === undefined || after < best.after || (after === best.after && node.nodeId < best.nodeId)) best = { nodeId: node.nodeId, after };
  }
  if (best === undefined) return undefined;
  // Judged on the pair only: with two workers equally busiest, the first move lowers one of them, not
  // the maximum, and is still progress (the next one lowers the other).
  if (best.after > high * (1 - policy.minGain)) return undefined;
  return { nodeId: best.nodeId, from: busiest, to: idlest };
}
