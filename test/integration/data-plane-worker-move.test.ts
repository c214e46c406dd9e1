import { expect } from "chai";
import * as E from "fp-ts/lib/Either.js";
import { randomUUID } from "node:crypto";
import { WorkerDataPlane, workerIndexOf } from "../../src/adapters/threads/data-plane/worker-data-plane.js";
import { createEthernetSwitch } from "../../src/domain/switching/ethernet-switch.js";
import { defaultPortsMapping } from "../../src/domain/switching/port.js";
import { RecordingLogger } from "../support/in-memory-data-plane.js";
import { twoDataPlaneWorkers, wiredSwitch as wireSwitch } from "../support/two-data-plane-workers.js";
import { UdpPeer, ethernetFrame } from "../support/udp-peer.js";

const PROJECT = "77777777-3333-4444-8555-777777777779";
const NODE = "aaaaaaaa-0000-4000-8000-0000000000c1";
const HOME = workerIndexOf(NODE, 2);
const OTHER = 1 - HOME;
const A = "00:50:79:66:68:01";

describe("moving a node to another data-plane worker (real sockets on 127.0.0.1)", function () {
  this.timeout(20_000);
  let dp: WorkerDataPlane;
  let logger: RecordingLogger;
  const opened: UdpPeer[] = [];

  beforeEach(() => {
    logger = new RecordingLogger();
    dp = twoDataPlaneWorkers({ logger, loadIntervalMs: 50 });
  });
  afterEach(async () => {
    await dp.close();
    await Promise.all(opened.splice(0).map((p) => p.close()));
  });

  function wiredSwitch(nodeId = NODE): ReturnType<typeof wireSwitch> {
    return wireSwitch(dp, createEthernetSwitch({ nodeId, projectId: PROJECT, name: "SW1", console: null, consoleType: "none", portsMapping: defaultPortsMapping() }), opened);
  }

  /** Sends from port 0's peer until port 1's peer has a frame (bounded); whether it got one. */
  async function forwards(sw: { peers: [UdpPeer, UdpPeer]; lports: [number, number] }): Promise<boolean> {
    sw.peers[1].received.length = 0;
    const frame = ethernetFrame("ff:ff:ff:ff:ff:ff", A, { payload: 46 });
    for (let attempt = 0; attempt < 40 && sw.peers[1].received.length === 0; attempt++) {
      await sw.peers[0].send(frame, sw.lports[0]);
      await sw.peers[1].settle(25);
    }
    return sw.peers[1].received.length > 0;
  }

  it("forwards on the same UDP ports from the worker it moved to, which now answers for it", async () => {
    const sw = await wiredSwitch();
    expect(await forwards(sw)).to.equal(true);
    expect(await dp.moveNode(NODE, OTHER)).to.equal(true);
    expect(await forwards(sw), "forwards after the move").to.equal(true);
    // The MAC table is the new worker's: it learned A again there.
    expect((await dp.macTable(NODE)).map((e) => e.mac)).to.deep.equal([A]);
    let loads = dp.nodeLoads();
    for (let i = 0; i < 100 && !loads.some((l) => l.nodeId === NODE && l.worker === OTHER); i++) {
      await new Promise((r) => setTimeout(r, 20));
      loads = dp.nodeLoads();
    }
    expect(loads.filter((l) => l.nodeId === NODE).map((l) => l.worker)).to.deep.equal([OTHER]);
    expect(logger.lines.find((l) => l.msg === "node moved to another data plane worker")?.fields).to.deep.equal({ nodeId: NODE, from: HOME, to: OTHER });
  });

  it("keeps taking syncs on the worker it moved to, and frees its ports when removed there", async () => {
    const sw = await wiredSwitch();
    expect(await dp.moveNode(NODE, OTHER)).to.equal(true);
    expect(E.isRight(await dp.sync({ ...sw.node, name: "SW1-renamed" }))).to.equal(true);
    expect(await forwards(sw)).to.equal(true);
    await dp.removeNode(NODE);
    const rebound = await UdpPeer.open(sw.lports[0]);
    opened.push(rebound);
    expect(rebound.port).to.equal(sw.lports[0]);
  });

  it("moves back to the worker its id hashes to", async () => {
    const sw = await wiredSwitch();
    expect(await dp.moveNode(NODE, OTHER)).to.equal(true);
    expect(await dp.moveNode(NODE, HOME)).to.equal(true);
    expect(await forwards(sw)).to.equal(true);
  });

  it("does nothing for an unknown node, a worker that does not exist, or the worker it is on", async () => {
    const sw = await wiredSwitch();
    expect(await dp.moveNode("bbbbbbbb-0000-4000-8000-000000000000", OTHER)).to.equal(false);
    expect(await dp.moveNode(NODE, 2)).to.equal(false);
    expect(await dp.moveNode(NODE, -1)).to.equal(false);
    expect(await dp.moveNode(NODE, HOME)).to.equal(false);
    expect(await forwards(sw)).to.equal(true);
    expect(logger.lines.filter((l) => l.msg === "node moved to another data plane worker")).to.deep.equal([]);
  });

  it("goes back to the worker it came from, with its state, when the other fails while taking it, and says so", async () => {
    await dp.close();
    dp = twoDataPlaneWorkers({ logger, workerScript: new URL("../support/crash-on-newcomer-data-plane-worker.js", import.meta.url) });
    const sw = await wiredSwitch();
    // Renamed where it runs (which knows it): the worker it moves to has never seen it, and dies taking it.
    expect(E.isRight(await dp.sync({ ...sw.node, name: "crash-if-new" }))).to.equal(true);
    expect(await forwards(sw)).to.equal(true);
    const before = (await dp.counters(NODE)).get(0)?.framesIn ?? 0;
    expect(before).to.be.greaterThan(0);
    expect(await dp.moveNode(NODE, OTHER)).to.equal(false);
    // Put back with the state it had handed over: its counters go on from where they stood.
    expect((await dp.counters(NODE)).get(0)?.framesIn, "counters after the failed move").to.equal(before);
    expect(await forwards(sw), "forwards again from the worker it came from").to.equal(true);
    const failed = logger.lines.find((l) => l.msg === "a node could not move to another data plane worker");
    expect(failed?.fields).to.deep.include({ nodeId: NODE, from: HOME, to: OTHER, restored: true });
    expect(String(failed?.fields?.["reason"])).to.match(/stopped \(exit code 1\) before answering takeOver/);
  });

  it("comes back on the worker it moved to when that worker dies and restarts", async () => {
    await dp.close();
    dp = twoDataPlaneWorkers({ logger, workerScript: new URL("../support/crashing-data-plane-worker.js", import.meta.url) });
    const sw = await wiredSwitch();
    expect(await dp.moveNode(NODE, OTHER)).to.equal(true);
    let crasher: string;
    do crasher = randomUUID();
    while (workerIndexOf(crasher, 2) !== OTHER);
    await dp.sync(createEthernetSwitch({ nodeId: crasher, projectId: PROJECT, name: "crash-me", console: null, consoleType: "none", portsMapping: defaultPortsMapping() })).catch(() => undefined);
    expect(logger.lines.find((l) => l.msg === "data plane worker died; restarting it with its nodes")?.fields).to.deep.include({ worker: OTHER, nodes: 1 });
    expect(await forwards(sw), "forwards again from the restarted worker").to.equal(true);
  });

  it("with placement by load, spreads two busy switches whose ids hash onto one worker, then leaves them", async () => {
    await dp.close();
    dp = twoDataPlaneWorkers({ logger, loadIntervalMs: 50, placement: { minGain: 0.1, minTotalLoad: 10 } });
    const ids: string[] = [];
    while (ids.length < 2) {
      const id = randomUUID();
      if (workerIndexOf(id, 2) === 0) ids.push(id);
    }
    const switches = [await wiredSwitch(ids[0]), await wiredSwitch(ids[1])];
    const frame = ethernetFrame("ff:ff:ff:ff:ff:ff", A, { payload: 46 });
    const moved = () => logger.lines.filter((l) => l.msg === "node moved to another data plane worker");
    // Both busy, bounded: until one moved, then as long again to see that nothing moves back.
    for (let round = 0; round < 400 && moved().length === 0; round++) {
      for (const sw of switches) for (let i = 0; i < 5; i++) await sw.peers[0].send(frame, sw.lports[0]);
      await new Promise((r) => setTimeout(r, 5));
    }
    expect(moved(), "one switch moved").to.have.length(1);
    for (let round = 0; round < 60; round++) {
      for (const sw of switches) for (let i = 0; i < 5; i++) await sw.peers[0].send(frame, sw.lports[0]);
      await new Promise((r) => setTimeout(r, 5));
    }
    expect(moved(), "and nothing moved after").to.have.length(1);
    const workers = dp.nodeLoads().filter((l) => ids.includes(l.nodeId)).map((l) => l.worker).sort();
    expect(workers).to.deep.equal([0, 1]);
    for (const sw of switches) expect(await forwards(sw)).to.equal(true);
  });
});
