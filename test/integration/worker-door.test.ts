import { expect } from "chai";
import type { Worker } from "node:worker_threads";
import * as E from "fp-ts/lib/Either.js";
import type { WorkerDataPlane } from "../../src/adapters/threads/data-plane/worker-data-plane.js";
import { type NodeChange, type WorkerReply, applyNodeChange, decodeWorkerRequest, nodeChange } from "../../src/adapters/threads/data-plane/protocol.js";
import type { DataPlaneWorkerData } from "../../src/adapters/threads/data-plane/data-plane-worker.js";
import { startWorker } from "../../src/adapters/threads/worker-start.js";
import type { PortCounters } from "../../src/application/ports/data-plane.js";
import { compileProgram } from "../../src/domain/bpf/index.js";
import type { ComputeNode } from "../../src/domain/switching/compute-node.js";
import { createEthernetSwitch, type EthernetSwitch } from "../../src/domain/switching/ethernet-switch.js";
import type { Nio } from "../../src/domain/switching/nio.js";
import type { PortMappingEntry } from "../../src/domain/switching/port.js";
import { RecordingLogger, TEST_DATA_PLANE_OPTIONS } from "../support/in-memory-data-plane.js";
import { TEST_TRANSPORT as TRANSPORT, testSwitchDataPlane, testWorkerDataPlane } from "../support/live-data-planes.js";
import { UdpPeer, ethernetFrame, freeUdpPort } from "../support/udp-peer.js";

/**
 * The worker boundary (ADR 0041, 0053): what crosses to a data-plane worker is parsed there, against
 * the record the worker keeps. A change it cannot take is answered as a Left, a message it cannot
 * read as a failed call; either way the worker lives on and answers the next call. Real sockets on
 * 127.0.0.1.
 */
const PROJECT = "2b2b2b2b-1111-4222-8333-444444444444";
const SW = "2b2b2b2b-0000-4000-8000-000000000001";
const OTHER = "2b2b2b2b-0000-4000-8000-000000000002";
const A = "00:50:79:66:68:01";
const B = "00:50:79:66:68:02";
const BROADCAST = "ff:ff:ff:ff:ff:ff";
const WORKER_SCRIPT = new URL("../../src/adapters/threads/data-plane/data-plane-worker.js", import.meta.url);

const access = (n: number, vlan = 1): PortMappingEntry => ({ name: `Ethernet${n}`, port_number: n, type: "access", vlan });
const udp = (lport: number, rport: number, filters: Record<string, unknown> = {}): Nio => ({ type: "nio_udp", lport, rhost: "127.0.0.1", rport, filters, suspend: false });

/** A switch record as it is, NIOs and all, whatever the domain's rules would have said of it. */
function record(nodeId: string, portsMapping: readonly PortMappingEntry[], nios: readonly [number, unknown][]): ComputeNode {
  const sw: EthernetSwitch = createEthernetSwitch({ nodeId, projectId: PROJECT, name: "SW", console: null, consoleType: "none", portsMapping });
  return { ...sw, nios: new Map(nios) as Map<number, Nio> };
}

/** A free UDP port on 127.0.0.1 (bound, then released). */
const refusalOf = (r: E.Either<unknown, unknown>): any => {
  if (E.isRight(r)) throw new Error("expected a Left");
  return r.left;
};

describe("the worker's door: applyNodeChange and decodeWorkerRequest", () => {
  const good = record(SW, [access(0), access(1), access(7)], [[7, udp(20000, 20001)]]);

  it("takes a whole node, and a change against the record it keeps", () => {
    expect(applyNodeChange(undefined, structuredClone(nodeChange(undefined, good)))).to.deep.equal(E.right(good));
    const next = record(SW, [access(0), access(1), access(7)], [[0, udp(20002, 20003)]]);
    expect(applyNodeChange(good, structuredClone(nodeChange(good, next)))).to.deep.equal(E.right(next));
  });

  it("refuses a node with a NIO on a port its mapping does not have, naming it as the change names its NIOs (nios[9], as nios[1].lport)", () => {
    const change = nodeChange(undefined, record(SW, [access(0)], [[9, udp(20000, 20001)]]));
    expect(applyNodeChange(undefined, structuredClone(change))).to.deep.equal(E.left({ _tag: "InvalidConfiguration", field: "nios[9]", rule: { rule: "port_not_in_mapping" }, got: 9 }));
  });

  it("refuses a new mapping that drops the port of a NIO the change did not send again", () => {
    const next = record(SW, [access(0), access(1)], [[7, udp(20000, 20001)]]);
    const change = nodeChange(good, next);
    expect(change.nios.size, "the NIO did not change, so it is not sent").to.equal(0);
    const refused = refusalOf(applyNodeChange(good, structuredClone(change)));
    expect(refused).to.deep.include({ rule: { rule: "port_not_in_mapping" }, got: 7 });
    expect(refused.field).to.match(/nios\[7\]$/);
  });

  it("refuses a port in VLAN 5000 and a malformed NIO, naming them", () => {
    expect(refusalOf(applyNodeChange(undefined, nodeChange(undefined, record(SW, [access(0, 5000)], []))))).to.deep.include({ field: "portsMapping[0].vlan", rule: { rule: "maximum", limit: 4094 } });
    const malformed = nodeChange(undefined, record(SW, [access(0), access(1)], [[1, { type: "nio_udp", lport: 0, rhost: "127.0.0.1", rport: 1, filters: {}, suspend: false }]]));
    expect(refusalOf(applyNodeChange(undefined, malformed))).to.deep.include({ field: "nios[1].lport", rule: { rule: "minimum", limit: 1 } });
    const noFilters = nodeChange(undefined, record(SW, [access(0)], [[0, { type: "nio_udp", lport: 1, rhost: "127.0.0.1", rport: 1, filters: { delay: "5" }, suspend: false }]]));
    expect(refusalOf(applyNodeChange(undefined, noFilters))).to.deep.include({ _tag: "InvalidFilterSettings", field: "nios[0].filters" });
  });

  it("refuses base last when it keeps no record of the node, or one of another type", () => {
    const change = nodeChange(good, record(SW, [access(0)], []));
    expect(applyNodeChange(undefined, change)).to.deep.equal(E.left({ _tag: "InvalidConfiguration", field: "base", rule: { rule: "one_of", choices: ["none"] }, got: "last" }));
    const hub = { nodeType: "ethernet_hub", nodeId: SW, projectId: PROJECT, name: "H", status: "started", portsMapping: [{ name: "E", port_number: 0 }], nios: new Map() } as ComputeNode;
    expect(refusalOf(applyNodeChange(hub, change))).to.deep.include({ field: "base", rule: { rule: "one_of", choices: ["none", "last"] } });
    expect(refusalOf(applyNodeChange(good, { ...change, base: "previous" }))).to.deep.include({ field: "base" });
  });

  it("refuses a change whose parts are not what a change holds", () => {
    const change = nodeChange(undefined, good) as unknown as Record<string, unknown>;
    for (const [what, broken, field] of [
      ["no object", null, "change"],
      ["no fields", { ...change, fields: undefined }, "fields"],
      ["nios as an object", { ...change, nios: { 7: udp(1, 2) } }, "nios"],
      ["removed as a number", { ...change, removed: 7 }, "removed"],
      ["removed holding text", { ...change, removed: ["7"] }, "removed"],
    ] as const) {
      expect(refusalOf(applyNodeChange(undefined, broken)), what).to.deep.include({ _tag: "InvalidConfiguration", field });
    }
  });

  it("reads a call it knows with arguments of their kinds, and answers anything else as a malformed call", () => {
    const change = nodeChange(undefined, good);
    const program = compileProgram(["icmp"]);
    if (E.isLeft(program)) throw new Error(program.left.message);
    expect(decodeWorkerRequest({ id: 3, op: "sync", args: [change, [program.right]] })).to.deep.equal(E.right({ id: 3, op: "sync", args: [change, [program.right]] }));
    for (const programs of ["icmp", [null], [{ lines: ["icmp"] }], [{ lines: ["icmp"], sources: [] }], [{ lines: [1], sources: ["x"] }], { 0: program.right }]) {
      expect(decodeWorkerRequest({ id: 4, op: "sync", args: [change, programs] }), JSON.stringify(programs)).to.deep.equal(E.left({ id: 4, error: "malformed arguments for sync" }));
    }
    expect(decodeWorkerRequest(42)).to.deep.equal(E.left({ id: -1, error: "malformed message" }));
    expect(decodeWorkerRequest({ op: "counters", args: [SW] })).to.deep.equal(E.left({ id: -1, error: "malformed message: no call id" }));
    expect(decodeWorkerRequest({ id: 5, op: "reboot", args: [] })).to.deep.equal(E.left({ id: 5, error: "malformed call reboot" }));
    expect(decodeWorkerRequest({ id: 6, op: "start", args: [SW, 70_000, "/tmp/x.pcap"] })).to.deep.equal(E.left({ id: 6, error: "malformed arguments for start" }));
    expect(decodeWorkerRequest({ id: 7, op: "counters", args: ["x".repeat(5000)] })).to.deep.equal(E.left({ id: 7, error: "malformed arguments for counters" }));
  });

  it("reads a node's state handed over by another worker only in the shape a hand-over gives, and the hand-over of a node by its id", () => {
    const change = nodeChange(undefined, good);
    const held = { frames: [{ frame: Uint8Array.of(1, 2), departureMs: 5 }], lastDepartureMs: 5 };
    const chain = { frequencyCounter: 0, corruptPosition: 0, fates: { loses: false, corrupts: false, duplicates: false, reorders: false } };
    const port = { portNumber: 0, counters: { framesIn: 1 }, faults: 0, chains: { ingress: chain }, held: { ingress: held, egress: held } };
    const state = { nodeId: SW, learned: [{ vlan: 1, mac: 1, port: 0, lastSeenMs: 1 }], ports: [port] };
    expect(decodeWorkerRequest({ id: 8, op: "takeOver", args: [change, [], state] })).to.deep.equal(E.right({ id: 8, op: "takeOver", args: [change, [], state] }));
    expect(decodeWorkerRequest({ id: 9, op: "handOver", args: [SW] })).to.deep.equal(E.right({ id: 9, op: "handOver", args: [SW] }));
    // A line holding sub-ms delays hands its precise mode over with its frames (ADR 0101).
    const precise = { ...state, ports: [{ ...port, held: { ingress: { ...held, precise: true }, egress: held } }] };
    expect(decodeWorkerRequest({ id: 8, op: "takeOver", args: [change, [], precise] })).to.deep.equal(E.right({ id: 8, op: "takeOver", args: [change, [], precise] }));
    for (const [what, broken] of [
      ["no state", undefined],
      ["no node id", { ...state, nodeId: 7 }],
      ["a learned row without its time", { ...state, learned: [{ vlan: 1, mac: 1, port: 0 }] }],
      ["a port numbered past 65535", { ...state, ports: [{ ...port, portNumber: 70_000 }] }],
      ["a held frame as text", { ...state, ports: [{ ...port, held: { ...port.held, egress: { frames: [{ frame: "ab", departureMs: 1 }], lastDepartureMs: 1 } } }] }],
      ["a departure that is no time", { ...state, ports: [{ ...port, held: { ...port.held, ingress: { frames: [], lastDepartureMs: Number.NaN } } }] }],
      ["a precise mode that is not true or false (ADR 0101)", { ...state, ports: [{ ...port, held: { ...port.held, ingress: { ...held, precise: "yes" } } }] }],
      ["a chain without its fates", { ...state, ports: [{ ...port, chains: { ingress: { frequencyCounter: 0, corruptPosition: 0 } } }] }],
      ["more ports than a node has", { ...state, ports: Array.from({ length: 100_000 }, () => port) }],
    ] as const) {
      expect(decodeWorkerRequest({ id: 10, op: "takeOver", args: [change, [], broken] }), what).to.deep.equal(E.left({ id: 10, error: "malformed arguments for takeOver" }));
    }
    expect(decodeWorkerRequest({ id: 11, op: "handOver", args: [42] })).to.deep.equal(E.left({ id: 11, error: "malformed arguments for handOver" }));
  });

  it("reads a bandwidth queue handed over with its node (ADR 0100) only in the shape a hand-over gives", () => {
    const change = nodeChange(undefined, good);
    const held = { frames: [], lastDepartureMs: 5 };
    const chain = { frequencyCounter: 0, corruptPosition: 0, fates: { loses: false, corrupts: false, duplicates: false, reorders: false } };
    const counters = { codelDrops: 0, overlimitDrops: 0, ecnMarks: 0, sentFrames: 1, sojournSumMs: 0, sojournMaxMs: 0, lastSojournMs: 0 };
    const queue = {
      frames: [{ frame: Uint8Array.of(1, 2), enqueuedMs: 5 }],
      inFlight: { frame: Uint8Array.of(3), doneMs: 9 },
      freeAtMs: 9,
      rateKbps: 800,
      codel: { firstAboveMs: 0, dropNextMs: 0, count: 0, lastCount: 0, dropping: false },
      counters,
    };
    const port = { portNumber: 0, counters: { framesIn: 1 }, faults: 0, chains: { ingress: chain }, held: { ingress: held, egress: held }, queues: { egress: queue } };
    const state = { nodeId: SW, learned: [], ports: [port] };
    expect(decodeWorkerRequest({ id: 12, op: "takeOver", args: [change, [], state] })).to.deep.equal(E.right({ id: 12, op: "takeOver", args: [change, [], state] }));
    // An idle transmitter's free time is −Infinity: a time all the same.
    const idle = { ...state, ports: [{ ...port, queues: { ingress: { ...queue, freeAtMs: Number.NEGATIVE_INFINITY } } }] };
    expect(decodeWorkerRequest({ id: 12, op: "takeOver", args: [change, [], idle] })).to.deep.equal(E.right({ id: 12, op: "takeOver", args: [change, [], idle] }));
    const broken = (q: Record<string, unknown>) => ({ ...state, ports: [{ ...port, queues: { egress: { ...queue, ...q } } }] });
    for (const [what, bad] of [
      ["queues that are not an object", { ...state, ports: [{ ...port, queues: 3 }] }],
      ["a queued frame as text", broken({ frames: [{ frame: "ab", enqueuedMs: 1 }] })],
      ["an enqueue time that is no time", broken({ frames: [{ frame: Uint8Array.of(1), enqueuedMs: Number.NaN }] })],
      ["a frame in flight without its time", broken({ inFlight: { frame: Uint8Array.of(1) } })],
      ["no free time", broken({ freeAtMs: undefined })],
      ["no counters", broken({ counters: undefined })],
      ["a CoDel state that is not an object", broken({ codel: "dropping" })],
    ] as const) {
      expect(decodeWorkerRequest({ id: 13, op: "takeOver", args: [change, [], bad] }), what).to.deep.equal(E.left({ id: 13, error: "malformed arguments for takeOver" }));
    }
  });
});

describe("the worker's door, for a node's trace positions (ADR 0103, issue 29)", () => {
  const good = record(SW, [access(0), access(1)], []);

  it("reads a chain's trace positions handed over with its node only in the shape a hand-over gives", () => {
    const change = nodeChange(undefined, good);
    const held = { frames: [], lastDepartureMs: 5 };
    const link = { startMs: 1_000, cursor: 3, leftBytes: 986, deliveriesMs: [1_100, 1_125], periodMs: 25, opportunities: 1 };
    const traces = { capacity: { egress: link }, delayStartMs: 1_000, lossStartMs: 1_000 };
    const chainWith = (t: unknown) => ({ frequencyCounter: 0, corruptPosition: 0, fates: { loses: false, corrupts: false, duplicates: false, reorders: false }, traces: t });
    const stateWith = (t: unknown) => ({ nodeId: SW, learned: [], ports: [{ portNumber: 0, counters: { framesIn: 1 }, faults: 0, chains: { ingress: chainWith(t) }, held: { ingress: held, egress: held } }] });
    for (const fine of [traces, { delayStartMs: 1_000 }, { capacity: { ingress: { ...link, cursor: -1, deliveriesMs: [] } } }]) {
      const state = stateWith(fine);
      expect(decodeWorkerRequest({ id: 14, op: "takeOver", args: [change, [], state] }), JSON.stringify(fine)).to.deep.equal(E.right({ id: 14, op: "takeOver", args: [change, [], state] }));
    }
    const brokenLink = (l: Record<string, unknown>) => ({ capacity: { egress: { ...link, ...l } } });
    for (const [what, bad] of [
      ["trace positions that are not an object", 3],
      ["a capacity part that is not an object", { capacity: "here" }],
      ["a capacity trace's start that is no time", brokenLink({ startMs: Number.NaN })],
      ["a capacity trace's start without end", brokenLink({ startMs: Number.POSITIVE_INFINITY })],
      ["an opportunity that is not a whole number", brokenLink({ cursor: 1.5 })],
      ["leftover bytes as text", brokenLink({ leftBytes: "986" })],
      ["no trace period", brokenLink({ periodMs: undefined })],
      ["no opportunity count", brokenLink({ opportunities: undefined })],
      ["delivery times that are not a list", brokenLink({ deliveriesMs: 1_100 })],
      ["a delivery time that is no time", brokenLink({ deliveriesMs: [1_100, Number.NaN] })],
      ["more frames waiting than any queue bound", brokenLink({ deliveriesMs: Array.from({ length: 100_001 }, () => 1_100) })],
      ["a delay trace's start as text", { delayStartMs: "1000" }],
      ["a loss trace's start that is no time", { lossStartMs: Number.NaN }],
    ] as const) {
      expect(decodeWorkerRequest({ id: 15, op: "takeOver", args: [change, [], stateWith(bad)] }), what).to.deep.equal(E.left({ id: 15, error: "malformed arguments for takeOver" }));
    }
  });
});

/** A data-plane worker driven by hand: what any message, well formed or not, does to it. */
class RawWorker {
  readonly worker: Worker;
  exitCode: number | undefined;
  private readonly waiting = new Map<number, (r: WorkerReply) => void>();

  constructor() {
    const data: DataPlaneWorkerData = { dataPlane: TEST_DATA_PLANE_OPTIONS, transport: TRANSPORT };
    this.worker = startWorker(WORKER_SCRIPT, data);
    this.worker.on("message", (m: WorkerReply | { event: string }) => {
      if ("event" in m) return;
      const resolve = this.waiting.get(m.id);
      this.waiting.delete(m.id);
      resolve?.(m);
    });
    this.worker.on("exit", (code) => (this.exitCode = code));
  }

  /** Posts `message` and waits for the answer to `id` (-1 for a message without one). */
  ask(message: unknown, id: number): Promise<WorkerReply> {
    return new Promise((resolve, reject) => {
      const timer = setTimeout(() => reject(new Error(`no answer to call ${id} (worker exit code ${this.exitCode})`)), 5000);
      this.waiting.set(id, (r) => {
        clearTimeout(timer);
        resolve(r);
      });
      this.worker.postMessage(message);
    });
  }

  async close(): Promise<void> {
    if (this.exitCode === undefined) await this.ask({ id: 999_999, op: "close", args: [] }, 999_999).catch(() => undefined);
    await this.worker.terminate();
  }
}

describe("a data-plane worker thread at its door (real sockets on 127.0.0.1)", function () {
  this.timeout(30_000);
  const opened: UdpPeer[] = [];
  afterEach(async () => void (await Promise.all(opened.splice(0).map((p) => p.close()))));

  async function peers(count: number): Promise<UdpPeer[]> {
    const made = await Promise.all(Array.from({ length: count }, () => UdpPeer.open()));
    opened.push(...made);
    return made;
  }

  describe("driven by raw messages", () => {
    let w: RawWorker;
    beforeEach(() => (w = new RawWorker()));
    afterEach(async () => w.close());

    it("answers each change it cannot take with a Left, each malformed call with an error, and still switches frames after", async () => {
      const [p0, p1] = (await peers(2)) as [UdpPeer, UdpPeer];
      const lports = [await freeUdpPort(), await freeUdpPort()] as const;
      const node = record(SW, [access(0), access(1)], [
        [0, udp(lports[0], p0.port)],
        [1, udp(lports[1], p1.port)],
      ]);
      let id = 1;
      const sync = (change: unknown, programs: unknown = []) => w.ask({ id, op: "sync", args: [change, programs] }, id++);
      expect(await sync(nodeChange(undefined, node))).to.deep.equal({ id: 1, value: { _tag: "Right", right: undefined } });

      const lefts: [string, unknown, string][] = [
        ["a NIO on a port not in the mapping", nodeChange(node, record(SW, [access(0), access(1)], [...node.nios, [5, udp(1, 2)]])), "nios[5]"],
        ["a port in VLAN 5000", nodeChange(node, record(SW, [access(0, 5000), access(1)], [...node.nios])), "portsMapping[0].vlan"],
        ["a malformed NIO", nodeChange(node, record(SW, [access(0), access(1)], [[0, { type: "nio_udp", lport: "x" }], [1, node.nios.get(1)]])), "nios[0].lport"],
        ["base last for a node it never took", nodeChange(node, record(OTHER, [access(0)], [])), "base"],
        ["fields that are not a record's", { ...nodeChange(undefined, node), fields: { nodeId: SW } }, "fields.nodeType"],
      ];
      for (const [what, change, field] of lefts) {
        const reply = await sync(change);
        expect(reply, what).to.have.property("value");
        expect((reply as { value: E.Either<{ field?: string }, void> }).value, what).to.deep.include({ _tag: "Left" });
        // Where the change holds it (the naming of a NIO off the mapping is the unit test's to pin).
        expect(((reply as { value: E.Left<{ field?: string }> }).value.left as { field?: string }).field, what).to.match(new RegExp(`(^|\\.)${field.replace(/[[\].]/g, "\\$&")}$`));
      }

      const errors: [string, unknown, number][] = [
        ["programs that are not programs", { id: 100, op: "sync", args: [nodeChange(node, node), "programs"] }, 100],
        ["programs missing their sources", { id: 101, op: "sync", args: [nodeChange(node, node), [{ lines: ["icmp"] }]] }, 101],
        ["a message that is not a call", "sync everything", -1],
        ["a call it does not know", { id: 102, op: "format_disk", args: [] }, 102],
        ["a change that is nothing at all", { id: 103, op: "sync", args: [null, []] }, 103],
      ];
      for (const [what, message, callId] of errors) {
        const reply = await w.ask(message, callId);
        // A change that is nothing may be read as a Left too: what matters is an answer, not a crash.
        const answered = "error" in reply ? "error" : E.isLeft((reply as { value: E.Either<unknown, unknown> }).value) ? "Left" : "Right";
        expect(answered, what).to.be.oneOf(callId === 103 ? ["error", "Left"] : ["error"]);
      }
      expect(w.exitCode, "the worker did not die").to.equal(undefined);

      // The node is as last taken: it switches, counts, and takes the next good change.
      const frame = ethernetFrame(BROADCAST, A, { payload: 46 });
      await p0.send(frame, lports[0]);
      expect((await p1.waitFor(1))[0]?.equals(frame)).to.equal(true);
      const counters = await w.ask({ id: 200, op: "counters", args: [SW] }, 200);
      expect((counters as { value: ReadonlyMap<number, PortCounters> }).value.get(0)).to.deep.include({ framesIn: 1 });
      const without1 = record(SW, [access(0), access(1)], [[0, node.nios.get(0)]]);
      expect(await sync(nodeChange(node, without1))).to.deep.include({ value: { _tag: "Right", right: undefined } });
      expect(await w.ask({ id: 201, op: "eventLoopDelay", args: [] }, 201)).to.have.property("value");
    });

    it("runs a program whose source is not a matcher from its lines instead (instantiateProgram compiles them again), and takes the right program after", async () => {
      const [p0] = (await peers(1)) as [UdpPeer];
      const lport = await freeUdpPort();
      const node = record(SW, [access(0)], [[0, udp(lport, p0.port, { bpf: ["icmp"] })]]);
      const compiled = compileProgram(["icmp"]);
      if (E.isLeft(compiled)) throw new Error(compiled.left.message);
      const broken = await w.ask({ id: 1, op: "sync", args: [nodeChange(undefined, node), [{ lines: ["icmp"], sources: ["this is not javascript {"] }]] }, 1);
      expect(broken).to.deep.equal({ id: 1, value: { _tag: "Right", right: undefined } });
      expect(w.exitCode).to.equal(undefined);
      expect(await w.ask({ id: 2, op: "sync", args: [nodeChange(undefined, node), [compiled.right]] }, 2)).to.deep.equal({ id: 2, value: { _tag: "Right", right: undefined } });
    });
  });

  describe("through WorkerDataPlane (one worker)", () => {
    let dp: WorkerDataPlane;
    let logger: RecordingLogger;
    beforeEach(() => {
      logger = new RecordingLogger();
      dp = testWorkerDataPlane({ workers: 1, logger });
    });
    afterEach(async () => dp.close());

    it("answers a record the worker cannot take with a Left, keeps the node as last synced, and takes the next good one", async () => {
      const [p0, p1] = (await peers(2)) as [UdpPeer, UdpPeer];
      const lports = [await freeUdpPort(), await freeUdpPort()] as const;
      const node = record(SW, [access(0), access(1)], [
        [0, udp(lports[0], p0.port)],
        [1, udp(lports[1], p1.port)],
      ]);
      expect(await dp.sync(node)).to.deep.equal(E.right(undefined));

      const bad: [string, ComputeNode, string][] = [
        ["a NIO on a port not in the mapping", record(SW, [access(0), access(1)], [...node.nios, [9, udp(1, 2)]]), "nios[9]"],
        ["a port in VLAN 5000", record(SW, [access(0), access(1, 5000)], [...node.nios]), "portsMapping[1].vlan"],
        ["a malformed NIO", record(SW, [access(0), access(1)], [[0, node.nios.get(0)], [1, { ...udp(lports[1], p1.port), rhost: "" }]]), "nios[1].rhost"],
      ];
      for (const [what, record, field] of bad) {
        const r = await dp.sync(record);
        expect(refusalOf(r), what).to.deep.include({ _tag: "InvalidConfiguration" });
        expect(refusalOf(r).field, what).to.match(new RegExp(`(^|\\.)${field.replace(/[[\].]/g, "\\$&")}$`));
      }
      // A node the worker never took, refused whole: the worker takes others all the same.
      expect(refusalOf(await dp.sync(record(OTHER, [access(0, 4095)], [])))).to.deep.include({ field: "portsMapping[0].vlan" });

      const frame = ethernetFrame(BROADCAST, A, { payload: 46 });
      await p0.send(frame, lports[0]);
      expect((await p1.waitFor(1))[0]?.equals(frame), "still switching as last synced").to.equal(true);
      const dropped = record(SW, [access(0), access(1)], [[0, node.nios.get(0)], [1, udp(lports[1], p1.port, { frequency_drop: [-1] })]]);
      expect(await dp.sync(dropped)).to.deep.equal(E.right(undefined));
      await p0.send(frame, lports[0]);
      expect(await p1.settle(200), "the good change after the refusals applies").to.equal(1);
      expect((await dp.counters(SW)).get(0)).to.deep.include({ framesIn: 2 });
      expect(logger.lines.filter((l) => l.level === "error")).to.deep.equal([]);
    });
  });

  describe("the same node in a worker and on this thread", () => {
    /** Port 0 and 1 in VLAN 1, port 2 in VLAN 2; every third frame of port 0 dropped, B's frames dropped on port 1. */
    function lab(lports: readonly number[], peers: readonly UdpPeer[]): ComputeNode {
      return record(SW, [access(0), access(1), access(2, 2)], [
        [0, udp(lports[0] as number, (peers[0] as UdpPeer).port, { frequency_drop: [3] })],
        [1, udp(lports[1] as number, (peers[1] as UdpPeer).port, { bpf: [`ether src ${B}`] })],
        [2, udp(lports[2] as number, (peers[2] as UdpPeer).port)],
      ]);
    }

    /** The same frames each time, one peer after the other; answers the live counters once they settle. */
    async function traffic(counters: () => Promise<ReadonlyMap<number, PortCounters>>, lports: readonly number[], peers: readonly UdpPeer[]) {
      const script: [number, Buffer, number][] = [
        [0, ethernetFrame(BROADCAST, A, { payload: 60 }), 10],
        [0, ethernetFrame(BROADCAST, B, { payload: 80 }), 5],
        [1, ethernetFrame(A, "00:50:79:66:68:03", { payload: 100 }), 4],
        [2, ethernetFrame(BROADCAST, "00:50:79:66:68:04", { payload: 46 }), 3],
      ];
      for (const [port, frame, times] of script) {
        for (let i = 0; i < times; i++) await (peers[port] as UdpPeer).send(frame, lports[port] as number);
        await (peers[0] as UdpPeer).settle(100);
      }
      await (peers[0] as UdpPeer).settle(200);
      return new Map([...(await counters())].sort(([a], [b]) => a - b));
    }

    it("counts the same frames alike whether the node was synced through the worker or through structuredClone", async () => {
      const far = await peers(3);
      const lports = [await freeUdpPort(), await freeUdpPort(), await freeUdpPort()];
      const node = lab(lports, far);

      const workers = testWorkerDataPlane({ workers: 1 });
      let inWorker: ReadonlyMap<number, PortCounters>;
      try {
        expect(await workers.sync(node)).to.deep.equal(E.right(undefined));
        inWorker = await traffic(() => workers.counters(SW), lports, far);
      } finally {
        await workers.close();
      }

      const cloned = applyNodeChange(undefined, structuredClone(nodeChange(undefined, node) as NodeChange));
      if (E.isLeft(cloned)) throw new Error(JSON.stringify(cloned.left));
      expect(cloned.right).to.deep.equal(node);
      // The datagram path the worker chose too (npm test runs this file on both): only the door differs.
      const here = testSwitchDataPlane();
      let onThisThread: ReadonlyMap<number, PortCounters>;
      try {
        expect(await here.sync(cloned.right)).to.deep.equal(E.right(undefined));
        onThisThread = await traffic(() => here.counters(SW), lports, far);
      } finally {
        await here.close();
      }

      expect(onThisThread).to.deep.equal(inWorker);
      // Not a vacuous match: the filters and VLANs shaped what was counted.
      expect(inWorker.get(0)).to.deep.include({ framesIn: 15 });
      expect(inWorker.get(1)?.framesOut, "every third frame of port 0 and B's frames dropped").to.be.within(1, 9);
      expect(inWorker.get(2)).to.deep.include({ framesIn: 3, framesOut: 0 });
    });
  });
});
