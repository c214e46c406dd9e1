import { expect } from "chai";
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import * as E from "fp-ts/lib/Either.js";
import { createNetemu, type Netemu } from "../../../src/adapters/composition-root.js";
import type { LoopDelay, MacTableEntry, PortCounters } from "../../../src/application/ports/data-plane.js";
import { InMemoryLinkRepository } from "../../../src/adapters/persistence/in-memory-repositories.js";
import { NO_FILTERS } from "../../../src/domain/filters/filter-settings.js";
import { NO_QUEUE_DELAY } from "../../../src/domain/filters/queue-delay.js";
import { FakeDataPlane } from "../../support/fake-data-plane.js";

/** A data plane whose live figures the test sets, node by node. */
class FiguresDataPlane extends FakeDataPlane {
  readonly liveCounters = new Map<string, ReadonlyMap<number, PortCounters>>();
  readonly tables = new Map<string, readonly MacTableEntry[]>();
  readonly asked: string[] = [];
  /** Nodes whose worker is gone: asking about them fails, as WorkerDataPlane's calls then do. */
  readonly unreachable = new Set<string>();
  override async counters(nodeId: string): Promise<ReadonlyMap<number, PortCounters>> {
    if (this.unreachable.has(nodeId)) throw new Error("data plane worker 0 is not running");
    return this.liveCounters.get(nodeId) ?? new Map();
  }
  override async macTable(nodeId: string): Promise<readonly MacTableEntry[]> {
    this.asked.push(nodeId);
    return this.tables.get(nodeId) ?? [];
  }
}

const right = <A>(e: E.Either<{ readonly _tag: string }, A>): A => {
  if (E.isLeft(e)) throw new Error(e.left._tag);
  return e.right;
};

const counters = (framesIn: number, framesOut: number, drops: Record<string, number> = {}): PortCounters => ({ framesIn, bytesIn: framesIn * 60, framesOut, bytesOut: framesOut * 60, drops, queueDelay: { ingress: NO_QUEUE_DELAY, egress: NO_QUEUE_DELAY } });

describe("TakeMetricsSnapshot", () => {
  let netemu: Netemu;
  let dataPlane: FiguresDataPlane;
  let links: InMemoryLinkRepository;
  let configDir: string;

  beforeEach(() => {
    configDir = mkdtempSync(join(tmpdir(), "netemu-snapshot-"));
    dataPlane = new FiguresDataPlane();
    links = new InMemoryLinkRepository();
    netemu = createNetemu({ logLevel: "silent", settings: { configDir }, overrides: { dataPlane, linkRepository: links } });
  });
  afterEach(async () => {
    await netemu.shutdown();
    rmSync(configDir, { recursive: true, force: true });
  });

  it("counts nothing on a fresh core", async () => {
    expect(await netemu.useCases.takeMetricsSnapshot.execute()).to.deep.equal({
      controllerProjects: { opened: 0, closed: 0 },
      computeProjects: 0,
      links: 0,
      nios: { nio_udp: 0, nio_tap: 0, nio_ethernet: 0, nio_null: 0 },
      nodes: [],
      dataPlaneLoops: [],
    });
  });

  it("gives every switch and hub with its status, its ports' live counters and a switch's MAC table size", async () => {
    const uc = netemu.useCases;
    const project = right(await uc.createComputeProject.execute({ name: "lab" }));
    const sw = right(await uc.createSwitch.execute({ projectId: project.projectId, name: "SW1" }));
    const hub = right(await uc.createHub.execute({ projectId: project.projectId, name: "HUB1" }));
    const at = (nodeId: string, portNumber: number) => ({ projectId: project.projectId, nodeId, adapterNumber: 0, portNumber });
    right(await uc.addNio.execute({ port: at(sw.nodeId, 0), nio: { type: "nio_udp", lport: 20000, rhost: "127.0.0.1", rport: 30000 } }));
    right(await uc.addNio.execute({ port: at(sw.nodeId, 1), nio: { type: "nio_null" } }));
    right(await uc.addNio.execute({ port: at(hub.nodeId, 0), nio: { type: "nio_udp", lport: 20001, rhost: "127.0.0.1", rport: 30001 } }));
    right(await uc.changeNodeStatus.execute({ projectId: project.projectId, nodeId: hub.nodeId, status: "suspended" }));
    const swCounters = new Map([[0, counters(5, 3, { no_route: 2 })], [1, counters(0, 3, { nio_null: 3 })]]);
    dataPlane.liveCounters.set(sw.nodeId, swCounters);
    dataPlane.tables.set(sw.nodeId, [
      { mac: "00:50:79:66:68:01", vlan: 1, port: 0, age: 0 },
      { mac: "00:50:79:66:68:02", vlan: 1, port: 0, age: 0 },
    ]);

    const snapshot = await uc.takeMetricsSnapshot.execute();
    expect(snapshot.computeProjects).to.equal(1);
    expect(snapshot.nios).to.deep.equal({ nio_udp: 2, nio_tap: 0, nio_ethernet: 0, nio_null: 1 });
    const byName = new Map(snapshot.nodes.map((n) => [n.name, n]));
    expect(byName.get("SW1")).to.deep.include({ projectId: project.projectId, nodeId: sw.nodeId, nodeType: "ethernet_switch", status: "started", macTableEntries: 2, answered: true });
    expect(byName.get("SW1")?.ports).to.deep.equal(swCounters);
    expect(byName.get("HUB1")).to.deep.include({ nodeType: "ethernet_hub", status: "suspended", macTableEntries: undefined });
    expect(byName.get("HUB1")?.ports.size).to.equal(0);
    expect(dataPlane.asked, "a hub has no MAC table to ask for").to.deep.equal([sw.nodeId]);
  });

  it("still gives the other nodes, and the records of a node the data plane does not answer for, marked unanswered", async () => {
    const uc = netemu.useCases;
    const project = right(await uc.createComputeProject.execute({ name: "lab" }));
    const lost = right(await uc.createSwitch.execute({ projectId: project.projectId, name: "LOST" }));
    const fine = right(await uc.createSwitch.execute({ projectId: project.projectId, name: "FINE" }));
    dataPlane.unreachable.add(lost.nodeId);
    dataPlane.liveCounters.set(fine.nodeId, new Map([[0, counters(1, 0)]]));

    const byName = new Map((await uc.takeMetricsSnapshot.execute()).nodes.map((n) => [n.name, n]));
    expect(byName.get("LOST")).to.deep.include({ nodeId: lost.nodeId, status: "started", answered: false, macTableEntries: undefined });
    expect(byName.get("LOST")?.ports.size).to.equal(0);
    expect(byName.get("FINE")).to.deep.include({ answered: true, macTableEntries: 0 });
    expect(byName.get("FINE")?.ports.get(0)).to.deep.equal(counters(1, 0));
  });

  it("gives the event-loop delay of each data-plane thread the host's data plane reports", async () => {
    const loop = (worker: number, p99Seconds: number): LoopDelay => ({ worker, minSeconds: 0.01, meanSeconds: 0.011, p50Seconds: 0.01, p90Seconds: 0.012, p99Seconds, maxSeconds: 0.05 });
    const threads = { eventLoopDelays: async () => [loop(0, 0.02), loop(1, 0.04)] };
    const hosted = createNetemu({ logLevel: "silent", settings: { configDir }, overrides: { dataPlane: new FakeDataPlane(), dataPlaneThreads: threads } });
    try {
      expect((await hosted.useCases.takeMetricsSnapshot.execute()).dataPlaneLoops).to.deep.equal([loop(0, 0.02), loop(1, 0.04)]);
    } finally {
      await hosted.shutdown();
    }
  });

  it("counts the controller's projects by status and its links over every project", async () => {
    const uc = netemu.useCases;
    const opened = right(await uc.createProject.execute({ name: "opened" }));
    const closing = right(await uc.createProject.execute({ name: "closing" }));
    right(await uc.closeProject.execute({ projectId: closing.projectId }));
    const end = (nodeId: string) => ({ nodeId, adapterNumber: 0, portNumber: 0, label: { text: "e0", style: null, x: null, y: 0, rotation: 0 }, udpPort: 20000 });
    for (const [linkId, projectId] of [["l1", opened.projectId], ["l2", opened.projectId], ["l3", closing.projectId]] as const) {
      await links.save({ linkId, projectId, nodes: [end("a"), end("b")], filters: NO_FILTERS, suspend: false, linkStyle: {}, capture: null });
    }

    const snapshot = await uc.takeMetricsSnapshot.execute();
    expect(snapshot.controllerProjects).to.deep.equal({ opened: 1, closed: 1 });
    expect(snapshot.links).to.equal(3);
  });
});
