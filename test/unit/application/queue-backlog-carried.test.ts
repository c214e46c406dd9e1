import { expect } from "chai";
import * as E from "fp-ts/lib/Either.js";
import type { FilterSettings } from "../../../src/domain/filters/filter-settings.js";
import type { ComputeNode } from "../../../src/domain/switching/compute-node.js";
import { BROADCAST, eth } from "../switching/support.js";
import { ManualTime, inMemoryDataPlane } from "../../support/in-memory-data-plane.js";
import { switchWithFilteredPort } from "../../support/switch-with-filtered-port.js";

/**
 * A port direction's CoDel/FQ-CoDel queue (ADR 0100) goes on across what changes under it: its node
 * moving to another data-plane thread (ADR 0069: the state crosses structuredClone, as between workers)
 * and a live switch of discipline to or from tail drop. On manual time, so the times are exact: port 1
 * sends at 800 kbit/s, a frame of 1,000 B takes 10 ms.
 */

const PROJECT = "11111111-2222-4333-8444-555555555555";
const SWITCH = "aaaaaaaa-0000-4000-8000-00000000e001";
const LPORT = 7000;
const H1 = 0x020000000001;
const T0 = 1_000_000;

const switchWith = (port1: FilterSettings): ComputeNode => switchWithFilteredPort({ projectId: PROJECT, nodeId: SWITCH }, LPORT, port1);

/** A broadcast of 1,000 B from H1 (it floods to port 1), numbered `n` in its last byte. */
const numbered = (n: number): Uint8Array => {
  const f = eth(BROADCAST, H1, [], 1000 - 14);
  f[f.length - 1] = n;
  return f;
};

async function rig(time = new ManualTime(T0)) {
  const r = inMemoryDataPlane({ time });
  const sync = async (node: ComputeNode) => expect(E.isRight(await r.dp.sync(node))).to.equal(true);
  const send = (...ns: number[]) => ns.forEach((n) => r.transport.at(LPORT).fromPeer(numbered(n)));
  /** What left port 1: each frame's number and when, ms after T0. */
  const out = () => {
    const at = r.transport.at(LPORT + 1);
    return at.sent.map((f, i) => [f[f.length - 1], (at.sentAtMs[i] as number) - T0]);
  };
  return { ...r, sync, send, out };
}

const CODEL: FilterSettings = { bandwidth: [800, 1000], queue_discipline: ["codel"] };
const FQ_CODEL: FilterSettings = { bandwidth: [800, 1000], queue_discipline: ["fq_codel"] };
const TAIL_DROP: FilterSettings = { bandwidth: [800, 1000] };

describe("a CoDel/FQ-CoDel queue's backlog is carried (ADR 0100)", () => {
  for (const [name, filters] of [
    ["codel", CODEL],
    ["fq_codel", FQ_CODEL],
  ] as const) {
    it(`${name}: a node moved to another thread sends what its queue held there, each frame at its turn, and goes on counting`, async () => {
      const time = new ManualTime(T0);
      const from = await rig(time);
      const to = await rig(time);
      const node = switchWith(filters);
      await from.sync(node);
      from.send(1, 2, 3, 4, 5, 6);
      time.advance(25);
      expect(from.out(), "two sent before the move").to.deep.equal([
        [1, 10],
        [2, 20],
      ]);
      const state = await from.dp.handOver(SWITCH);
      if (E.isLeft(state) || state.right === undefined) throw new Error("no hand-over");
      expect(E.isRight(await to.dp.takeOver(node, structuredClone(state.right)))).to.equal(true);
      time.advance(100);
      expect(to.out(), "the frame in flight leaves at its time, the others back to back after it").to.deep.equal([
        [3, 30],
        [4, 40],
        [5, 50],
        [6, 60],
      ]);
      const queue = (await to.dp.counters(SWITCH)).get(1)?.queues?.egress;
      expect([queue?.discipline, queue?.sentFrames, queue?.backlogFrames]).to.deep.equal([name, 6, 0]);
      expect((await to.dp.counters(SWITCH)).get(1)?.drops ?? {}, "nothing lost").to.deep.equal({});
    });
  }

  it("a queued frame beyond the new thread's hold bound is dropped there and counted as delay_limit, not lost unseen", async () => {
    const time = new ManualTime(T0);
    const from = await rig(time);
    const small = inMemoryDataPlane({ time, options: { ...(await import("../../support/in-memory-data-plane.js")).TEST_DATA_PLANE_OPTIONS, heldFramesPerPort: 2 } });
    const node = switchWith(CODEL);
    await from.sync(node);
    from.send(1, 2, 3, 4, 5, 6);
    const state = await from.dp.handOver(SWITCH);
    if (E.isLeft(state) || state.right === undefined) throw new Error("no hand-over");
    expect(E.isRight(await small.dp.takeOver(node, structuredClone(state.right)))).to.equal(true);
    time.advance(100);
    // One in flight (it took its room when it started), two waiting within the bound, three beyond it.
    expect(small.transport.at(LPORT + 1).sent).to.have.length(3);
    expect((await small.dp.counters(SWITCH)).get(1)?.drops).to.deep.equal({ delay_limit: 3 });
  });

  it("a queue taken over where its direction's chain queues nothing (its filters changed meanwhile) has its frames counted as delay_limit drops", async () => {
    const time = new ManualTime(T0);
    const from = await rig(time);
    const to = await rig(time);
    await from.sync(switchWith(CODEL));
    from.send(1, 2, 3, 4);
    const state = await from.dp.handOver(SWITCH);
    if (E.isLeft(state) || state.right === undefined) throw new Error("no hand-over");
    expect(E.isRight(await to.dp.takeOver(switchWith(TAIL_DROP), structuredClone(state.right)))).to.equal(true);
    time.advance(100);
    expect(to.transport.at(LPORT + 1).sent).to.have.length(0);
    // The one in flight and the three waiting.
    expect((await to.dp.counters(SWITCH)).get(1)?.drops).to.deep.equal({ delay_limit: 4 });
  });

  it("tail drop → codel: the frames the Shaper admitted leave first, and the queue's first frame starts when the Shaper is free", async () => {
    const r = await rig();
    await r.sync(switchWith(TAIL_DROP));
    r.send(1, 2, 3, 4, 5);
    await r.sync(switchWith(CODEL));
    r.send(6, 7);
    r.time.advance(200);
    expect(r.out()).to.deep.equal([
      [1, 10],
      [2, 20],
      [3, 30],
      [4, 40],
      [5, 50],
      [6, 60],
      [7, 70],
    ]);
  });

  it("codel → tail drop: what the queue held leaves in order at the rate, and the Shaper's first frame starts after the last of it", async () => {
    const r = await rig();
    await r.sync(switchWith(CODEL));
    r.send(1, 2, 3, 4, 5);
    r.time.advance(5);
    await r.sync(switchWith(TAIL_DROP));
    r.send(6, 7);
    r.time.advance(200);
    expect(r.out()).to.deep.equal([
      [1, 10],
      [2, 20],
      [3, 30],
      [4, 40],
      [5, 50],
      [6, 60],
      [7, 70],
    ]);
    const queue = (await r.dp.counters(SWITCH)).get(1)?.queues?.egress;
    expect([queue?.backlogFrames, queue?.sentFrames], "the queue is left empty; it counted the one frame it sent itself").to.deep.equal([0, 1]);
  });

  it("fq_codel → tail drop → fq_codel: the rate is exact across both switches", async () => {
    const r = await rig();
    await r.sync(switchWith(FQ_CODEL));
    r.send(1, 2, 3);
    await r.sync(switchWith(TAIL_DROP));
    r.send(4, 5);
    await r.sync(switchWith(FQ_CODEL));
    r.send(6);
    r.time.advance(200);
    expect(r.out()).to.deep.equal([
      [1, 10],
      [2, 20],
      [3, 30],
      [4, 40],
      [5, 50],
      [6, 60],
    ]);
  });
});
