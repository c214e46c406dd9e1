import { expect } from "chai";
import * as E from "fp-ts/lib/Either.js";
import { DelayLine } from "../../../src/application/dataplane/delay-line.js";
import type { SwitchDataPlane } from "../../../src/application/dataplane/switch-data-plane.js";
import type { FilterSettings } from "../../../src/domain/filters/filter-settings.js";
import { HoldBudget } from "../../../src/domain/filters/hold-limit.js";
import { type ComputeNode, attachNio } from "../../../src/domain/switching/compute-node.js";
import { createEthernetSwitch } from "../../../src/domain/switching/ethernet-switch.js";
import type { UdpNio } from "../../../src/domain/switching/nio.js";
import { countersBalance } from "../../../src/domain/switching/port-counters.js";
import { defaultPortsMapping } from "../../../src/domain/switching/port.js";
import { BROADCAST, eth } from "../switching/support.js";
import { ManualTime, TEST_DATA_PLANE_OPTIONS, inMemoryDataPlane, liveCounters } from "../../support/in-memory-data-plane.js";

/**
 * The bounds on what delays hold (ADR 0072): per port and per data-plane thread, in frames and in
 * bytes; a frame beyond them is dropped and counted as `delay_limit`; the room comes back as frames
 * leave and when a NIO goes.
 */

const PROJECT = "11111111-2222-4333-8444-555555555555";
const LPORT = 6000;
const H1 = 0x020000000001;

function udpNio(port: number, filters: FilterSettings = {}): UdpNio {
  return { type: "nio_udp", lport: LPORT + port, rhost: "127.0.0.1", rport: LPORT + 1000 + port, filters, suspend: false };
}

function switchWith(nodeId: string, nios: Record<number, UdpNio>): ComputeNode {
  let node: ComputeNode = createEthernetSwitch({ nodeId, projectId: PROJECT, name: nodeId.slice(0, 4), console: null, consoleType: "none", portsMapping: defaultPortsMapping() });
  for (const [port, nio] of Object.entries(nios)) {
    const attached: E.Either<{ _tag: string }, ComputeNode> = attachNio(node, Number(port), nio);
    if (E.isLeft(attached)) throw new Error(attached.left._tag);
    node = attached.right;
  }
  return node;
}

/** A frame of `length` bytes (a broadcast from H1: it floods to every other port). */
const frameOf = (length: number): Uint8Array => eth(BROADCAST, H1, [], length - 14);

const SWITCH = "aaaaaaaa-0000-4000-8000-00000000d001";
const OTHER = "aaaaaaaa-0000-4000-8000-00000000d002";

function delayRig(bounds: Partial<typeof TEST_DATA_PLANE_OPTIONS>) {
  const rig = inMemoryDataPlane({ options: { ...TEST_DATA_PLANE_OPTIONS, ...bounds } });
  const sync = async (node: ComputeNode): Promise<void> => {
    expect(E.isRight(await rig.dp.sync(node))).to.equal(true);
  };
  const drops = (dp: SwitchDataPlane, nodeId: string, port: number) => liveCounters(dp, nodeId).get(port)!;
  return { ...rig, sync, drops };
}

describe("bounds on what delays hold", () => {
  describe("a delay line with a budget", () => {
    it("refuses a frame beyond its frames bound, and the ones after it keep their own departures", () => {
      const time = new ManualTime(1000);
      const out: [number, number][] = [];
      const budget = new HoldBudget({ frames: 3, bytes: 1e9 });
      const line = new DelayLine(time, time, (f) => void out.push([f[0]!, time.now]), () => undefined, budget);
      const taken = [1, 2, 3, 4, 5].map((n) => line.push(Uint8Array.of(n), 100));
      expect(taken).to.deep.equal([true, true, true, false, false]);
      expect([budget.frames, budget.bytes, line.pending]).to.deep.equal([3, 3, 3]);
      time.advanceTo(1100);
      expect(out).to.deep.equal([[1, 1100], [2, 1100], [3, 1100]]);
      // The room came back as they left.
      expect([budget.frames, budget.bytes]).to.deep.equal([0, 0]);
      expect(line.push(Uint8Array.of(6), 10)).to.equal(true);
    });

    it("refuses a frame beyond its bytes bound, even when frames are left", () => {
      const time = new ManualTime(1000);
      const budget = new HoldBudget({ frames: 100, bytes: 3000 });
      const line = new DelayLine(time, time, () => undefined, () => undefined, budget);
      expect([1400, 1400, 1400, 100].map((n) => line.push(new Uint8Array(n), 50))).to.deep.equal([true, true, false, true]);
      expect([budget.frames, budget.bytes]).to.deep.equal([3, 2900]);
    });

    it("counts against its parent's bound too: two lines under one thread's budget share it", () => {
      const time = new ManualTime(1000);
      const thread = new HoldBudget({ frames: 4, bytes: 1e9 });
      const a = new DelayLine(time, time, () => undefined, () => undefined, new HoldBudget({ frames: 3, bytes: 1e9 }, thread));
      const b = new DelayLine(time, time, () => undefined, () => undefined, new HoldBudget({ frames: 3, bytes: 1e9 }, thread));
      expect([a.push(Uint8Array.of(1), 10), a.push(Uint8Array.of(2), 10), a.push(Uint8Array.of(3), 10), a.push(Uint8Array.of(4), 10)]).to.deep.equal([true, true, true, false]);
      expect([b.push(Uint8Array.of(5), 10), b.push(Uint8Array.of(6), 10)]).to.deep.equal([true, false]);
      expect(thread.frames).to.equal(4);
      a.close();
      expect(thread.frames, "a closed line gives its room back").to.equal(1);
      expect(b.push(Uint8Array.of(7), 10)).to.equal(true);
    });

    it("gives the room back when it hands its frames over, and a line taking them up past its bound answers what it left out", () => {
      const time = new ManualTime(1000);
      const here = new HoldBudget({ frames: 10, bytes: 1e9 });
      const line = new DelayLine(time, time, () => undefined, () => undefined, here);
      for (let i = 0; i < 5; i++) line.push(new Uint8Array(100 + i), 500);
      const held = line.handOver();
      expect([here.frames, here.bytes]).to.deep.equal([0, 0]);
      const there = new HoldBudget({ frames: 3, bytes: 1e9 });
      const other = new DelayLine(time, time, () => undefined, () => undefined, there);
      expect(other.takeUp(held)).to.deep.equal([103, 104]);
      expect([other.pending, there.frames, there.bytes]).to.deep.equal([3, 3, 303]);
    });

    it("holds a frame that is a view into a receive batch as a copy in a chunk of its own (16 KiB), so the batch is not kept alive", () => {
      const time = new ManualTime(1000);
      const batch = new Uint8Array(64 * 1400).map((_, i) => i & 0xff);
      const held: Uint8Array[] = [];
      const line = new DelayLine(time, time, (f) => void held.push(f));
      line.push(batch.subarray(1400, 2800), 10);
      line.push(batch.subarray(2800, 4200), 10);
      const jumbo = new Uint8Array(64 * 9000);
      line.push(jumbo.subarray(9000, 18000), 10);
      const whole = new Uint8Array(1400);
      line.push(whole, 10);
      time.advanceTo(1010);
      expect(held[0]!.buffer).to.not.equal(batch.buffer);
      expect(held[0]!.buffer.byteLength).to.equal(16 * 1024);
      expect(held[1]!.buffer, "frames copied one after the other share a chunk").to.equal(held[0]!.buffer);
      expect([...held[0]!]).to.deep.equal([...batch.subarray(1400, 2800)]);
      expect([...held[1]!]).to.deep.equal([...batch.subarray(2800, 4200)]);
      expect(held[2]!.buffer.byteLength, "a jumbo frame gets a buffer of its own").to.equal(9000);
      expect(held[3], "a frame that owns its buffer is not copied").to.equal(whole);
    });
  });

  describe("the data plane", () => {
    it("drops an offered frame beyond the port's frames bound as delay_limit, and sends the ones it held after their delay", async () => {
      const { dp, transport, time, sync, drops } = delayRig({ heldFramesPerPort: 10 });
      await sync(switchWith(SWITCH, { 0: udpNio(0), 1: udpNio(1, { delay: [32767] }) }));
      for (let i = 0; i < 25; i++) transport.at(LPORT).fromPeer(frameOf(1400));
      expect(dp.held()).to.deep.equal({ frames: 10, bytes: 14_000 });
      const port1 = drops(dp, SWITCH, 1);
      expect(port1.egressDrops).to.deep.equal({ delay_limit: 15 });
      expect((await dp.counters(SWITCH)).get(1)!.drops).to.deep.equal({ delay_limit: 15 });
      time.advanceTo(time.now + 32767);
      expect(transport.at(LPORT + 1).sent).to.have.length(10);
      expect(countersBalance(drops(dp, SWITCH, 1)).egress).to.equal(true);
      expect(dp.held()).to.deep.equal({ frames: 0, bytes: 0 });
    });

    it("drops a received frame beyond the port's bytes bound as delay_limit, counted as received (the ingress balance holds)", async () => {
      const { dp, transport, time, sync, drops } = delayRig({ heldBytesPerPort: 10 * 1400 });
      await sync(switchWith(SWITCH, { 0: udpNio(0, { delay: [1000] }), 1: udpNio(1) }));
      for (let i = 0; i < 12; i++) transport.at(LPORT).fromPeer(frameOf(1400));
      expect(dp.held().bytes).to.equal(14_000);
      time.advanceTo(time.now + 1000);
      const port0 = drops(dp, SWITCH, 0);
      expect(port0.ingressDrops).to.deep.equal({ delay_limit: 2 });
      expect([port0.framesIn, port0.framesForwarded]).to.deep.equal([12, 10]);
      expect(countersBalance(port0).ingress).to.equal(true);
      expect(transport.at(LPORT + 1).sent).to.have.length(10);
    });

    it("bounds every port of the thread together: a second port's delay gets only what the first left", async () => {
      const { dp, transport, sync, drops } = delayRig({ heldFramesPerPort: 100, heldFramesPerWorker: 30 });
      await sync(switchWith(SWITCH, { 0: udpNio(0), 1: udpNio(1, { delay: [5000] }) }));
      await sync(switchWith(OTHER, { 0: udpNio(10), 1: udpNio(11, { delay: [5000] }) }));
      for (let i = 0; i < 20; i++) transport.at(LPORT).fromPeer(frameOf(100));
      for (let i = 0; i < 20; i++) transport.at(LPORT + 10).fromPeer(frameOf(100));
      expect(dp.held().frames).to.equal(30);
      expect(drops(dp, SWITCH, 1).egressDrops).to.deep.equal({});
      expect(drops(dp, OTHER, 1).egressDrops).to.deep.equal({ delay_limit: 10 });
    });

    it("gives back the room of a NIO that goes, at once, and of a node removed", async () => {
      const { dp, transport, sync } = delayRig({ heldFramesPerWorker: 40 });
      const node = switchWith(SWITCH, { 0: udpNio(0), 1: udpNio(1, { delay: [32767] }), 2: udpNio(2, { delay: [32767] }) });
      await sync(node);
      for (let i = 0; i < 15; i++) transport.at(LPORT).fromPeer(frameOf(1400));
      expect(dp.held()).to.deep.equal({ frames: 30, bytes: 42_000 });
      const nios = new Map(node.nios);
      nios.delete(1);
      await sync({ ...node, nios });
      expect(dp.held()).to.deep.equal({ frames: 15, bytes: 21_000 });
      await dp.removeNode(SWITCH);
      expect(dp.held()).to.deep.equal({ frames: 0, bytes: 0 });
    });

    it("drops and counts, on a thread with tighter bounds, what a moving node's delays held beyond them", async () => {
      const from = delayRig({});
      const to = delayRig({ heldFramesPerPort: 4 });
      const node = switchWith(SWITCH, { 0: udpNio(0), 1: udpNio(1, { delay: [1000] }) });
      await from.sync(node);
      for (let i = 0; i < 10; i++) from.transport.at(LPORT).fromPeer(frameOf(200));
      const state = await from.dp.handOver(SWITCH);
      if (E.isLeft(state) || state.right === undefined) throw new Error("no hand-over");
      expect(from.dp.held().frames).to.equal(0);
      expect(E.isRight(await to.dp.takeOver(node, state.right))).to.equal(true);
      expect(to.dp.held().frames).to.equal(4);
      expect(liveCounters(to.dp, SWITCH).get(1)!.egressDrops).to.deep.equal({ delay_limit: 6 });
    });

    it("has bounds by default: 65,536 frames and 64 MiB per port, 262,144 frames and 256 MiB per thread", async () => {
      const { DEFAULT_DATA_PLANE_OPTIONS } = await import("../../../src/application/dataplane/switch-data-plane.js");
      expect(DEFAULT_DATA_PLANE_OPTIONS).to.deep.include({ heldFramesPerPort: 65_536, heldBytesPerPort: 64 * 1024 * 1024, heldFramesPerWorker: 262_144, heldBytesPerWorker: 256 * 1024 * 1024 });
    });
  });
});
