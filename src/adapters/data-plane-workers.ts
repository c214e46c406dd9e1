import { Worker } from "node:worker_threads";
import type * as E from "fp-ts/lib/Either.js";
import type { DataPlaneOptions } from "../application/dataplane/switch-data-plane.js";
import type { DataPlane, MacTableEntry, PortCounters } from "../application/ports/data-plane.js";
import type { PacketCaptures } from "../application/ports/packet-captures.js";
import type { ComputeNotification, Notifications } from "../application/ports/notifications.js";
import type { Logger } from "../application/ports/system.js";
import type { ComputeNode } from "../domain/switching/compute-node.js";
import type { ErrorOf, SyncError } from "../application/errors.js";
import type { DgramOptions } from "./transport/dgram-udp-transport.js";
import type { DataPlaneWorkerData } from "./data-plane-worker.js";

type Reply = { readonly id: number; readonly value?: unknown; readonly error?: string };
type WorkerEvent =
  | { readonly event: "notification"; readonly notification: ComputeNotification }
  | { readonly event: "log"; readonly level: "debug" | "info" | "warn" | "error"; readonly msg: string; readonly fields?: Record<string, unknown> };

/** FNV-1a of the node id: a node stays on one worker for its whole life. */
function hash(id: string): number {
  let h = 0x811c9dc5;
  for (let i = 0; i < id.length; i++) h = Math.imul(h ^ id.charCodeAt(i), 0x01000193) >>> 0;
  return h;
}

/**
 * The data plane in worker threads (ADR 0041): each node lives on one worker, chosen by its id, where
 * its sockets, filters, delay lines and captures run on that worker's own event loop, so frames never
 * wait for the API. The main thread sends desired state (sync) and asks for counters, MAC tables and
 * captures by message; notifications and log lines come back as events.
 */
export class WorkerDataPlane implements DataPlane, PacketCaptures {
  private readonly workers: Worker[];
  private readonly pending = new Map<number, { resolve: (v: unknown) => void; reject: (e: Error) => void }>();
  private nextId = 1;
  private closed = false;

  constructor(options: {
    readonly workers: number;
    readonly dataPlane: DataPlaneOptions;
    readonly transport: DgramOptions;
    readonly notifications: Notifications;
    readonly logger: Logger;
  }) {
    const workerData: DataPlaneWorkerData = { dataPlane: options.dataPlane, transport: options.transport };
    this.workers = Array.from({ length: options.workers }, (_, index) => {
      const worker = new Worker(new URL("./data-plane-worker.js", import.meta.url), { workerData });
      worker.on("message", (m: Reply | WorkerEvent) => {
        if ("event" in m) {
          if (m.event === "notification") options.notifications.publish(m.notification);
          else options.logger[m.level](m.msg, { worker: index, ...m.fields });
          return;
        }
        const call = this.pending.get(m.id);
        if (call === undefined) return;
        this.pending.delete(m.id);
        if (m.error !== undefined) call.reject(new Error(`data plane worker ${index}: ${m.error}`));
        else call.resolve(m.value);
      });
      worker.on("error", (err) => options.logger.error("data plane worker failed", { worker: index, err: err.stack ?? String(err) }));
      // A worker must not keep an embedding host's process alive; shutdown ends them anyway.
      worker.unref();
      return worker;
    });
  }

  private call<T>(nodeId: string | undefined, op: string, ...args: unknown[]): Promise<T> {
    const worker = this.workers[nodeId === undefined ? 0 : hash(nodeId) % this.workers.length] as Worker;
    return this.send<T>(worker, op, args);
  }

  private send<T>(worker: Worker, op: string, args: unknown[]): Promise<T> {
    const id = this.nextId++;
    return new Promise<T>((resolve, reject) => {
      this.pending.set(id, { resolve: resolve as (v: unknown) => void, reject });
      worker.postMessage({ id, op, args });
    });
  }

  sync(node: ComputeNode): Promise<E.Either<SyncError, void>> {
    return this.call(node.nodeId, "sync", node);
  }
  removeNode(nodeId: string): Promise<void> {
    return this.call(nodeId, "removeNode", nodeId);
  }
  counters(nodeId: string): Promise<ReadonlyMap<number, PortCounters>> {
    return this.call(nodeId, "counters", nodeId);
  }
  macTable(nodeId: string): Promise<readonly MacTableEntry[]> {
    return this.call(nodeId, "macTable", nodeId);
  }
  start(nodeId: string, portNumber: number, filePath: string): Promise<E.Either<ErrorOf<"PortNotAllocated" | "CaptureAlreadyActive" | "CaptureFileUnwritable">, void>> {
    return this.call(nodeId, "start", nodeId, portNumber, filePath);
  }
  stop(nodeId: string, portNumber: number): Promise<void> {
    return this.call(nodeId, "stop", nodeId, portNumber);
  }
  fileOf(nodeId: string, portNumber: number): Promise<string | undefined> {
    return this.call(nodeId, "fileOf", nodeId, portNumber);
  }

  /** Closes every node's sockets and captures in each worker, then ends the workers. Idempotent. */
  async close(): Promise<void> {
    if (this.closed) return;
    this.closed = true;
    await Promise.all(this.workers.map((w) => this.send(w, "close", [])));
    await Promise.all(this.workers.map((w) => w.terminate()));
  }
}
