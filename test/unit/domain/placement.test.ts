import { expect } from "chai";
import { type Move, type NodeLoad, type PlacementPolicy, planMove, workerLoads } from "../../../src/domain/placement/placement.js";

const policy: PlacementPolicy = { minGain: 0.1, minTotalLoad: 100 };
const node = (nodeId: string, worker: number, load: number): NodeLoad => ({ nodeId, worker, load });

/** Applies planMove until it proposes nothing (bounded): the placement it settles on and the moves taken. */
function settle(workers: number, loads: NodeLoad[], limit = 20): { loads: NodeLoad[]; moves: Move[] } {
  const moves: Move[] = [];
  let current = loads;
  for (let i = 0; i < limit; i++) {
    const move = planMove({ workers, loads: current }, policy);
    if (move === undefined) break;
    moves.push(move);
    current = current.map((n) => (n.nodeId === move.nodeId ? { ...n, worker: move.to } : n));
  }
  return { loads: current, moves };
}

describe("placing busy nodes over the data-plane workers by measured load", () => {
  it("spreads a chain of four equally busy switches hashed onto one worker two and two, then stops", () => {
    const chain = ["s1", "s2", "s3", "s4"].map((id) => node(id, 0, 1000));
    const { loads, moves } = settle(2, chain);
    expect(moves).to.have.length(2);
    expect(workerLoads(2, loads)).to.deep.equal([2000, 2000]);
  });

  it("moves from the busiest worker to the least busy one the node that balances them best", () => {
    const move = planMove({ workers: 2, loads: [node("big", 0, 900), node("mid", 0, 400), node("small", 0, 100), node("other", 1, 200)] }, policy);
    // 1400 vs 200: moving "mid" gives 1000/600, "big" 500/1100, "small" 1300/300.
    expect(move).to.deep.equal({ nodeId: "mid", from: 0, to: 1 });
  });

  it("moves nothing when the best move would not lower the busier worker by the policy's margin (hysteresis)", () => {
    // 1000 vs 900: moving the 100 gives 900/1000, no gain at all.
    expect(planMove({ workers: 2, loads: [node("a", 0, 600), node("b", 0, 400), node("c", 1, 900)] }, policy)).to.equal(undefined);
    // A 5% gain is below a 10% margin.
    expect(planMove({ workers: 2, loads: [node("a", 0, 950), node("b", 0, 50), node("c", 1, 900)] }, policy)).to.equal(undefined);
  });

  it("never proposes a move back on the loads it settled on, so nodes do not flap", () => {
    const { loads } = settle(3, [node("a", 0, 700), node("b", 0, 500), node("c", 0, 300), node("d", 1, 200), node("e", 2, 100)]);
    expect(planMove({ workers: 3, loads }, policy)).to.equal(undefined);
  });

  it("still spreads when two workers are equally the busiest, lowering one and then the other", () => {
    const { loads, moves } = settle(4, [node("a", 0, 500), node("b", 0, 500), node("c", 1, 500), node("d", 1, 500)]);
    expect(moves).to.have.length(2);
    expect(workerLoads(4, loads)).to.deep.equal([500, 500, 500, 500]);
  });

  it("leaves pinned nodes (moved too recently) where they are", () => {
    const loads = [node("a", 0, 1000), node("b", 0, 1000)];
    expect(planMove({ workers: 2, loads, pinned: new Set(["a"]) }, policy)).to.deep.equal({ nodeId: "b", from: 0, to: 1 });
    expect(planMove({ workers: 2, loads, pinned: new Set(["a", "b"]) }, policy)).to.equal(undefined);
  });

  it("moves nothing while the whole data plane is nearly idle", () => {
    expect(planMove({ workers: 2, loads: [node("a", 0, 40), node("b", 0, 40)] }, policy)).to.equal(undefined);
  });

  it("moves nothing with a single worker, or a single busy node", () => {
    expect(planMove({ workers: 1, loads: [node("a", 0, 1000), node("b", 0, 1000)] }, policy)).to.equal(undefined);
    expect(planMove({ workers: 2, loads: [node("a", 0, 5000)] }, policy)).to.equal(undefined);
  });

  it("ignores readings that are not loads: negative, not finite, or of a worker that does not exist", () => {
    const loads = [node("a", 0, -5), node("b", 0, Number.NaN), node("c", 7, 1000), node("d", 0, Number.POSITIVE_INFINITY), node("e", 1.5, 1000)];
    expect(planMove({ workers: 2, loads }, policy)).to.equal(undefined);
    expect(workerLoads(2, [node("c", 7, 1000), node("a", 1, 10)])).to.deep.equal([0, 10]);
  });

  it("gives the same move for the same loads whatever their order", () => {
    const loads = [node("x", 0, 500), node("y", 0, 500), node("z", 0, 500)];
    expect(planMove({ workers: 2, loads }, policy)).to.deep.equal(planMove({ workers: 2, loads: [...loads].reverse() }, policy));
  });
});
