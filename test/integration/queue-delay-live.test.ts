import { expect } from "chai";
import * as E from "fp-ts/lib/Either.js";
import { spawn } from "node:child_process";
import { fileURLToPath } from "node:url";
import type { PortCounters } from "../../src/application/ports/data-plane.js";
import { type ComputeNode, attachNio } from "../../src/domain/switching/compute-node.js";
import { createEthernetSwitch } from "../../src/domain/switching/ethernet-switch.js";
import { defaultPortsMapping } from "../../src/domain/switching/port.js";
import { testSwitchDataPlane } from "../support/live-data-planes.js";
import { twoDataPlaneWorkers } from "../support/two-data-plane-workers.js";
import { UdpPeer, ethernetFrame, freeUdpPort } from "../support/udp-peer.js";

/**
 * Issue 28 (ADR 0097): the data plane records how long frames wait in a port's bandwidth queue before
 * their transmission starts, each way, on real sockets (npm test runs this file on both datagram paths),
 * on the main thread and through a worker. A 1 Mbit/s limit with a 200 ms queue, flooded at 4 Mbit/s
 * by a sender in another process: the queue fills within a tenth of a second and every frame after
 * waits close to the bound; nothing waits where no bandwidth is set.
 */

const PROJECT = "11111111-2222-4333-8444-555555555555";
const NODE = "aaaaaaaa-0000-4000-8000-00000000d097";
const QUEUE_MS = 200;
const FRAME_BYTES = 1000;
/** 500 frames/s of 1,000 B = 4 Mbit/s for 3 s, four times what the link sends. */
const RATE = 500;
const FRAMES = 1500;
const BLASTER = fileURLToPath(new URL("../support/udp-blaster.js", import.meta.url));

type Door = { sync(node: ComputeNode): Promise<E.Either<unknown, void>>; counters(nodeId: string): Promise<ReadonlyMap<number, PortCounters>>; close(): Promise<void> };

function attach(node: ComputeNode, port: number, lport: number, rport: number, filters: Record<string, unknown> = {}): ComputeNode {
  const attached: E.Either<{ _tag: string }, ComputeNode> = attachNio(node, port, { type: "nio_udp", lport, rhost: "127.0.0.1", rport, filters, suspend: false });
  if (E.isLeft(attached)) throw new Error(attached.left._tag);
  return attached.right;
}

/** A switch: port 0 towards `senderPort`, port 1 towards the sink with `filters`. */
async function shapedSwitch(dp: Door, sink: UdpPeer, senderPort: number, filters: Record<string, unknown>): Promise<number> {
  const [l0, l1] = [await freeUdpPort(), await freeUdpPort()] as [number, number];
  let node: ComputeNode = createEthernetSwitch({ nodeId: NODE, projectId: PROJECT, name: "SW1", console: null, consoleType: "none", portsMapping: defaultPortsMapping() });
  node = attach(node, 0, l0, senderPort);
  node = attach(node, 1, l1, sink.port, filters);
  expect(E.isRight(await dp.sync(node))).to.equal(true);
  return l0;
}

/** Port 1's egress queue delay, read every 250 ms while the blaster floods port 0. */
async function floodAndRead(dp: Door, l0: number, senderPort: number): Promise<PortCounters["queueDelay"]["egress"][]> {
  const readings: PortCounters["queueDelay"]["egress"][] = [];
  const sampler = setInterval(() => void dp.counters(NODE).then((c) => c.get(1) !== undefined && readings.push(c.get(1)!.queueDelay.egress)), 250);
  const child = spawn(process.execPath, [BLASTER, String(senderPort), String(l0), String(FRAMES), String(FRAME_BYTES), String(RATE)], { stdio: ["ignore", "ignore", "inherit"] });
  await new Promise<void>((resolve) => child.on("exit", () => resolve()));
  clearInterval(sampler);
  return readings;
}

function expectWaitsNearTheBound(readings: readonly PortCounters["queueDelay"]["egress"][]): void {
  expect(readings.length, "readings during the 3 s flood").to.be.at.least(6);
  const last = readings[readings.length - 1]!;
  // A 1 Mbit/s link sends 125 frames of 1,000 B a second: over 3 s about 375 frames go through the queue.
  expect(last.frames, "frames through the queue").to.be.within(150, 600);
  const means = readings.slice(1).map((r, i) => (r.frames > readings[i]!.frames ? (r.sumMs - readings[i]!.sumMs) / (r.frames - readings[i]!.frames) : 0));
  const late = means.slice(Math.floor(means.length / 2)).filter((m) => m > 0);
  expect(late.length, "late intervals with frames").to.be.at.least(2);
  // The queue is full from ~0.1 s on: each frame waits the bound less at most a frame's 8 ms, and a
  // busy machine's late timers leave it a little emptier (the margin is half the bound).
  for (const mean of late) expect(mean, `mean wait of a late interval, of ${late.map((m) => m.toFixed(0)).join(", ")} ms`).to.be.within(QUEUE_MS / 2, QUEUE_MS);
  expect(last.sumMs / last.frames, "the mean over the whole flood").to.be.within(QUEUE_MS / 2, QUEUE_MS);
  const maxes = readings.map((r) => r.maxMs);
  expect(Math.max(...maxes), "no frame waits longer than the bound").to.be.within(QUEUE_MS * 0.8, QUEUE_MS);
}

async function expectNoneWithoutBandwidth(dp: Door, opened: UdpPeer[]): Promise<void> {
  const sender = await UdpPeer.open();
  const sink = await UdpPeer.open();
  opened.push(sender, sink);
  const l0 = await shapedSwitch(dp, sink, sender.port, { delay: [20] });
  for (let i = 0; i < 20; i++) await sender.send(ethernetFrame("ff:ff:ff:ff:ff:ff", "02:00:00:00:00:01", { payload: 500 }), l0);
  await sink.waitFor(20, 5000);
  const c = (await dp.counters(NODE)).get(1)!;
  expect(c.framesOut).to.equal(20);
  expect(c.queueDelay).to.deep.equal({ ingress: { sumMs: 0, frames: 0, maxMs: 0 }, egress: { sumMs: 0, frames: 0, maxMs: 0 } });
  expect((await dp.counters(NODE)).get(0)!.queueDelay.ingress.frames).to.equal(0);
}

describe("the queue delay a shaped port records, on real sockets (ADR 0097)", function () {
  this.timeout(30_000);
  const opened: UdpPeer[] = [];
  afterEach(async () => {
    await Promise.all(opened.splice(0).map((p) => p.close()));
  });

  for (const [where, make] of [
    ["on the main thread", () => testSwitchDataPlane()],
    ["in a worker", () => twoDataPlaneWorkers()],
  ] as const) {
    describe(where, () => {
      it("a 1 Mbit/s link with a 200 ms queue flooded at 4 Mbit/s: frames wait close to the bound, never beyond it", async () => {
        const dp: Door = make();
        try {
          const sink = await UdpPeer.open();
          opened.push(sink);
          const senderPort = await freeUdpPort();
          const l0 = await shapedSwitch(dp, sink, senderPort, { bandwidth: [1000, QUEUE_MS] });
          expectWaitsNearTheBound(await floodAndRead(dp, l0, senderPort));
          const c = (await dp.counters(NODE)).get(1)!;
          expect(c.drops["bandwidth"], "what the full queue dropped").to.be.above(500);
          expect(c.queueDelay.ingress.frames, "port 1 received nothing").to.equal(0);
        } finally {
          await dp.close();
        }
      });

      it("without bandwidth, no frame is counted as queued, whatever else holds it", async () => {
        const dp: Door = make();
        try {
          await expectNoneWithoutBandwidth(dp, opened);
        } finally {
          await dp.close();
        }
      });
    });
  }
});
