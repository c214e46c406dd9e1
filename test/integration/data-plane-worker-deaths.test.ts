import { expect } from "chai";
import { mkdtempSync, readFileSync, readdirSync, readlinkSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
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
import { startTestServer, type TestServer } from "../support/http-harness.js";
import { wireUdpNio } from "../support/http-nios.js";
import { parseExposition, type Exposition } from "../support/prometheus-text.js";

const PROJECT = "77777777-3333-4444-8555-888888888888";
const SW1 = "aaaaaaaa-0000-4000-8000-0000000000d1";
const A = "00:50:79:66:68:01";
const BROADCAST = "ff:ff:ff:ff:ff:ff";
const HEAP_HOG = new URL("../support/heap-hog-data-plane-worker.js", import.meta.url);
/** Small enough that the hog fills it at once, big enough for a worker with a few switches. */
const HEAP = { maxOldGenerationSizeMb: 48, maxYoungGenerationSizeMb: 8 };
/** One worker, the heap hog, within HEAP. */
const heapHogWorker = (options: Partial<Parameters<typeof testWorkerDataPlane>[0]>): WorkerDataPlane =>
  testWorkerDataPlane({ workers: 1, workerScript: HEAP_HOG, resourceLimits: HEAP, ...options });

const switchNode = (nodeId: string, name: string) => createEthernetSwitch({ nodeId, projectId: PROJECT, name, console: null, consoleType: "none", portsMapping: defaultPortsMapping() });

/** Asks `probe` until it holds, a bounded number of times. */
async function until<T>(probe: () => T | Promise<T>, done: (v: T) => boolean, what: string, ms = 10_000): Promise<T> {
  const deadline = Date.now() + ms;
  for (;;) {
    const v = await probe();
    if (done(v)) return v;
    if (Date.now() > deadline) throw new Error(`${what} never happened`);
    await new Promise((resolve) => setTimeout(resolve, 20));
  }
}

/** Sends broadcasts in on port 0 until one comes out on port 1 (a worker takes its nodes back a moment after it starts). */
async function forwards(sw: Awaited<ReturnType<typeof wireSwitch>>): Promise<boolean> {
  const before = sw.peers[1].received.length;
  const frame = ethernetFrame(BROADCAST, A, { payload: 46 });
  for (let attempt = 0; attempt < 40 && sw.peers[1].received.length === before; attempt++) {
    await sw.peers[0].send(frame, sw.lports[0]);
    await sw.peers[1].settle(50);
  }
  return sw.peers[1].received.length > before;
}

describe("a data-plane worker that dies of memory: an operator event (ADR 0073, real sockets on 127.0.0.1)", function () {
  this.timeout(60_000);
  let dp: WorkerDataPlane;
  let logger: RecordingLogger;
  let told: ComputeNotification[];
  const opened: UdpPeer[] = [];
  let dir: string;

  /** No load readings unless asked: a reading would make a dark node's rate depend on the test's pace. */
  const start = (givenUpRetryMs = 600_000, loadIntervalMs = 0) => {
    logger = new RecordingLogger();
    const notifications = new NotificationHub();
    told = [];
    notifications.subscribe((n) => told.push(n));
    dp = heapHogWorker({ notifications, logger, givenUpRetryMs, loadIntervalMs });
  };
  beforeEach(() => {
    dir = mkdtempSync(join(tmpdir(), "netemu-deaths-"));
  });
  afterEach(async () => {
    await dp.close();
    await Promise.all(opened.splice(0).map((p) => p.close()));
    rmSync(dir, { recursive: true, force: true });
  });

  /** A sync that runs the worker out of memory: the worker dies before answering it. */
  const exhaustHeap = async (): Promise<string> => {
    let failure = "";
    await dp.sync(switchNode("bbbbbbbb-0000-4000-8000-0000000000d2", "oom-flood")).then(
      () => expect.fail("the worker answered a sync that exhausts its heap"),
      (err: unknown) => (failure = String(err)),
    );
    return failure;
  };

  it("names its nodes dark (why, since when) while it restarts, says the death in one error line and the return in one info line, and counts both", async () => {
    start();
    const sw = await wireSwitch(dp, switchNode(SW1, "SW1"), opened);
    const before = Date.now();
    expect(await exhaustHeap()).to.match(/data plane worker 0 stopped \(exit code 1\) before answering sync/);

    const [dark] = dp.darkWorkers();
    expect(dark, "dark while it restarts").to.deep.include({ worker: 0, state: "restarting", exitCode: 1, deaths: 1, nextAttempt: undefined });
    expect(dark?.reason).to.match(/memory/i);
    expect(dark?.since.getTime()).to.be.within(before, Date.now());
    expect(dark?.nodes).to.deep.equal([{ nodeId: SW1, projectId: PROJECT, name: "SW1", framesPerSecond: undefined }]);

    await until(() => dp.darkWorkers(), (d) => d.length === 0, "its nodes coming back");
    expect(await forwards(sw), "the switch forwards again").to.equal(true);
    expect(dp.lifeCounts()).to.deep.equal([{ worker: 0, deaths: 1, restarts: 1 }]);

    const errors = logger.lines.filter((l) => l.level === "error");
    expect(errors, "one error line per death").to.have.length(1);
    expect(errors[0]?.msg).to.equal("data plane worker died; restarting it with its nodes");
    expect(errors[0]?.fields).to.deep.include({ worker: 0, exitCode: 1, nodes: 1, nodeNames: ["SW1"], deaths: 1 });
    expect(errors[0]?.fields?.["reason"]).to.match(/memory/i);
    const back = logger.lines.filter((l) => l.msg === "data plane worker's nodes are back: they forward again");
    expect(back.map((l) => [l.level, l.fields?.["worker"], l.fields?.["nodes"]])).to.deep.equal([["info", 0, 1]]);
    expect(told).to.deep.include({ kind: "log", severity: "info", projectId: PROJECT, message: "The data plane of SW1 forwards again" });
  });

  it("names each dark node's frame rate as its worker last reported it: the node that floods it stands out", async () => {
    start(600_000, 100);
    const busy = await wireSwitch(dp, switchNode(SW1, "SW-busy"), opened);
    await wireSwitch(dp, switchNode("aaaaaaaa-0000-4000-8000-0000000000d4", "SW-idle"), opened);
    const frame = ethernetFrame(BROADCAST, A, { payload: 46 });
    // The flood runs until after the death, so the worker's last reading (every 100 ms) is of it.
    let flooding = true;
    const flood = (async () => {
      while (flooding) {
        await busy.peers[0].send(frame, busy.lports[0]);
        await new Promise((resolve) => setTimeout(resolve, 2));
      }
    })();
    await until(() => busy.peers[1].received.length, (n) => n >= 50, "the flood going through");
    await new Promise((resolve) => setTimeout(resolve, 300));
    await exhaustHeap();
    flooding = false;
    await flood;
    const rates = Object.fromEntries((dp.darkWorkers()[0]?.nodes ?? []).map((n) => [n.name, n.framesPerSecond]));
    expect(rates["SW-busy"]).to.be.greaterThan(0);
    expect(rates["SW-idle"]).to.equal(0);
  });

  it("is given up after five deaths in a minute, its node named dark until brought back, then forwards again without restarting netemu", async () => {
    start();
    const sw = await wireSwitch(dp, switchNode(SW1, "SW1"), opened);
    for (let i = 0; i < 5; i++) await exhaustHeap();

    const [dark] = dp.darkWorkers();
    expect(dark).to.deep.include({ worker: 0, state: "given_up", deaths: 5 });
    expect(dark?.nextAttempt?.getTime(), "tried again by itself after its back-off").to.be.greaterThan(Date.now() + 500_000);
    expect(dark?.nodes.map((n) => n.name)).to.deep.equal(["SW1"]);
    expect(dp.lifeCounts()).to.deep.equal([{ worker: 0, deaths: 5, restarts: 4 }]);
    expect(logger.lines.filter((l) => l.level === "error").map((l) => l.msg)).to.deep.equal([
      ...Array<string>(4).fill("data plane worker died; restarting it with its nodes"),
      "data plane worker keeps dying; not restarted: its nodes forward nothing until it is tried again, or brought back (POST /v2/netemu/data-plane/restart)",
    ]);
    const frame = ethernetFrame(BROADCAST, A, { payload: 46 });
    await sw.peers[0].send(frame, sw.lports[0]);
    expect(await sw.peers[1].settle(200), "nothing forwards while it is given up").to.equal(0);

    expect(await dp.bringBack()).to.deep.equal([0]);
    expect(dp.darkWorkers()).to.deep.equal([]);
    expect(await forwards(sw), "the switch forwards again").to.equal(true);
    expect(dp.lifeCounts()).to.deep.equal([{ worker: 0, deaths: 5, restarts: 5 }]);
    expect(await dp.bringBack(), "nothing more to bring back").to.deep.equal([]);
  });

  it("is tried again by itself after its back-off, which doubles at the next give-up", async () => {
    start(300);
    const sw = await wireSwitch(dp, switchNode(SW1, "SW1"), opened);
    for (let i = 0; i < 5; i++) await exhaustHeap();
    const first = dp.darkWorkers()[0];
    expect(first?.state).to.equal("given_up");
    await until(() => dp.darkWorkers(), (d) => d.length === 0, "the first attempt after the back-off");
    expect(await forwards(sw)).to.equal(true);
    expect(logger.lines.map((l) => l.msg)).to.include("trying a given-up data plane worker again");

    for (let i = 0; i < 5; i++) await exhaustHeap();
    const waits = logger.lines.filter((l) => l.msg.startsWith("data plane worker keeps dying")).map((l) => l.fields?.["retryInMs"]);
    expect(waits).to.deep.equal([300, 600]);
    await until(() => dp.darkWorkers(), (d) => d.length === 0, "the second attempt after the doubled back-off");
    expect(await forwards(sw)).to.equal(true);
  });

  it("reports a capture that ran when it died as stopped (the file closed with whole records, a capture_failed naming it, none running after), and not one that had ended with its NIO", async () => {
    start();
    const sw = await wireSwitch(dp, switchNode(SW1, "SW1"), opened);
    const file = join(dir, "sw1-0.pcap");
    expect(E.isRight(await dp.start(SW1, 0, file))).to.equal(true);
    expect(E.isRight(await dp.start(SW1, 1, join(dir, "sw1-1.pcap")))).to.equal(true);
    expect(await forwards(sw)).to.equal(true);
    // The frame's record is on disk before the death (the writer writes a moment later, off the frame path).
    await until(() => readFileSync(file).length, (bytes) => bytes > 24, "the capture's first record on disk");
    // Port 1's NIO goes, and its capture with it: only port 0's is running at the death.
    const withoutPort1 = { ...sw.node, nios: new Map([...sw.node.nios].filter(([port]) => port !== 1)) };
    expect(E.isRight(await dp.sync(withoutPort1))).to.equal(true);
    await exhaustHeap();

    const failed = told.filter((n) => n.kind === "capture_failed");
    expect(failed.map((n) => n.kind === "capture_failed" && { nodeId: n.node.nodeId, portNumber: n.portNumber, filePath: n.filePath })).to.deep.equal([{ nodeId: SW1, portNumber: 0, filePath: file }]);
    expect(failed[0]?.kind === "capture_failed" && failed[0].reason).to.match(/^its data plane worker died \(.*memory.*\)$/i);
    expect(await dp.fileOf(SW1, 0), "no capture runs after the death").to.equal(undefined);
    const open = readdirSync("/proc/self/fd").flatMap((fd) => {
      try {
        return [readlinkSync(`/proc/self/fd/${fd}`)];
      } catch {
        return [];
      }
    });
    expect(open, "the capture's file is closed").to.not.include(file);
    const pcap = readFileSync(file);
    expect(pcap.readUInt32LE(0)).to.equal(0xa1b2c3d4);
    let at = 24;
    let records = 0;
    while (at + 16 <= pcap.length) {
      at += 16 + pcap.readUInt32LE(at + 8);
      records++;
    }
    expect(at, "the file ends on a whole record").to.equal(pcap.length);
    expect(records).to.be.at.least(1);
    expect(logger.lines.filter((l) => l.msg === "capture stopped: its data plane worker died").map((l) => l.fields?.["filePath"])).to.deep.equal([file]);
  });

  it("while given up: its captures read as stopped, a stop is a no-op, a node's change is kept for its return and a removed node is not given back", async () => {
    start();
    const sw = await wireSwitch(dp, switchNode(SW1, "SW1"), opened);
    const gone = await wireSwitch(dp, switchNode("aaaaaaaa-0000-4000-8000-0000000000d3", "SW-gone"), opened);
    expect(E.isRight(await dp.start(SW1, 1, join(dir, "sw1-1.pcap")))).to.equal(true);
    for (let i = 0; i < 5; i++) await exhaustHeap();
    expect(dp.darkWorkers()[0]?.state).to.equal("given_up");

    expect(await dp.fileOf(SW1, 1)).to.equal(undefined);
    await dp.stop(SW1, 1);
    await dp.removeNode(gone.node.nodeId);
    expect(dp.darkWorkers()[0]?.nodes.map((n) => n.name)).to.deep.equal(["SW1"]);
    // Frames from port 0 are dropped once it comes back: the change made while it was down is what it is given.
    const nio = sw.node.nios.get(0);
    if (nio?.type !== "nio_udp") throw new Error("port 0 has its UDP NIO");
    const changed = { ...sw.node, nios: new Map([...sw.node.nios, [0, { ...nio, filters: { frequency_drop: [-1] } }]]) };
    expect(E.isRight(await dp.sync(changed))).to.equal(true);

    await dp.bringBack();
    expect(dp.darkWorkers()).to.deep.equal([]);
    const frame = ethernetFrame(BROADCAST, A, { payload: 46 });
    for (let i = 0; i < 5; i++) await sw.peers[0].send(frame, sw.lports[0]);
    const counters = await until(() => dp.counters(SW1), (c) => (c.get(0)?.drops["frequency_drop"] ?? 0) >= 5, "the drops of the changed filter");
    expect(counters.get(1)?.framesOut).to.equal(0);
    await dp.counters(gone.node.nodeId).then(
      (c) => expect(c.size, "the removed node is not given back").to.equal(0),
      () => undefined,
    );
  });
});

describe("a data-plane worker killed by memory, seen over HTTP: /v2/netemu/ready, /metrics and the way back (ADR 0073, real sockets on 127.0.0.1)", function () {
  this.timeout(60_000);
  let s: TestServer;
  let dp: WorkerDataPlane;
  const peers: UdpPeer[] = [];

  beforeEach(async () => {
    const logger = new RecordingLogger();
    const notifications = new NotificationHub();
    dp = heapHogWorker({ notifications, logger, givenUpRetryMs: 600_000, loadIntervalMs: 0 });
    s = await startTestServer({ overrides: { dataPlane: dp, dataPlaneThreads: dp, dataPlaneHealth: dp, notifications, logger } });
  });
  afterEach(async () => {
    await s.close();
    await dp.close();
    await Promise.all(peers.splice(0).map((p) => p.close()));
  });

  const wire = (base: string, port: number) => wireUdpNio(s, PROJECT, base, port, peers);
  const metrics = async (): Promise<Exposition> => parseExposition((await s.request("GET", "/metrics")).text);

  it("answers 503 naming the worker, its node, why and since when, counts the deaths, and 200 once the operator's restart brought the node back forwarding", async () => {
    expect((await s.request("POST", "/v2/compute/projects", { name: "deaths", project_id: PROJECT })).status).to.equal(201);
    const sw = (await s.request("POST", `/v2/compute/projects/${PROJECT}/ethernet_switch/nodes`, { name: "SW1" })).json;
    const base = `/v2/compute/projects/${PROJECT}/ethernet_switch/nodes/${sw.node_id}`;
    const p0 = await wire(base, 0);
    const p1 = await wire(base, 1);
    const frame = ethernetFrame(BROADCAST, A, { payload: 46 });
    await p0.peer.send(frame, p0.lport);
    await p1.peer.waitFor(1);
    const healthy = await metrics();
    expect(healthy.value("netemu_dataplane_worker_deaths_total", { worker: "0" })).to.equal(0);
    expect(healthy.value("netemu_dataplane_dark_nodes")).to.equal(0);

    // Each rename to "oom…" runs the worker out of memory as it syncs: five deaths in a minute give it up.
    for (let i = 0; i < 5; i++) {
      const killed = await s.request("PUT", base, { name: `oom-${i}` });
      expect(killed.status, killed.text).to.equal(500);
    }
    const notReady = await s.request("GET", "/v2/netemu/ready");
    expect(notReady.status, notReady.text).to.equal(503);
    expect(notReady.json).to.deep.include({ status: 503, ready: false, unwritten_projects: [] });
    expect(notReady.json.message).to.match(/^1 node\(s\) forward nothing: their data plane worker died \(worker 0 given up: .*memory.*\)$/i);
    const [dark] = notReady.json.dark_workers as Record<string, unknown>[];
    expect(dark).to.deep.include({ worker: 0, state: "given_up", exit_code: 1, deaths: 5, nodes: [{ node_id: sw.node_id, project_id: PROJECT, name: "SW1", frames_per_second: null }] });
    expect(dark?.["reason"]).to.match(/memory/i);
    expect(Date.parse(dark?.["since"] as string)).to.be.within(Date.now() - 60_000, Date.now());
    expect(Date.parse(dark?.["next_attempt"] as string)).to.be.greaterThan(Date.now());

    const down = await metrics();
    expect(down.value("netemu_dataplane_worker_deaths_total", { worker: "0" })).to.equal(5);
    expect(down.value("netemu_dataplane_worker_restarts_total", { worker: "0" })).to.equal(4);
    expect(down.value("netemu_dataplane_workers_given_up")).to.equal(1);
    expect(down.value("netemu_dataplane_dark_nodes")).to.equal(1);
    await p0.peer.send(frame, p0.lport);
    expect(await p1.peer.settle(200), "the dark switch forwards nothing").to.equal(1);
    // While dark, reads answer what is known (no counters, no MAC table) and a capture start is a clear refusal: never a 500.
    const node = await s.request("GET", base);
    expect(node.status, node.text).to.equal(200);
    expect(node.json.node_id).to.equal(sw.node_id);
    const macs = await s.request("GET", `${base}/mac_table`);
    expect([macs.status, macs.json]).to.deep.equal([200, []]);
    const capture = await s.request("POST", `${base}/adapters/0/ports/0/start_capture`, { capture_file_name: "dark.pcap", data_link_type: "DLT_EN10MB" });
    expect(capture.status, capture.text).to.equal(503);
    expect(capture.json.message).to.match(/worker 0 .*(down|given up)/i);
    expect((await s.request("GET", "/metrics")).status).to.equal(200);

    const restarted = await s.request("POST", "/v2/netemu/data-plane/restart");
    expect(restarted.status, restarted.text).to.equal(200);
    expect(restarted.json).to.deep.equal({ restarted_workers: [0], dark_workers: [] });
    const ready = await s.request("GET", "/v2/netemu/ready");
    expect(ready.status, ready.text).to.equal(200);
    expect(ready.json).to.deep.equal({ ready: true, unwritten_projects: [], dark_workers: [] });
    await p0.peer.send(frame, p0.lport);
    await p1.peer.waitFor(2);
    const back = await metrics();
    expect(back.value("netemu_dataplane_worker_restarts_total", { worker: "0" })).to.equal(5);
    expect(back.value("netemu_dataplane_workers_given_up")).to.equal(0);
    expect(back.value("netemu_dataplane_dark_nodes")).to.equal(0);
  });

  it("lets an embedder see it and bring it back through the use cases, without HTTP", async () => {
    const uc = s.netemu.useCases;
    for (let i = 0; i < 5; i++) await dp.sync(createEthernetSwitch({ nodeId: `cccccccc-0000-4000-8000-00000000000${i}`, projectId: PROJECT, name: `oom-${i}`, console: null, consoleType: "none", portsMapping: defaultPortsMapping() })).catch(() => undefined);
    const before = uc.checkReadiness.execute();
    expect(before.ready).to.equal(false);
    expect(before.darkWorkers.map((w) => [w.worker, w.state])).to.deep.equal([[0, "given_up"]]);
    const back = await uc.bringBackDataPlane.execute();
    expect(back).to.deep.equal({ restartedWorkers: [0], darkWorkers: [] });
    expect(uc.checkReadiness.execute()).to.deep.include({ ready: true, darkWorkers: [] });
  });
});
