import { expect } from "chai";
import * as E from "fp-ts/lib/Either.js";
import type { TraceBook } from "../../../src/application/ports/trace-store.js";
import type { FilterSettings } from "../../../src/domain/filters/filter-settings.js";
import type { ComputeNode } from "../../../src/domain/switching/compute-node.js";
import { type Trace, parseTrace } from "../../../src/domain/traces/trace.js";
import { BROADCAST, eth } from "../switching/support.js";
import { ManualTime, inMemoryDataPlane } from "../../support/in-memory-data-plane.js";
import { switchWithFilteredPort } from "../../support/switch-with-filtered-port.js";

/**
 * A node replaying traces (ADR 0103) that moves to another data-plane thread (ADR 0069) takes its
 * traces' positions along, as plain data through structuredClone (as between workers): its capacity
 * trace's t=0, the opportunity its last frame ended in and the bytes left in it, its frames waiting,
 * and its delay and loss traces' starts. On manual time, so the times are exact.
 */

const PROJECT = "11111111-2222-4333-8444-555555555555";
const SWITCH = "aaaaaaaa-0000-4000-8000-00000000e029";
const LPORT = 7100;
const H1 = 0x020000000001;
const T0 = 1_000_000;

const traceOf = (text: string): Trace => {
  const read = parseTrace(text);
  if (!read.ok) throw new Error(read.problem.problem);
  return read.trace;
};

/** One delivery opportunity every 25 ms; a delay of 10 ms for 100 ms, then 50 ms, looping at 200; no loss then all, looping at 1 s. */
const TRACES = new Map<string, Trace>([
  ["every-25ms", traceOf("25\n")],
  ["delay-steps", traceOf("0 10\n100 50\n200\n")],
  ["loss-later", traceOf("0 0\n500 100\n1000\n")],
]);
const BOOK: TraceBook = { traceNamed: (name) => TRACES.get(name) };

const switchWith = (port1: FilterSettings): ComputeNode => switchWithFilteredPort({ projectId: PROJECT, nodeId: SWITCH }, LPORT, port1);

/** A broadcast of 1,514 B from H1 (one full opportunity past its Ethernet header; it floods to port 1), numbered `n` in its last byte. */
const numbered = (n: number): Uint8Array => {
  const f = eth(BROADCAST, H1, [], 1500);
  f[f.length - 1] = n;
  return f;
};

function rig(time: ManualTime) {
  const r = inMemoryDataPlane({ time, traces: BOOK });
  const send = (...ns: number[]) => ns.forEach((n) => r.transport.at(LPORT).fromPeer(numbered(n)));
  /** What left port 1: each frame's number and when, ms after T0. */
  const out = () => {
    const at = r.transport.at(LPORT + 1);
    return at.sent.map((f, i) => [f[f.length - 1], (at.sentAtMs[i] as number) - T0]);
  };
  const egressTraces = async () => (await r.dp.counters(SWITCH)).get(1)?.traces?.egress;
  return { ...r, send, out, egressTraces };
}

/** Moves the node from `from` to `to`, its state through structuredClone. */
async function move(from: ReturnType<typeof rig>, to: ReturnType<typeof rig>, node: ComputeNode): Promise<void> {
  const state = await from.dp.handOver(SWITCH);
  if (E.isLeft(state) || state.right === undefined) throw new Error("no hand-over");
  expect(E.isRight(await to.dp.takeOver(node, structuredClone(state.right)))).to.equal(true);
}

describe("a replayed trace's position is carried when its node moves to another thread (ADR 0103, issue 29)", () => {
  it("a capacity trace goes on in its loop: its position and waiting frames right after the move, and a frame sent then queues behind those it had", async () => {
    const time = new ManualTime(T0);
    const from = rig(time);
    const to = rig(time);
    const node = switchWith({ capacity_trace: ["every-25ms"] });
    expect(E.isRight(await from.dp.sync(node))).to.equal(true);
    from.send(1, 2, 3, 4);
    time.advance(30);
    expect(from.out(), "one opportunity passed before the move").to.deep.equal([[1, 25]]);
    await move(from, to, node);
    expect(await to.egressTraces(), "where the trace stood, before any frame reached it here").to.deep.equal({ capacity: { name: "every-25ms", positionMs: 5, waitingFrames: 3 } });
    to.send(5);
    time.advance(200);
    // Restarted, frame 5 would have left 25 ms after it came (at 55), ahead of the frames the trace still owed.
    expect(to.out()).to.deep.equal([
      [2, 50],
      [3, 75],
      [4, 100],
      [5, 125],
    ]);
    expect((await to.egressTraces())?.capacity).to.deep.equal({ name: "every-25ms", positionMs: 5, waitingFrames: 0 });
  });

  it("a small frame after the move takes the bytes its opportunity still had, as it would have where it was", async () => {
    const time = new ManualTime(T0);
    const from = rig(time);
    const to = rig(time);
    const node = switchWith({ capacity_trace: ["every-25ms"] });
    expect(E.isRight(await from.dp.sync(node))).to.equal(true);
    // 514 B past the header: the opportunity at 25 ms keeps 986 B for the next frame waiting then.
    from.transport.at(LPORT).fromPeer(eth(BROADCAST, H1, [], 500));
    time.advance(10);
    await move(from, to, node);
    to.transport.at(LPORT).fromPeer(eth(BROADCAST, H1, [], 500));
    time.advance(100);
    expect(to.transport.at(LPORT + 1).sentAtMs.map((t) => t - T0), "both in the opportunity at 25 ms").to.deep.equal([25, 25]);
  });

  it("delay and loss traces go on from their start: the delay of the moment after the move, and the positions read there", async () => {
    const time = new ManualTime(T0);
    const from = rig(time);
    const to = rig(time);
    const node = switchWith({ delay_trace: ["delay-steps"], loss_trace: ["loss-later"] });
    expect(E.isRight(await from.dp.sync(node))).to.equal(true);
    from.send(1);
    time.advance(150);
    expect(from.out()).to.deep.equal([[1, 10]]);
    await move(from, to, node);
    expect(await to.egressTraces()).to.deep.equal({ delay: { name: "delay-steps", positionMs: 150, value: 50 }, loss: { name: "loss-later", positionMs: 150, value: 0 } });
    to.send(2);
    time.advance(100);
    // 150 ms into the trace its delay is 50 ms (restarted, it would be the first step's 10 ms).
    expect(to.out()).to.deep.equal([[2, 200]]);
    time.advance(250);
    // 500 ms in, the loss trace says 100 %: the frame is lost (restarted at 150, it would say 0 until 650).
    to.send(3);
    time.advance(100);
    expect(to.out()).to.have.length(1);
    expect((await to.dp.counters(SWITCH)).get(1)?.drops).to.deep.equal({ packet_loss: 1 });
  });

  it("a trace position taken up where the node's link replays another trace (its filters changed meanwhile) is left out: that trace starts at its next frame", async () => {
    const time = new ManualTime(T0);
    const from = rig(time);
    const to = rig(time);
    TRACES.set("every-40ms", traceOf("40\n"));
    expect(E.isRight(await from.dp.sync(switchWith({ capacity_trace: ["every-25ms"] })))).to.equal(true);
    from.send(1, 2);
    time.advance(10);
    await move(from, to, switchWith({ capacity_trace: ["every-40ms"] }));
    expect(await to.egressTraces(), "nothing started here").to.equal(undefined);
    to.send(3);
    time.advance(100);
    // Frames 1 and 2 were held by the delay line and leave at their times; frame 3 at the new trace's first opportunity.
    expect(to.out()).to.deep.equal([
      [1, 25],
      [2, 50],
      [3, 50],
    ]);
  });
});
