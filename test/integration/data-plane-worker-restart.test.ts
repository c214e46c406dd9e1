import { expect } from "chai";
import * as E from "fp-ts/lib/Either.js";
import type { WorkerDataPlane } from "../../src/adapters/threads/data-plane/worker-data-plane.js";
import { NotificationHub } from "../../src/application/notification-hub.js";
import type { ComputeNotification } from "../../src/application/ports/notifications.js";
import { createEthernetSwitch } from "../../src/domain/switching/ethernet-switch.js";
import { defaultPortsMapping } from "../../src/domain/switching/port.js";
import { RecordingLogger } from "../support/in-memory-data-plane.js";
import { testWorkerDataPlane } from "../support/live-data-planes.js";
import { wiredSwitch as wireSwitch } from "../support/two-data-plane-workers.js";
import { UdpPeer, ethernetFrame } from "../support/udp-peer.js";

const PROJECT = "77777777-3333-4444-8555-777777777777";
const A = "00:50:79:66:68:01";
const BROADCAST = "ff:ff:ff:ff:ff:ff";
const CRASHING_WORKER = new URL("../support/crashing-data-plane-worker.js", import.meta.url);

describe("a data-plane worker that dies (real sockets on 127.0.0.1)", function () {
  this.timeout(30_000);
  let dp: WorkerDataPlane;
  let logger: RecordingLogger;
  let told: ComputeNotification[];
  const opened: UdpPeer[] = [];

  beforeEach(() => {
    logger = new RecordingLogger();
    const notifications = new NotificationHub();
    told = [];
    notifications.subscribe((n) => told.push(n));
    dp = testWorkerDataPlane({ workers: 1, notifications, logger, workerScript: CRASHING_WORKER });
  });
  afterEach(async () => {
    await dp.close();
    await Promise.all(opened.splice(0).map((p) => p.close()));
  });

  const switchNode = (nodeId: string, name: string) =>
    createEthernetSwitch({ nodeId, projectId: PROJECT, name, console: null, consoleType: "none", portsMapping: defaultPortsMapping() });

  /** A switch with UDP NIOs on ports 0 and 1, each to a peer of its own. */
  function wiredSwitch(): ReturnType<typeof wireSwitch> {
    return wireSwitch(dp, switchNode("aaaaaaaa-0000-4000-8000-000000000001", "SW1"), opened);
  }

  const crash = () => dp.sync(switchNode("bbbbbbbb-0000-4000-8000-000000000002", "crash-me"));

  it("fails the call it was answering, comes back with its nodes, and tells their project", async () => {
    const sw = await wiredSwitch();
    let failure: unknown;
    await crash().catch((err: unknown) => (failure = err));
    expect(String(failure)).to.match(/data plane worker 0 stopped \(exit code 1\) before answering sync/);

    // The restarted worker has the switch back on the same local ports.
    const frame = ethernetFrame(BROADCAST, A, { payload: 46 });
    for (let attempt = 0; attempt < 20 && sw.peers[1].received.length === 0; attempt++) {
      await sw.peers[0].send(frame, sw.lports[0]);
      await sw.peers[1].settle(50);
    }
    expect(sw.peers[1].received[0]?.equals(frame), "the switch forwards again after the restart").to.equal(true);
    const counters = await dp.counters(sw.node.nodeId);
    expect(counters.get(0)?.framesIn, "counters start again from zero").to.be.within(1, 20);
    expect((await dp.macTable(sw.node.nodeId)).map((e) => e.mac)).to.deep.equal([A]);

    expect(logger.lines.find((l) => l.msg === "data plane worker died; restarting it with its nodes")?.fields).to.deep.include({ worker: 0, exitCode: 1, unanswered: 1, nodes: 1 });
    expect(told).to.deep.include({
      kind: "log",
      severity: "error",
      projectId: PROJECT,
      message: "The data plane of SW1 restarted after a failure: its captures stopped and its counters and MAC table start again from zero",
    });
  });

  it("is given up on after dying five times within a minute: its calls answer at once instead of hanging (no counters, a capture refused naming the worker)", async () => {
    for (let i = 0; i < 5; i++) await crash().catch(() => undefined);
    const node = "aaaaaaaa-0000-4000-8000-000000000001";
    expect(await dp.counters(node)).to.deep.equal(new Map());
    expect(await dp.start(node, 0, "/nonexistent/x.pcap")).to.deep.equal(E.left({ _tag: "DataPlaneWorkerDown", worker: 0, state: "given_up" }));
    expect(logger.lines.map((l) => l.msg)).to.include("data plane worker keeps dying; not restarted: its nodes forward nothing until it is tried again, or brought back (POST /v2/netemu/data-plane/restart)");
  });

  it("is not restarted when netemu closes it", async () => {
    await wiredSwitch();
    await dp.close();
    expect(logger.lines.filter((l) => l.level === "error")).to.deep.equal([]);
  });
});
