import "reflect-metadata";
import { parentPort, workerData } from "node:worker_threads";
import { monitorEventLoopDelay } from "node:perf_hooks";
import { SwitchDataPlane, type DataPlaneOptions } from "../application/dataplane/switch-data-plane.js";
import type { ComputeNotification, Notifications } from "../application/ports/notifications.js";
import type { Logger } from "../application/ports/system.js";
import type { LoopDelay } from "../application/ports/data-plane.js";
import { DgramUdpTransport, type DgramOptions } from "./transport/dgram-udp-transport.js";
import { PcapFileSink } from "./capture/pcap-file-sink.js";
import { SystemClock } from "./system/system-clock.js";
import { NodeTimers, SeededRandomFactory } from "./system/node-timers.js";
import { compileBpf } from "./bpf-check.js";

/**
 * A data-plane worker thread (ADR 0041): the composition root of one SwitchDataPlane with its
 * sockets, timers and captures, driven by the main thread's messages ({id, op, args} → {id, value}
 * or {id, error}); its notifications and log lines go back as events.
 */
export interface DataPlaneWorkerData {
  readonly dataPlane: DataPlaneOptions;
  readonly transport: DgramOptions;
}

const port = parentPort;
if (port === null) throw new Error("data-plane-worker.js runs as a worker thread");
const data = workerData as DataPlaneWorkerData;

/** A log line of this level goes to the main thread's logger. */
const relay =
  (level: keyof Logger): Logger[keyof Logger] =>
  (msg, fields) =>
    port.postMessage({ event: "log", level, msg, fields });
const logger: Logger = { debug: relay("debug"), info: relay("info"), warn: relay("warn"), error: relay("error") };
const notifications: Notifications = {
  publish: (notification: ComputeNotification) => port.postMessage({ event: "notification", notification }),
  subscribe: () => () => undefined,
};
const dataPlane = new SwitchDataPlane(
  new DgramUdpTransport(data.transport),
  new PcapFileSink(),
  new SystemClock(),
  new NodeTimers(),
  new SeededRandomFactory(),
  compileBpf,
  logger,
  data.dataPlane,
  notifications,
);

// This thread's event-loop delay, where its frames wait (10 ms resolution, as prom-client's for the main thread).
const loopDelay = monitorEventLoopDelay({ resolution: 10 });
loopDelay.enable();
const seconds = (ns: number): number => (loopDelay.count === 0 ? NaN : ns / 1e9);

/** The delay since the previous reading, which starts the next one. */
async function readLoopDelay(): Promise<Omit<LoopDelay, "worker">> {
  const reading = {
    minSeconds: seconds(loopDelay.min),
    meanSeconds: seconds(loopDelay.mean),
    p50Seconds: seconds(loopDelay.percentile(50)),
    p90Seconds: seconds(loopDelay.percentile(90)),
    p99Seconds: seconds(loopDelay.percentile(99)),
    maxSeconds: seconds(loopDelay.max),
  };
  loopDelay.reset();
  return reading;
}

/** The calls the main thread may make: the DataPlane, PacketCaptures and DataPlaneThreads ports. */
const OPS = {
  sync: (node: Parameters<SwitchDataPlane["sync"]>[0]) => dataPlane.sync(node),
  removeNode: (nodeId: string) => dataPlane.removeNode(nodeId),
  counters: (nodeId: string) => dataPlane.counters(nodeId),
  macTable: (nodeId: string) => dataPlane.macTable(nodeId),
  start: (nodeId: string, portNumber: number, filePath: string) => dataPlane.start(nodeId, portNumber, filePath),
  stop: (nodeId: string, portNumber: number) => dataPlane.stop(nodeId, portNumber),
  fileOf: (nodeId: string, portNumber: number) => dataPlane.fileOf(nodeId, portNumber),
  close: () => dataPlane.close(),
  eventLoopDelay: () => readLoopDelay(),
} as const;

port.on("message", (m: { id: number; op: keyof typeof OPS; args: unknown[] }) => {
  const op = OPS[m.op] as (...args: unknown[]) => Promise<unknown>;
  op(...m.args).then(
    (value) => port.postMessage({ id: m.id, value }),
    (err: unknown) => port.postMessage({ id: m.id, error: err instanceof Error ? (err.stack ?? err.message) : String(err) }),
  );
});
