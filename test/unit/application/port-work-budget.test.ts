import { expect } from "chai";
import * as E from "fp-ts/lib/Either.js";
import { attachNio, type ComputeNode } from "../../../src/domain/switching/compute-node.js";
import { createEthernetSwitch } from "../../../src/domain/switching/ethernet-switch.js";
import { defaultPortsMapping } from "../../../src/domain/switching/port.js";
import type { FilterSettings } from "../../../src/domain/filters/filter-settings.js";
import { UNTIMED_FRAME_MS } from "../../../src/application/dataplane/fair-intake.js";
import { ManualTime, TEST_DATA_PLANE_OPTIONS, inMemoryDataPlane } from "../../support/in-memory-data-plane.js";

/** A clock every read of which costs `stepMs`: the data plane's work on a frame takes time, as it does. */
class WorkingTime extends ManualTime {
  constructor(private readonly stepMs: number) {
    super();
  }
  override nowMs(): number {
    this.now += this.stepMs;
    return this.now;
  }
}

const PROJECT = "77777777-3333-4444-8555-7777777777aa";
const broadcast = (n: number): Uint8Array => Uint8Array.from([0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0, 0x50, 0x79, 0x66, 0x68, n, 0x08, 0x00, n, ...new Array(45).fill(0)]);

/** A bpf program that drops nothing here (the frames are IPv4 from nobody's port 9): its node's frames are timed. */
const COSTLY = { bpf: ["tcp port 9"] };

function wired(nodeId: string, lports: [number, number], filters: FilterSettings = COSTLY): ComputeNode {
  let node: ComputeNode = createEthernetSwitch({ nodeId, projectId: PROJECT, name: nodeId.slice(-4), console: null, consoleType: "none", portsMapping: defaultPortsMapping() });
  for (const [i, lport] of lports.entries()) {
    const attached: E.Either<{ _tag: string }, ComputeNode> = attachNio(node, i, { type: "nio_udp", lport, rhost: "127.0.0.1", rport: lport + 10_000, filters: i === 0 ? filters : {}, suspend: false });
    if (E.isLeft(attached)) throw new Error(attached.left._tag);
    node = attached.right;
  }
  return node;
}

describe("a port's work budget per turn in the data plane (ADR 0075)", () => {
  const FLOODED = "aaaaaaaa-0000-4000-8000-0000000000a1";
  const BYSTANDER = "aaaaaaaa-0000-4000-8000-0000000000b2";

  async function twoSwitches(backlogFrames: number) {
    const time = new WorkingTime(0.25);
    const parts = inMemoryDataPlane({ time, options: { ...TEST_DATA_PLANE_OPTIONS, intake: { turnMs: 1, backlogFrames, backlogBytes: 1 << 20 } } });
    expect(E.isRight(await parts.dp.sync(wired(FLOODED, [21000, 21001])))).to.equal(true);
    expect(E.isRight(await parts.dp.sync(wired(BYSTANDER, [22000, 22001])))).to.equal(true);
    return parts;
  }

  it("forwards a bystander's frame before the frames a busy port keeps for its next turn, and those after, in order", async () => {
    const { transport, time } = await twoSwitches(64);
    for (let n = 1; n <= 20; n++) transport.at(21000).fromPeer(broadcast(n));
    transport.at(22000).fromPeer(broadcast(99));
    const before = transport.at(21001).sent.length;
    expect(before).to.be.greaterThan(0).and.lessThan(20);
    expect(transport.at(22001).sent.map((f) => f[14])).to.deep.equal([99]);
    time.runDeferred();
    expect(transport.at(21001).sent.map((f) => f[14])).to.deep.equal(Array.from({ length: 20 }, (_, i) => i + 1));
  });

  it("drops what a busy port's backlog cannot hold, counted as overload on that port only", async () => {
    const { dp, transport, time } = await twoSwitches(4);
    for (let n = 1; n <= 30; n++) transport.at(21000).fromPeer(broadcast(n));
    transport.at(22000).fromPeer(broadcast(99));
    time.runDeferred();
    const flooded = (await dp.counters(FLOODED)).get(0);
    const forwarded = transport.at(21001).sent.length;
    expect(flooded?.framesIn).to.equal(30);
    expect(flooded?.drops["overload"]).to.equal(30 - forwarded);
    expect(forwarded).to.be.greaterThan(4).and.lessThan(30);
    expect((await dp.counters(BYSTANDER)).get(0)?.drops).to.deep.equal({});
    expect(transport.at(22001).sent.length).to.equal(1);
  });

  it("hands a moving node over with the frames its ports kept already through its switch", async () => {
    const { dp, transport } = await twoSwitches(64);
    for (let n = 1; n <= 20; n++) transport.at(21000).fromPeer(broadcast(n));
    const handed = await dp.handOver(FLOODED);
    expect(E.isRight(handed)).to.equal(true);
    expect(transport.at(21001).sent.map((f) => f[14])).to.deep.equal(Array.from({ length: 20 }, (_, i) => i + 1));
  });

  it("charges each frame of a node without programs a fixed cost instead of timing it, so a cheap flood too yields after a budget's worth", async () => {
    const time = new WorkingTime(0.25);
    const { dp, transport } = inMemoryDataPlane({ time, options: { ...TEST_DATA_PLANE_OPTIONS, intake: { turnMs: 1, backlogFrames: 4096, backlogBytes: 1 << 22 } } });
    expect(E.isRight(await dp.sync(wired(FLOODED, [21000, 21001], {})))).to.equal(true);
    const perBudget = Math.ceil(1 / UNTIMED_FRAME_MS);
    for (let n = 0; n < perBudget + 50; n++) transport.at(21000).fromPeer(broadcast(n % 200));
    // Timed on this clock (0.25 ms a read), 4 frames would have spent the budget: these were counted.
    expect(transport.at(21001).sent.length).to.equal(perBudget);
    time.runDeferred();
    expect(transport.at(21001).sent.length).to.equal(perBudget + 50);
  });

  it("forgets what a removed node's ports kept: nothing is sent for it after", async () => {
    const { dp, transport, time } = await twoSwitches(64);
    for (let n = 1; n <= 20; n++) transport.at(21000).fromPeer(broadcast(n));
    const sent = transport.at(21001).sent.length;
    await dp.removeNode(FLOODED);
    time.runDeferred();
    expect(transport.at(21001).sent.length).to.equal(sent);
  });
});
