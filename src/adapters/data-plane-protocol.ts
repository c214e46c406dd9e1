import * as E from "fp-ts/lib/Either.js";
import type { DataPlane, LoopDelay } from "../application/ports/data-plane.js";
import type { PacketCaptures } from "../application/ports/packet-captures.js";
import type { ComputeNotification } from "../application/ports/notifications.js";
import type { Logger } from "../application/ports/system.js";
import type { SyncError } from "../application/errors.js";
import type { BpfProgram } from "../domain/bpf/index.js";
import { type ComputeNode, parseComputeNode } from "../domain/switching/compute-node.js";
import { invalidConfiguration } from "../domain/configuration/invalid-configuration.js";

/**
 * The messages between the main thread and a data-plane worker (ADR 0041, 0056), declared once from
 * the ports both sides implement: each call is a method of DataPlane or PacketCaptures with its own
 * parameters and answer, except that `sync` also carries the compiled programs of its node's bpf and
 * match filters (so a worker never compiles on the thread that moves the frames).
 */
type Ports = DataPlane & PacketCaptures;

export interface DataPlaneWorkerCalls {
  sync(node: ComputeNode, programs: readonly BpfProgram[]): Promise<E.Either<SyncError, void>>;
  removeNode: Ports["removeNode"];
  counters: Ports["counters"];
  macTable: Ports["macTable"];
  start: Ports["start"];
  stop: Ports["stop"];
  fileOf: Ports["fileOf"];
  close: Ports["close"];
  /** The worker's event-loop delay since the previous reading (which starts the next one). */
  eventLoopDelay(): Promise<Omit<LoopDelay, "worker">>;
}

export type WorkerOp = keyof DataPlaneWorkerCalls;
export type WorkerArgs<K extends WorkerOp> = Parameters<DataPlaneWorkerCalls[K]>;
export type WorkerResult<K extends WorkerOp> = Awaited<ReturnType<DataPlaneWorkerCalls[K]>>;

/** A call: `{id, op, args}` with the args of that op. */
export type WorkerRequest = { readonly [K in WorkerOp]: { readonly id: number; readonly op: K; readonly args: WorkerArgs<K> } }[WorkerOp];

/** The answer to call `id`: its value, or the text of a defect it threw. */
export type WorkerReply = { readonly id: number; readonly value: WorkerResult<WorkerOp> } | { readonly id: number; readonly error: string };

/** What a worker tells unasked: a notification for the API's listeners, a line for the host's log. */
export type WorkerEvent =
  | { readonly event: "notification"; readonly notification: ComputeNotification }
  | { readonly event: "log"; readonly level: keyof Logger; readonly msg: string; readonly fields?: Record<string, unknown> };

export type WorkerMessage = WorkerReply | WorkerEvent;

const OPS: readonly WorkerOp[] = ["sync", "removeNode", "counters", "macTable", "start", "stop", "fileOf", "close", "eventLoopDelay"];

const isText = (v: unknown, max = 4096): v is string => typeof v === "string" && v.length <= max;
const isPortNumber = (v: unknown): v is number => typeof v === "number" && Number.isInteger(v) && v >= 0 && v <= 65_535;
const isTextList = (v: unknown): v is string[] => Array.isArray(v) && v.every((x) => typeof x === "string");

/** A program as a message carries it: its lines and one source per line. */
function isProgram(v: unknown): v is BpfProgram {
  if (typeof v !== "object" || v === null) return false;
  const p = v as { lines?: unknown; sources?: unknown };
  return isTextList(p.lines) && isTextList(p.sources) && p.lines.length === p.sources.length;
}

/**
 * The worker's door (ADR 0053): a message is a call it knows with arguments of the right kinds, and
 * the node of a sync is parsed whole by the domain (parseComputeNode), as any other door parses what
 * it is given. A node that does not parse is answered as the sync's Left (nothing changes); anything
 * else malformed is a defect of the sender, answered as an error.
 */
export function decodeWorkerRequest(m: unknown): E.Either<{ readonly id: number; readonly error: string } | { readonly id: number; readonly refused: SyncError }, WorkerRequest> {
  if (typeof m !== "object" || m === null) return E.left({ id: -1, error: "malformed message" });
  const { id, op, args } = m as { id?: unknown; op?: unknown; args?: unknown };
  if (typeof id !== "number" || !Number.isInteger(id)) return E.left({ id: -1, error: "malformed message: no call id" });
  if (typeof op !== "string" || !(OPS as readonly string[]).includes(op) || !Array.isArray(args)) return E.left({ id, error: `malformed call ${String(op)}` });
  const a = args as unknown[];
  const malformed = E.left({ id, error: `malformed arguments for ${op}` });
  switch (op as WorkerOp) {
    case "sync": {
      const node = parseComputeNode(a[0]);
      if (E.isLeft(node)) return E.left({ id, refused: node.left });
      const programs = a[1];
      if (!Array.isArray(programs) || !programs.every(isProgram)) return E.left({ id, refused: invalidConfiguration("programs", { rule: "type", expected: "array" }, typeof programs) });
      return E.right({ id, op: "sync", args: [node.right, programs] });
    }
    case "removeNode":
    case "counters":
    case "macTable":
      return isText(a[0]) ? E.right({ id, op: op as "removeNode", args: [a[0]] }) : malformed;
    case "start":
      return isText(a[0]) && isPortNumber(a[1]) && typeof a[2] === "string" ? E.right({ id, op: "start", args: [a[0], a[1], a[2]] }) : malformed;
    case "stop":
    case "fileOf":
      return isText(a[0]) && isPortNumber(a[1]) ? E.right({ id, op: op as "stop", args: [a[0], a[1]] }) : malformed;
    case "close":
    case "eventLoopDelay":
      return E.right({ id, op: op as "close", args: [] });
  }
}
