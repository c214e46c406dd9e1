import { expect } from "chai";
import * as E from "fp-ts/lib/Either.js";
import { WorkerDataPlane, workerIndexOf } from "../../src/adapters/threads/data-plane/worker-data-plane.js";
import { createEthernetSwitch } from "../../src/domain/switching/ethernet-switch.js";
import { defaultPortsMapping } from "../../src/domain/switching/port.js";
import { twoDataPlaneWorkers, wiredSwitch as wireSwitch } from "../support/two-data-plane-workers.js";
import { UdpPeer, ethernetFrame } from "../support/udp-peer.js";
import type { Worker } from "node:worker_threads";
import type { WorkerReply } from "../../src/adapters/threads/data-plane/protocol.js";
import type { DataPlaneWorkerData } from "../../src/adapters/threads/data-plane/data-plane-worker.js";
import { startWorker } from "../../src/adapters/threads/worker-start.js";
import { TEST_DATA_PLANE_OPTIONS } from "../support/in-memory-data-plane.js";
import { TEST_TRANSPORT } from "../support/live-data-planes.js";

const PROJECT = "77777777-3333-4444-8555-777777777778";
const BUSY = "aaaaaaaa-0000-4000-8000-0000000000b1";
const IDLE = "aaaaaaaa-0000-4000-8000-0000000000b2";

describe("data-plane workers report each node's load (real sockets on 127.0.0.1)", function () {
  this.timeout(20_000);
  let dp: WorkerDataPlane;
  const opened: UdpPeer[] = [];

  beforeEach(() => {
    dp = twoDataPlaneWorkers({ loadIntervalMs: 50 });
  });
  afterEach(async () => {
    await dp.close();
    await Promise.all(opened.splice(0).map((p) => p.close()));
  });

  /** A switch with UDP NIOs on ports 0 and 1, each to a peer of its own. */
  function wiredSwitch(nodeId: string): ReturnType<typeof wireSwitch> {
    return wireSwitch(dp, createEthernetSwitch({ nodeId, projectId: PROJECT, name: nodeId.slice(-2), console: null, consoleType: "none", portsMapping: defaultPortsMapping() }), opened);
  }

  /** Sends frames through `busy` until a report shows them (each report covers only its own interval); the last reading. */
  async function forwardUntilLoaded(busy: Awaited<ReturnType<typeof wiredSwitch>>): Promise<ReturnType<WorkerDataPlane["nodeLoads"]>> {
    const frame = ethernetFrame("ff:ff:ff:ff:ff:ff", "00:50:79:66:68:01", { payload: 46 });
    let loads = dp.nodeLoads();
    for (let round = 0; round < 50 && !loads.some((l) => l.nodeId === BUSY && l.load > 0); round++) {
      for (let i = 0; i < 20; i++) await busy.peers[0].send(frame, busy.lports[0]);
      await busy.peers[1].settle(20);
      loads = dp.nodeLoads();
    }
    return loads;
  }

  /** Waits (bounded) until the reports satisfy `ok`; the last reading either way. */
  async function loadsWhen(ok: (loads: ReturnType<WorkerDataPlane["nodeLoads"]>) => boolean): Promise<ReturnType<WorkerDataPlane["nodeLoads"]>> {
    let loads = dp.nodeLoads();
    for (let i = 0; i < 100 && !ok(loads); i++) {
      await new Promise((r) => setTimeout(r, 20));
      loads = dp.nodeLoads();
    }
    return loads;
  }

  it("gives a node that forwards frames a load on the worker it runs on, and an idle one none", async () => {
    const busy = await wiredSwitch(BUSY);
    await wiredSwitch(IDLE);
    const loads = await forwardUntilLoaded(busy);
    const busyLoad = loads.find((l) => l.nodeId === BUSY);
    expect(busyLoad?.worker).to.equal(workerIndexOf(BUSY, 2));
    expect(busyLoad?.load).to.be.greaterThan(0);
    const idle = await loadsWhen((ls) => ls.some((l) => l.nodeId === IDLE));
    expect(idle.find((l) => l.nodeId === IDLE)).to.deep.equal({ nodeId: IDLE, worker: workerIndexOf(IDLE, 2), load: 0 });
  });

  it("brings a node's load back to zero once it stops forwarding (the first idle report is sent) and keeps it there", async () => {
    const loads = await forwardUntilLoaded(await wiredSwitch(BUSY));
    expect(loads.find((l) => l.nodeId === BUSY)?.load).to.be.greaterThan(0);
    // The first idle report differs from the busy one before it, so it is sent (ADR 0113).
    const after = await loadsWhen((ls) => ls.find((l) => l.nodeId === BUSY)?.load === 0);
    expect(after.find((l) => l.nodeId === BUSY)?.load).to.equal(0);
    await new Promise((r) => setTimeout(r, 200));
    expect(dp.nodeLoads().find((l) => l.nodeId === BUSY)?.load, "still idle, from the last report").to.equal(0);
  });

  it("no longer lists a node once it is removed", async () => {
    await wiredSwitch(IDLE);
    expect((await loadsWhen((ls) => ls.some((l) => l.nodeId === IDLE))).map((l) => l.nodeId)).to.include(IDLE);
    await dp.removeNode(IDLE);
    expect(dp.nodeLoads().map((l) => l.nodeId)).to.not.include(IDLE);
  });
});

describe("an idle data-plane worker, at its door (a real worker thread)", function () {
  this.timeout(20_000);
  let worker: Worker;
  const events: { event: string }[] = [];
  const answers = new Map<number, (reply: WorkerReply) => void>();

  beforeEach(() => {
    events.length = 0;
    const data: DataPlaneWorkerData = { dataPlane: TEST_DATA_PLANE_OPTIONS, transport: TEST_TRANSPORT, loadIntervalMs: 40 };
    worker = startWorker(new URL("../../src/adapters/threads/data-plane/data-plane-worker.js", import.meta.url), data);
    worker.on("message", (m: WorkerReply | { event: string }) => {
      if ("event" in m) events.push(m);
      else answers.get(m.id)?.(m);
    });
  });
  afterEach(async () => {
    await worker.terminate();
  });

  it("reports its loads once and then stays silent while nothing moves, its event-loop delay unsampled (NaN)", async () => {
    const loadReports = (): number => events.filter((e) => e.event === "loads").length;
    for (let waited = 0; loadReports() === 0 && waited < 10_000; waited += 20) await new Promise((r) => setTimeout(r, 20));
    expect(loadReports(), "its first report").to.equal(1);
    await new Promise((r) => setTimeout(r, 600));
    // 15 intervals more: only the first report said something (no node, no frame) (ADR 0113).
    expect(loadReports()).to.equal(1);
    const reply = await new Promise<WorkerReply>((resolve) => {
      answers.set(1, resolve);
      worker.postMessage({ id: 1, op: "eventLoopDelay", args: [] });
    });
    expect(reply, JSON.stringify(reply)).to.have.property("value");
    expect(Object.values((reply as { value: Record<string, number> }).value).every(Number.isNaN), JSON.stringify(reply)).to.equal(true);
  });
});
