import "reflect-metadata";
import { parentPort, workerData } from "node:worker_threads";
import { monitorEventLoopDelay } from "node:perf_hooks";
import * as E from "fp-ts/lib/Either.js";
import { SwitchDataPlane, type DataPlaneOptions } from "../../../application/dataplane/switch-data-plane.js";
import type { ComputeNotification, Notifications } from "../../../application/ports/notifications.js";
import type { Logger } from "../../../application/ports/system.js";
import type { LoopDelay } from "../../../application/ports/data-plane.js";
import type { BpfPrograms } from "../../../application/ports/bpf-compiler.js";
import { TraceShelf } from "../../../application/traces/trace-shelf.js";
import { type BpfProgram, compileProgram } from "../../../domain/bpf/index.js";
import { expressionText } from "../../../domain/filters/filter-settings.js";
import type { DgramOptions } from "../../transport/dgram-udp-transport.js";
import { chooseUdpTransport } from "../../transport/batched-udp-transport.js";
import { withInProcessLinks } from "../../transport/datagram-path.js";
import { chooseHostDevices } from "../../transport/host-devices.js";
import { PcapFileSink } from "../../capture/pcap-file-sink.js";
import { SystemClock } from "../../system/system-clock.js";
import { NodeTimers, SeededRandomFactory } from "../../system/node-timers.js";
import type { ComputeNode } from "../../../domain/switching/compute-node.js";
import { PROGRAMS_KNOWN_SENT, type DataPlaneWorkerCalls, type NodeFrameRate, type WorkerEvent, type WorkerReply, type WorkerRequest, applyNodeChange, decodeWorkerRequest, frameRates, idleAsBefore } from "./protocol.js";
import { LoopDelaySampler } from "./loop-delay-sampler.js";

/**
 * A data-plane worker thread (ADR 0041): the composition root of one SwitchDataPlane with its
 * sockets, timers and captures, answering the calls of `data-plane-protocol.ts`; its notifications
 * and log lines go back as events.
 */
export interface DataPlaneWorkerData {
  readonly dataPlane: DataPlaneOptions;
  readonly transport: DgramOptions;
  /** How often the worker reports each node's frame rate (ADR 0069); 0 reports nothing. */
  readonly loadIntervalMs?: number;
}

const port = parentPort;
if (port === null) throw new Error("data-plane-worker.js runs as a worker thread");
const data = workerData as DataPlaneWorkerData;
const tell = (event: WorkerEvent): void => port.postMessage(event);

/** A log line of this level goes to the main thread's logger. */
const relay =
  (level: keyof Logger): Logger[keyof Logger] =>
  (msg, fields) =>
    tell(fields === undefined ? { event: "log", level, msg } : { event: "log", level, msg, fields });
const logger: Logger = { debug: relay("debug"), info: relay("info"), warn: relay("warn"), error: relay("error") };
const notifications: Notifications = {
  publish: (notification: ComputeNotification) => tell({ event: "notification", notification }),
  subscribe: () => () => undefined,
};

/**
 * The programs the main thread compiled, as its sync calls bring them (ADR 0054). One that did not
 * come is compiled here, once: it costs this thread's frames the compile, so it is logged.
 */
class ReceivedPrograms implements BpfPrograms {
  /** Least recently used first; twice what the main thread counts on (PROGRAMS_KNOWN_SENT). */
  private readonly byText = new Map<string, BpfProgram>();

  receive(programs: readonly BpfProgram[]): void {
    for (const program of programs) this.keep(expressionText(program.lines), program);
  }

  private keep(text: string, program: BpfProgram): void {
    this.byText.delete(text);
    this.byText.set(text, program);
    if (this.byText.size > 2 * PROGRAMS_KNOWN_SENT) this.byText.delete(this.byText.keys().next().value as string);
  }

  async program(lines: readonly string[]): Promise<E.Either<{ line: number; message: string }, BpfProgram>> {
    const text = expressionText(lines);
    const known = this.byText.get(text);
    if (known !== undefined) {
      this.keep(text, known);
      return E.right(known);
    }
    logger.warn("a filter's program was compiled on the data-plane thread", { lines: lines.length });
    const compiled = compileProgram(lines);
    if (E.isRight(compiled)) this.keep(text, compiled.right);
    return compiled;
  }
}

const programs = new ReceivedPrograms();
// The traces the main thread's syncs brought (ADR 0103).
const traces = new TraceShelf();
const dataPlane = new SwitchDataPlane(
  // The same choice as the main thread's (ADR 0068): each worker loads the addon into its own loop,
  // and its links between two of its own NIOs skip the kernel, by the same rule (ADR 0105).
  withInProcessLinks(chooseUdpTransport(data.transport), data.transport),
  new PcapFileSink(),
  new SystemClock(),
  new NodeTimers(),
  new SeededRandomFactory(),
  programs,
  logger,
  data.dataPlane,
  notifications,
  // nio_tap and nio_ethernet open their devices in this worker's own loop, by the same rule (ADR 0083).
  chooseHostDevices(),
  traces,
);

// This thread's event-loop delay, where its frames wait (10 ms resolution, as prom-client's for the main
// thread), sampled while frames move (ADR 0113).
const loopDelay = new LoopDelaySampler(monitorEventLoopDelay({ resolution: 10 }));

// Each node's frame rate, reported every interval: what the main thread places nodes by (ADR 0069).
// The same reading turns the delay's sampling on and off; a report as idle as the last one stays unsent.
const loadIntervalMs = data.loadIntervalMs ?? 1000;
if (loadIntervalMs > 0) {
  let before = dataPlane.frameTotals();
  let at = performance.now();
  let sent: NodeFrameRate[] | undefined;
  // Unref'd: reporting must not keep an idle worker alive.
  setInterval(() => {
    const now = dataPlane.frameTotals();
    const t = performance.now();
    const loads = frameRates(before, now, (t - at) / 1000);
    loopDelay.carrying(loads.some((load) => load.framesPerSecond > 0));
    if (!idleAsBefore(sent, loads)) tell({ event: "loads", loads });
    sent = loads;
    before = now;
    at = t;
  }, loadIntervalMs).unref();
} else {
  // No load readings to go by: sampled all along.
  loopDelay.carrying(true);
}

/** Each node's record as last synced here: what the next change applies to. */
const records = new Map<string, ComputeNode>();

/** The calls the main thread may make, typed by the protocol's one declaration. */
const calls: DataPlaneWorkerCalls = {
  sync: async (change, received, brought) => {
    traces.receive(brought);
    // Which record the change applies to; whether it is a change at all is applyNodeChange's to say.
    const fields = typeof change === "object" && change !== null ? (change as { fields?: unknown }).fields : undefined;
    const nodeId = typeof fields === "object" && fields !== null ? (fields as { nodeId?: unknown }).nodeId : undefined;
    // Kept whatever becomes of the change: the main thread counts on this worker holding them now.
    programs.receive(received);
    const node = applyNodeChange(typeof nodeId === "string" ? records.get(nodeId) : undefined, change);
    if (E.isLeft(node)) return node;
    const synced = await dataPlane.sync(node.right);
    if (E.isRight(synced)) records.set(node.right.nodeId, node.right);
    return synced;
  },
  handOver: async (nodeId) => {
    const handed = await dataPlane.handOver(nodeId);
    if (E.isRight(handed)) records.delete(nodeId);
    return handed;
  },
  takeOver: async (change, received, state, brought) => {
    traces.receive(brought);
    programs.receive(received);
    const node = applyNodeChange(undefined, change);
    if (E.isLeft(node)) return node;
    const synced = await dataPlane.takeOver(node.right, state);
    if (E.isRight(synced)) records.set(node.right.nodeId, node.right);
    return synced;
  },
  removeNode: (nodeId) => {
    records.delete(nodeId);
    return dataPlane.removeNode(nodeId);
  },
  counters: (nodeId) => dataPlane.counters(nodeId),
  macTable: (nodeId) => dataPlane.macTable(nodeId),
  start: (nodeId, portNumber, filePath) => dataPlane.start(nodeId, portNumber, filePath),
  stop: (nodeId, portNumber) => dataPlane.stop(nodeId, portNumber),
  fileOf: (nodeId, portNumber) => dataPlane.fileOf(nodeId, portNumber),
  close: () => dataPlane.close(),
  eventLoopDelay: async (): Promise<Omit<LoopDelay, "worker">> => loopDelay.reading(),
};

/** Runs a decoded call: the one place the request's op picks the method with its own arguments. */
function run(request: WorkerRequest): Promise<unknown> {
  const method = calls[request.op] as (...args: WorkerRequest["args"]) => Promise<unknown>;
  return method(...request.args);
}

const reply = (r: WorkerReply): void => port.postMessage(r);

port.on("message", (m: unknown) => {
  const request = decodeWorkerRequest(m);
  if (E.isLeft(request)) return reply(request.left);
  run(request.right).then(
    (value) => reply({ id: request.right.id, value: value as WorkerReply extends { value: infer V } ? V : never }),
    (err: unknown) => reply({ id: request.right.id, error: err instanceof Error ? (err.stack ?? err.message) : String(err) }),
  );
});
