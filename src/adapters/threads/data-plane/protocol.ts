import type { Trace } from "../../../domain/traces/trace.js";
import * as E from "fp-ts/lib/Either.js";
import type { DataPlane, LoopDelay } from "../../../application/ports/data-plane.js";
import type { PacketCaptures } from "../../../application/ports/packet-captures.js";
import type { ComputeNotification } from "../../../application/ports/notifications.js";
import type { Logger } from "../../../application/ports/system.js";
import type { SyncError } from "../../../application/errors.js";
import type { BpfProgram } from "../../../domain/bpf/index.js";
import {
  type ComputeNode,
  type ComputeNodeFields,
  assembleComputeNode,
  parseComputeNodeFields,
  parseNodeNios,
  parseNodePorts,
} from "../../../domain/switching/compute-node.js";
import { type Nio, nioEqual } from "../../../domain/switching/nio.js";
import { portsMappingEqual } from "../../../domain/switching/port.js";
import { invalidConfiguration } from "../../../domain/configuration/invalid-configuration.js";
import { CONFIGURATION_LIMITS } from "../../../domain/configuration/limits.js";
import { descriptorOf } from "../../../domain/filters/catalogue.js";
import type { CaptureRunning, NodeState } from "../../../application/dataplane/node-state.js";

/**
 * The messages between the main thread and a data-plane worker (ADR 0041, 0056), declared once from
 * the ports both sides implement: each call is a method of DataPlane or PacketCaptures with its own
 * parameters and answer, except `sync`, which carries a NodeChange instead of the whole record and
 * the compiled programs of its node's bpf and match filters (so a worker never compiles on the
 * thread that moves the frames).
 */
type Ports = DataPlane & PacketCaptures;

/**
 * A node's record as a sync sends it: whole when the worker keeps none (`base: "none"`: the node's
 * first sync on this worker, or its first after the worker restarted), else what changed since the
 * last sync the worker took, by value: the record's fields, the ports_mapping when it changed, the
 * NIOs added or changed, the ports whose NIO went. A no-change sync of a 48-port switch is a few
 * hundred bytes instead of every NIO copied, sent and parsed again.
 */
export interface NodeChange {
  readonly base: "none" | "last";
  readonly fields: ComputeNodeFields;
  readonly portsMapping?: ComputeNode["portsMapping"];
  readonly nios: ReadonlyMap<number, Nio>;
  readonly removed: readonly number[];
}

/** The change that takes a worker from `last` (what it took before, if anything) to `node`. */
export function nodeChange(last: ComputeNode | undefined, node: ComputeNode): NodeChange {
  const { nios, portsMapping, ...fields } = node;
  if (last === undefined) return { base: "none", fields, portsMapping, nios, removed: [] };
  const changed = new Map<number, Nio>();
  for (const [portNumber, nio] of nios) {
    const was = last.nios.get(portNumber);
    if (was === undefined || !nioEqual(was, nio)) changed.set(portNumber, nio);
  }
  const removed = [...last.nios.keys()].filter((portNumber) => !nios.has(portNumber));
  return { base: "last", fields, ...(portsMappingEqual(last.portsMapping, portsMapping) ? {} : { portsMapping }), nios: changed, removed };
}

/**
 * The record a change makes of `last`, every part parsed where it crosses (ADR 0053): the fields, the
 * ports_mapping when sent, each NIO sent; what it did not send is `last`'s, parsed when it came.
 */
export function applyNodeChange(last: ComputeNode | undefined, raw: unknown): E.Either<SyncError, ComputeNode> {
  if (typeof raw !== "object" || raw === null) return E.left(invalidConfiguration("change", { rule: "type", expected: "object" }, raw));
  const c = raw as { base?: unknown; fields?: unknown; portsMapping?: unknown; nios?: unknown; removed?: unknown };
  const fields = parseComputeNodeFields(c.fields, "fields");
  if (E.isLeft(fields)) return fields;
  const base = c.base === "last" ? last : c.base === "none" ? undefined : null;
  if (base === null || (c.base === "last" && (last === undefined || last.nodeType !== fields.right.nodeType))) {
    return E.left(invalidConfiguration("base", { rule: "one_of", choices: last === undefined ? ["none"] : ["none", "last"] }, c.base));
  }
  const ports = c.portsMapping === undefined && base !== undefined ? E.right(base.portsMapping) : parseNodePorts(fields.right.nodeType, c.portsMapping, "portsMapping");
  if (E.isLeft(ports)) return ports;
  const sent = parseNodeNios(c.nios, "nios");
  if (E.isLeft(sent)) return sent;
  if (!Array.isArray(c.removed) || !c.removed.every((p) => typeof p === "number")) return E.left(invalidConfiguration("removed", { rule: "type", expected: "array" }, c.removed));
  if (c.removed.length > CONFIGURATION_LIMITS.portsPerNode) return E.left(invalidConfiguration("removed", { rule: "max_items", limit: CONFIGURATION_LIMITS.portsPerNode }, c.removed.length));
  const nios = new Map(base?.nios ?? []);
  for (const portNumber of c.removed as number[]) nios.delete(portNumber);
  for (const [portNumber, nio] of sent.right) nios.set(portNumber, nio);
  return assembleComputeNode(fields.right, ports.right, nios, "");
}

/**
 * Programs the main thread counts a worker as holding, at most: past it the count starts again and
 * programs are sent again. A worker keeps twice as many (least recently used out first), so a program
 * the main thread counts on was never dropped there.
 */
export const PROGRAMS_KNOWN_SENT = 1024;

/** A trace a sync carries to a worker, as plain data (ADR 0103). */
export interface NamedTrace {
  readonly name: string;
  readonly trace: Trace;
}

/** Whether a message's trace is one (its shape; the main thread parsed it). */
function isNamedTrace(x: unknown): x is NamedTrace {
  if (typeof x !== "object" || x === null) return false;
  const { name, trace } = x as { name?: unknown; trace?: unknown };
  if (typeof name !== "string" || typeof trace !== "object" || trace === null) return false;
  const t = trace as { kind?: unknown; opportunitiesMs?: unknown; periodMs?: unknown; atMs?: unknown; values?: unknown };
  if (t.kind === "capacity") return Array.isArray(t.opportunitiesMs) && t.opportunitiesMs.length > 0 && typeof t.periodMs === "number" && t.periodMs > 0;
  return t.kind === "values" && Array.isArray(t.atMs) && Array.isArray(t.values) && t.atMs.length > 0 && t.atMs.length === t.values.length;
}

const areTraces = (x: unknown): x is NamedTrace[] => x === undefined || (Array.isArray(x) && x.every(isNamedTrace));

export interface DataPlaneWorkerCalls {
  sync(change: NodeChange, programs: readonly BpfProgram[], traces?: readonly NamedTrace[]): Promise<E.Either<SyncError, void>>;
  removeNode: Ports["removeNode"];
  counters: Ports["counters"];
  macTable: Ports["macTable"];
  start: Ports["start"];
  stop: Ports["stop"];
  fileOf: Ports["fileOf"];
  close: Ports["close"];
  /** The worker's event-loop delay since the previous reading (which starts the next one). */
  eventLoopDelay(): Promise<Omit<LoopDelay, "worker">>;
  /** Lets a node go with what it knows (ADR 0069): its sockets closed, it is forgotten here; refused while a capture runs. */
  handOver(nodeId: string): Promise<E.Either<CaptureRunning, NodeState | undefined>>;
  /** A sync of a node coming from another worker, which takes up `state` before any frame reaches it. */
  takeOver(change: NodeChange, programs: readonly BpfProgram[], state: NodeState, traces?: readonly NamedTrace[]): Promise<E.Either<SyncError, void>>;
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
  | { readonly event: "loads"; readonly loads: readonly NodeFrameRate[] }
  | { readonly event: "log"; readonly level: keyof Logger; readonly msg: string; readonly fields?: Record<string, unknown> };

export type WorkerMessage = WorkerReply | WorkerEvent;

/** A node's frames in and out per second over a worker's last load interval (ADR 0069). */
export interface NodeFrameRate {
  readonly nodeId: string;
  readonly framesPerSecond: number;
}

/**
 * Each node's frame rate between two readings of its frame totals taken `seconds` apart. A node that
 * is new counts from zero; one whose counters went back (its ports were re-attached) counts from its
 * new total, never a negative rate; nodes gone since are left out.
 */
export function frameRates(before: ReadonlyMap<string, number>, now: ReadonlyMap<string, number>, seconds: number): NodeFrameRate[] {
  if (!(seconds > 0)) return [];
  const rates: NodeFrameRate[] = [];
  for (const [nodeId, total] of now) {
    const was = before.get(nodeId) ?? 0;
    const frames = total >= was ? total - was : total;
    rates.push({ nodeId, framesPerSecond: frames / seconds });
  }
  return rates;
}

/**
 * Whether a load report would tell the main thread nothing new: every node idle, as were the same nodes
 * in the report sent before it. It is not sent, so an idle worker does not wake the main thread every
 * interval (ADR 0113); the main thread keeps the last report it had, which says the same.
 */
export function idleAsBefore(previous: readonly NodeFrameRate[] | undefined, next: readonly NodeFrameRate[]): boolean {
  if (previous === undefined || previous.length !== next.length) return false;
  return next.every((rate, i) => rate.framesPerSecond === 0 && previous[i]!.framesPerSecond === 0 && previous[i]!.nodeId === rate.nodeId);
}

const OPS: readonly WorkerOp[] = ["sync", "removeNode", "counters", "macTable", "start", "stop", "fileOf", "close", "eventLoopDelay", "handOver", "takeOver"];

const isText = (v: unknown, max = 4096): v is string => typeof v === "string" && v.length <= max;
const isPortNumber = (v: unknown): v is number => typeof v === "number" && Number.isInteger(v) && v >= 0 && v <= 65_535;
const isTextList = (v: unknown): v is string[] => Array.isArray(v) && v.every((x) => typeof x === "string");

/** A program as a message carries it: its lines and one source per line. */
function isProgram(v: unknown): v is BpfProgram {
  if (typeof v !== "object" || v === null) return false;
  const p = v as { lines?: unknown; sources?: unknown };
  return isTextList(p.lines) && isTextList(p.sources) && p.lines.length === p.sources.length;
}

const isObject = (v: unknown): v is Record<string, unknown> => typeof v === "object" && v !== null;
const isTime = (v: unknown): boolean => typeof v === "number" && !Number.isNaN(v);

function isHeldFrames(v: unknown): boolean {
  if (!isObject(v) || !isTime(v["lastDepartureMs"]) || !Array.isArray(v["frames"])) return false;
  if (v["precise"] !== undefined && typeof v["precise"] !== "boolean") return false;
  return v["frames"].every((f: unknown) => isObject(f) && f["frame"] instanceof Uint8Array && f["frame"].length <= 65_535 && isTime(f["departureMs"]));
}

const isFrame = (v: unknown): boolean => v instanceof Uint8Array && v.length <= 65_535;

/** A bandwidth queue's frames and state (ADR 0100): the shape here, each count and time again where it is taken up. */
function isHeldQueue(v: unknown): boolean {
  if (!isObject(v) || !isTime(v["freeAtMs"]) || !isTime(v["rateKbps"]) || !isObject(v["counters"]) || !Array.isArray(v["frames"])) return false;
  const inFlight = v["inFlight"];
  if (inFlight !== undefined && !(isObject(inFlight) && isFrame(inFlight["frame"]) && isTime(inFlight["doneMs"]))) return false;
  if (v["codel"] !== undefined && !isObject(v["codel"])) return false;
  return v["frames"].every((f: unknown) => isObject(f) && isFrame(f["frame"]) && isTime(f["enqueuedMs"]));
}

/** capacity_trace's largest queue bound, in frames: a link carries no more frames waiting than that. */
const TRACE_QUEUE_FRAMES_MAXIMUM = (descriptorOf("capacity_trace").parameters[1] as { readonly maximum: number }).maximum;

/** Times are finite here (a trace's start, a delivery): an unbounded one would stand nowhere in a trace. */
const isFiniteTime = (v: unknown): v is number => typeof v === "number" && Number.isFinite(v);

/**
 * A capacity trace link's position (ADR 0103): the shape and each number's kind here; whether it fits
 * the trace the chain there replays is checked where it is taken up (CapacityTraceLink.takeUp).
 */
function isCapacityLinkState(v: unknown): boolean {
  if (!isObject(v) || !isFiniteTime(v["startMs"]) || !Number.isSafeInteger(v["cursor"]) || !Number.isSafeInteger(v["leftBytes"])) return false;
  if (!Number.isSafeInteger(v["periodMs"]) || !Number.isSafeInteger(v["opportunities"])) return false;
  const deliveries = v["deliveriesMs"];
  return Array.isArray(deliveries) && deliveries.length <= TRACE_QUEUE_FRAMES_MAXIMUM && deliveries.every(isFiniteTime);
}

/** Where a chain's traces stood (ADR 0103), each part optional. */
function isTraceState(v: unknown): boolean {
  if (!isObject(v)) return false;
  const capacity = v["capacity"];
  if (capacity !== undefined && !(isObject(capacity) && (capacity["ingress"] === undefined || isCapacityLinkState(capacity["ingress"])) && (capacity["egress"] === undefined || isCapacityLinkState(capacity["egress"])))) return false;
  return (v["delayStartMs"] === undefined || isFiniteTime(v["delayStartMs"])) && (v["lossStartMs"] === undefined || isFiniteTime(v["lossStartMs"]));
}

function isChainState(v: unknown): boolean {
  return isObject(v) && typeof v["frequencyCounter"] === "number" && typeof v["corruptPosition"] === "number" && isObject(v["fates"]) && (v["traces"] === undefined || isTraceState(v["traces"]));
}

/**
 * A node's state as one worker hands it to another (ADR 0069): the shape checked here, each value
 * again where it is taken up (a count that is not one, a MAC out of range, is left out there).
 */
function isNodeState(v: unknown): v is NodeState {
  if (!isObject(v) || !isText(v["nodeId"]) || !Array.isArray(v["learned"]) || !Array.isArray(v["ports"])) return false;
  if (v["ports"].length > CONFIGURATION_LIMITS.portsPerNode) return false;
  const learnedOk = v["learned"].every((e: unknown) => isObject(e) && ["vlan", "mac", "port", "lastSeenMs"].every((k) => typeof e[k] === "number"));
  const portsOk = v["ports"].every((p: unknown) => {
    if (!isObject(p) || !isPortNumber(p["portNumber"]) || !isObject(p["counters"]) || typeof p["faults"] !== "number") return false;
    const socket = p["socket"];
    if (socket !== undefined && !(isObject(socket) && Number.isInteger(socket["fd"]) && (socket["fd"] as number) >= 0)) return false;
    const chains = p["chains"];
    const held = p["held"];
    if (!isObject(chains) || !isChainState(chains["ingress"]) || (chains["egress"] !== undefined && !isChainState(chains["egress"]))) return false;
    if (!isObject(held) || !isHeldFrames(held["ingress"]) || !isHeldFrames(held["egress"])) return false;
    const queues = p["queues"];
    if (queues !== undefined && !(isObject(queues) && (queues["ingress"] === undefined || isHeldQueue(queues["ingress"])) && (queues["egress"] === undefined || isHeldQueue(queues["egress"])))) return false;
    return (held["expressIngress"] === undefined || isHeldFrames(held["expressIngress"])) && (held["expressEgress"] === undefined || isHeldFrames(held["expressEgress"]));
  });
  return learnedOk && portsOk;
}

/**
 * The worker's door (ADR 0053): a message is a call it knows with arguments of the right kinds. A
 * sync's change is decoded by the worker itself, against the record it keeps (applyNodeChange); here
 * only its programs are checked. Anything malformed is a defect of the sender, answered as an error.
 */
export function decodeWorkerRequest(m: unknown): E.Either<{ readonly id: number; readonly error: string }, WorkerRequest> {
  if (typeof m !== "object" || m === null) return E.left({ id: -1, error: "malformed message" });
  const { id, op, args } = m as { id?: unknown; op?: unknown; args?: unknown };
  if (typeof id !== "number" || !Number.isInteger(id)) return E.left({ id: -1, error: "malformed message: no call id" });
  if (typeof op !== "string" || !(OPS as readonly string[]).includes(op) || !Array.isArray(args)) return E.left({ id, error: `malformed call ${String(op)}` });
  const a = args as unknown[];
  const malformed = { id, error: `malformed arguments for ${op}` };
  switch (op as WorkerOp) {
    case "sync": {
      const programs = a[1];
      if (!Array.isArray(programs) || !programs.every(isProgram) || !areTraces(a[2])) return E.left(malformed);
      // The change itself is the worker's to parse, against its own record of the node.
      return E.right({ id, op: "sync", args: a[2] === undefined ? [a[0] as NodeChange, programs] : [a[0] as NodeChange, programs, a[2]] });
    }
    case "takeOver": {
      const programs = a[1];
      if (!Array.isArray(programs) || !programs.every(isProgram) || !isNodeState(a[2]) || !areTraces(a[3])) return E.left(malformed);
      return E.right({ id, op: "takeOver", args: a[3] === undefined ? [a[0] as NodeChange, programs, a[2]] : [a[0] as NodeChange, programs, a[2], a[3]] });
    }
    case "handOver":
    case "removeNode":
    case "counters":
    case "macTable":
      return isText(a[0]) ? E.right({ id, op: op as "removeNode", args: [a[0]] }) : E.left(malformed);
    case "start":
      return isText(a[0]) && isPortNumber(a[1]) && typeof a[2] === "string" ? E.right({ id, op: "start", args: [a[0], a[1], a[2]] }) : E.left(malformed);
    case "stop":
    case "fileOf":
      return isText(a[0]) && isPortNumber(a[1]) ? E.right({ id, op: op as "stop", args: [a[0], a[1]] }) : E.left(malformed);
    case "close":
    case "eventLoopDelay":
      return E.right({ id, op: op as "close", args: [] });
  }
}
