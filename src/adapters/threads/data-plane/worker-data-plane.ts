import type { ResourceLimits, Worker } from "node:worker_threads";
import * as E from "fp-ts/lib/Either.js";
import type { DataPlaneOptions } from "../../../application/dataplane/switch-data-plane.js";
import type { DataPlane, DataPlaneThreads, LoopDelay, MacTableEntry, PortCounters } from "../../../application/ports/data-plane.js";
import type { CaptureStartRefusal, PacketCaptures } from "../../../application/ports/packet-captures.js";
import type { Notifications } from "../../../application/ports/notifications.js";
import type { Logger } from "../../../application/ports/system.js";
import type { BpfPrograms } from "../../../application/ports/bpf-compiler.js";
import { NO_TRACES, type TraceBook } from "../../../application/ports/trace-store.js";
import { tracesUsed } from "../../../application/traces/resolve-traces.js";
import type { FilterSettings } from "../../../domain/filters/filter-settings.js";
import type { NamedTrace } from "./protocol.js";
import type { ComputeNode } from "../../../domain/switching/compute-node.js";
import { type Nio, carriesFrames, filtersOf } from "../../../domain/switching/nio.js";
import { bpfLines, expressionText, matchLines } from "../../../domain/filters/filter-settings.js";
import type { BpfProgram } from "../../../domain/bpf/index.js";
import type { ErrorOf, SyncError } from "../../../application/errors.js";
import type { DgramOptions } from "../../transport/dgram-udp-transport.js";
import type { DataPlaneWorkerData } from "./data-plane-worker.js";
import { type NodeLoad, type PlacementPolicy, planMove } from "../../../domain/placement/placement.js";
import { PROGRAMS_KNOWN_SENT, type NodeFrameRate, type WorkerArgs, type WorkerMessage, type WorkerOp, type WorkerRequest, type WorkerResult, nodeChange } from "./protocol.js";
import { startWorker } from "../worker-start.js";
import { WorkerCalls } from "../worker-calls.js";
import type { NodeState } from "../../../application/dataplane/node-state.js";
import type { DarkNode, DarkWorker, DataPlaneHealth, WorkerLifeCounts } from "../../../application/ports/data-plane-health.js";

/** One worker thread and the calls it has not answered yet. */
interface Slot {
  readonly index: number;
  worker: Worker | undefined;
  /** The calls the running worker has not answered yet. */
  calls: WorkerCalls<WorkerOp> | undefined;
  /** When it last died, newest last: a worker that keeps dying is given up on. */
  readonly deaths: number[];
  /** The nodes the running worker took a sync of: the next sync sends it what changed since. */
  readonly holds: Set<string>;
  /** The expression texts whose programs the running worker was sent: it keeps them (ADR 0054). */
  readonly programsSent: Set<string>;
  /** Its nodes' frame rates as it last reported them (ADR 0069). */
  loads: readonly NodeFrameRate[];
  /** Deaths and restarts since netemu started (ADR 0073). */
  deathsTotal: number;
  restartsTotal: number;
  /** The error the running worker reported before it exits (its exit event carries only a code). */
  lastError: string | undefined;
  /** Set from a death until every node is given back: its nodes are dark (ADR 0073). */
  dark: Darkness | undefined;
  /** Its nodes that a restarted worker has not taken back yet (or could not): they are dark too. */
  readonly restoring: Set<string>;
  /** Set while given up: when it is tried again by itself. */
  givenUp: { readonly retryAt: number; readonly timer: ReturnType<typeof setTimeout> } | undefined;
  /** The wait before the next automatic attempt after a give-up: doubles each time (ADR 0073). */
  retryMs: number;
  /** When it was last given up. */
  givenUpAt: number | undefined;
  /** Restores of its nodes under way (a worker restarting, or an operator's call). */
  restoresUnderWay: number;
}

/** One dark episode of a worker: since its first death, why it last died, its nodes' rates before. */
interface Darkness {
  readonly since: number;
  reason: string;
  exitCode: number;
  /** Each node's frame rate as last reported before the first death. */
  readonly rates: ReadonlyMap<string, number>;
}

/** A worker that dies this often within RESTART_WINDOW_MS is not restarted again. */
const MAX_DEATHS = 5;
const RESTART_WINDOW_MS = 60_000;
/** The first wait before a given-up worker is tried again by itself; it doubles at each give-up, up to the cap. */
const GIVEN_UP_RETRY_MS = 60_000;
const GIVEN_UP_RETRY_CAP_MS = 30 * 60_000;
/** A give-up this long after the previous one starts the back-off again from its first wait. */
const BACKOFF_MEMORY_MS = 60 * 60_000;
/** A death's log line names this many nodes at most (and counts them all). */
const NODES_NAMED = 20;

/** Load intervals a node stays on the worker it moved to before it may move again (with the gain margin, no flapping). */
const PINNED_INTERVALS = 10;

/** The worker a node runs on unless placed by load (ADR 0069): FNV-1a of its id, so a node stays on one worker for its whole life. */
export function workerIndexOf(nodeId: string, workers: number): number {
  let h = 0x811c9dc5;
  for (let i = 0; i < nodeId.length; i++) h = Math.imul(h ^ nodeId.charCodeAt(i), 0x01000193) >>> 0;
  return h % workers;
}

interface WorkerDataPlaneOptions {
  readonly workers: number;
  readonly dataPlane: DataPlaneOptions;
  readonly transport: DgramOptions;
  readonly notifications: Notifications;
  readonly logger: Logger;
  /** The compiled programs of bpf and match filters, which a sync sends along with its node. */
  readonly programs: BpfPrograms;
  /** The uploaded traces, which a sync sends along with its node when its filters name them (ADR 0103). */
  readonly traces?: TraceBook;
  /** How often each worker reports its nodes' frame rates, in ms (default 1000; 0: never). */
  readonly loadIntervalMs?: number;
  /**
   * Moves busy nodes between workers by their measured load (ADR 0069), each load interval; undefined
   * (the default): nodes stay on the worker their id hashes to.
   */
  readonly placement?: PlacementPolicy;
  /** The worker's module; only tests replace it (with one that can be made to fail). */
  readonly workerScript?: URL;
  /** Each worker's heap and stack limits (default: Node's); a worker that exceeds them dies and is restarted. */
  readonly resourceLimits?: ResourceLimits;
  /** The first wait before a given-up worker is tried again by itself, in ms (default 60 s; doubles each give-up, ADR 0073). */
  readonly givenUpRetryMs?: number;
}

/**
 * The data plane in worker threads (ADR 0041): each node lives on one worker, chosen by its id, where
 * its sockets, filters, delay lines and captures run on that worker's own event loop, so frames never
 * wait for the API. The main thread sends desired state (sync) and asks for counters, MAC tables and
 * captures by message; notifications and log lines come back as events.
 *
 * A worker that dies (a bug, out of memory) fails the calls it had not answered, is started again and
 * given back its nodes as they were last synced; their captures, counters and MAC tables start afresh.
 */
export class WorkerDataPlane implements DataPlane, PacketCaptures, DataPlaneThreads, DataPlaneHealth {
  private readonly slots: Slot[];
  /** Each live node as last synced: what a restarted worker is given back. */
  private readonly desired = new Map<string, ComputeNode>();
  private readonly script: URL;
  private readonly workerData: DataPlaneWorkerData;
  private closed = false;
  /** Nodes moved to a worker other than their hash's (ADR 0069): their calls, and their restart, go there. */
  private readonly placed = new Map<string, number>();
  /**
   * Per node, its sync, removal, move or capture start/stop under way: the next one starts after it, so a
   * move never overlaps them (a capture and a move are ordered: ADR 0074).
   */
  private readonly queue = new Map<string, Promise<unknown>>();
  /** When each node last moved (ms): it stays put for PINNED_INTERVALS load intervals after. */
  private readonly movedAt = new Map<string, number>();
  /** No plan before this time (ms): the loads read before a move miss the moved node for an interval. */
  private quietUntil = 0;
  private rebalancing = false;
  private readonly rebalancer: ReturnType<typeof setInterval> | undefined;
  /** The captures running, per node and port (their files): what a worker's death stops (ADR 0073). */
  private readonly captures = new Map<string, Map<number, string>>();

  constructor(private readonly options: WorkerDataPlaneOptions) {
    this.script = options.workerScript ?? new URL("./data-plane-worker.js", import.meta.url);
    this.workerData = { dataPlane: options.dataPlane, transport: options.transport, ...(options.loadIntervalMs === undefined ? {} : { loadIntervalMs: options.loadIntervalMs }) };
    this.slots = Array.from({ length: options.workers }, (_, index) => {
      const slot: Slot = {
        index,
        worker: undefined,
        calls: undefined,
        deaths: [],
        holds: new Set(),
        programsSent: new Set(),
        loads: [],
        deathsTotal: 0,
        restartsTotal: 0,
        lastError: undefined,
        dark: undefined,
        restoring: new Set(),
        givenUp: undefined,
        retryMs: options.givenUpRetryMs ?? GIVEN_UP_RETRY_MS,
        givenUpAt: undefined,
        restoresUnderWay: 0,
      };
      this.spawn(slot);
      return slot;
    });
    const interval = options.loadIntervalMs ?? 1000;
    if (options.placement !== undefined && interval > 0 && options.workers > 1) {
      const policy = options.placement;
      this.rebalancer = setInterval(() => void this.rebalance(policy, interval), interval);
      // Placement must not keep an embedding host's process alive.
      this.rebalancer.unref();
    }
  }

  /** One step of placement by load: at most one move, after the loads of a previous one settled. */
  private async rebalance(policy: PlacementPolicy, interval: number): Promise<void> {
    const now = Date.now();
    if (this.rebalancing || this.closed || now < this.quietUntil) return;
    const pinned = new Set([...this.movedAt].filter(([, at]) => now - at < PINNED_INTERVALS * interval).map(([nodeId]) => nodeId));
    const move = planMove({ workers: this.slots.length, loads: this.nodeLoads(), pinned }, policy);
    if (move === undefined) return;
    this.rebalancing = true;
    try {
      await this.moveNode(move.nodeId, move.to);
      this.movedAt.set(move.nodeId, Date.now());
      this.quietUntil = Date.now() + 2 * interval;
    } catch (err) {
      this.options.logger.error("placing a node by load failed", { nodeId: move.nodeId, err: (err as Error).message });
    } finally {
      this.rebalancing = false;
    }
  }

  private spawn(slot: Slot): void {
    const { logger, notifications } = this.options;
    const worker = startWorker(this.script, this.workerData, this.options.resourceLimits);
    const calls = new WorkerCalls<WorkerOp>(worker, (error) => new Error(`data plane worker ${slot.index}: ${error}`));
    slot.worker = worker;
    slot.calls = calls;
    // A new worker keeps no record of any node (each one's next sync is whole) and no program.
    slot.holds.clear();
    slot.programsSent.clear();
    slot.loads = [];
    slot.lastError = undefined;
    worker.on("message", (m: WorkerMessage) => {
      if ("event" in m) {
        if (m.event === "notification") {
          // A capture whose file failed has stopped on the worker: its death has none to stop.
          if (m.notification.kind === "capture_failed") this.captures.get(m.notification.node.nodeId)?.delete(m.notification.portNumber);
          notifications.publish(m.notification);
        }
        else if (m.event === "loads") slot.loads = m.loads;
        else logger[m.level](m.msg, { worker: slot.index, ...m.fields });
        return;
      }
      calls.answer(m);
    });
    // Said once, with the death it causes (died()).
    worker.on("error", (err) => {
      if (slot.worker === worker) slot.lastError = err.message;
    });
    worker.on("exit", (code) => this.died(slot, worker, code));
    // An idle worker must not keep an embedding host's process alive (shutdown ends them anyway), but
    // one that owes an answer must: a host awaiting a call would otherwise exit with nothing to do.
    worker.unref();
  }

  /**
   * A worker ended: fail what it owed and stop its captures; unless netemu is closing, say so (one error
   * line) and start it again with its nodes, or, when it keeps dying, give it up until its next attempt
   * or an operator's call (ADR 0073). Its nodes are dark until they are given back.
   */
  private died(slot: Slot, worker: Worker, code: number): void {
    if (slot.worker !== worker) return;
    slot.worker = undefined;
    const owed = slot.calls?.takeOwed() ?? [];
    slot.calls = undefined;
    for (const call of owed) call.reject(new Error(`data plane worker ${slot.index} stopped (exit code ${code}) before answering ${call.about}`));
    if (this.closed) return;

    const now = Date.now();
    const reason = slot.lastError ?? `exit code ${code}`;
    slot.deathsTotal++;
    slot.deaths.push(now);
    while (slot.deaths.length > 0 && (slot.deaths[0] as number) < now - RESTART_WINDOW_MS) slot.deaths.shift();
    const nodes = this.nodesOn(slot);
    if (slot.dark === undefined) slot.dark = { since: now, reason, exitCode: code, rates: new Map(slot.loads.map((l) => [l.nodeId, l.framesPerSecond])) };
    else Object.assign(slot.dark, { reason, exitCode: code });
    slot.restoring.clear();
    for (const node of nodes) slot.restoring.add(node.nodeId);
    this.stopCapturesOf(nodes, reason);

    const fields = {
      worker: slot.index,
      exitCode: code,
      reason,
      unanswered: owed.length,
      nodes: nodes.length,
      nodeNames: nodes.slice(0, NODES_NAMED).map((n) => n.name),
      deaths: slot.deaths.length,
    };
    if (slot.deaths.length >= MAX_DEATHS) {
      this.giveUp(slot, now, fields);
      return;
    }
    this.options.logger.error("data plane worker died; restarting it with its nodes", fields);
    this.tell(nodes, "restarted after a failure: its captures stopped and its counters and MAC table start again from zero");
    void this.restart(slot);
  }

  /** A worker that keeps dying waits, longer each time, before it is tried again by itself (ADR 0073). */
  private giveUp(slot: Slot, now: number, fields: Record<string, unknown>): void {
    if (slot.givenUpAt !== undefined && now - slot.givenUpAt > BACKOFF_MEMORY_MS) slot.retryMs = this.options.givenUpRetryMs ?? GIVEN_UP_RETRY_MS;
    const wait = slot.retryMs;
    slot.retryMs = Math.min(2 * wait, Math.max(wait, GIVEN_UP_RETRY_CAP_MS));
    slot.givenUpAt = now;
    const retryAt = now + wait;
    const timer = setTimeout(() => {
      if (slot.givenUp?.timer !== timer || this.closed) return;
      this.options.logger.info("trying a given-up data plane worker again", { worker: slot.index, waitedMs: wait });
      void this.comeBack(slot);
    }, wait);
    // The next attempt must not keep an embedding host's process alive.
    timer.unref();
    slot.givenUp = { retryAt, timer };
    this.options.logger.error("data plane worker keeps dying; not restarted: its nodes forward nothing until it is tried again, or brought back (POST /v2/netemu/data-plane/restart)", {
      ...fields,
      retryInMs: wait,
      nextAttempt: new Date(retryAt).toISOString(),
    });
    this.tell(this.nodesOn(slot), `stopped after repeated failures: it forwards nothing until it is tried again at ${new Date(retryAt).toISOString()}, or brought back by the operator`);
  }

  /** Ends a give-up: a fresh restart window, and the worker started with its nodes. */
  private comeBack(slot: Slot): Promise<void> {
    if (slot.givenUp !== undefined) clearTimeout(slot.givenUp.timer);
    slot.givenUp = undefined;
    slot.deaths.length = 0;
    return this.restart(slot);
  }

  /**
   * Starts the worker again and gives it back its nodes as last synced; resolves once each is given back
   * or refused. Its nodes are back (and the worker no longer dark) when all of them are.
   */
  private async restart(slot: Slot): Promise<void> {
    slot.restartsTotal++;
    this.spawn(slot);
    await this.restore(slot, this.nodesOn(slot));
  }

  /** Syncs each node whole on the slot's worker; a node not taken back stays dark (listed), and is said once. */
  private async restore(slot: Slot, nodes: readonly ComputeNode[]): Promise<void> {
    const worker = slot.worker;
    slot.restoresUnderWay++;
    try {
      await Promise.all(
        nodes.map(async (node) => {
          const synced = await this.serially(node.nodeId, async () => {
            // The record as it is now: it may have changed, or gone, while the worker was down.
            const now = this.desired.get(node.nodeId);
            return now === undefined || this.slotOf(node.nodeId) !== slot ? E.right(undefined) : this.syncOn(slot, now);
          }).catch((err: Error) => E.left(err));
          if (slot.worker !== worker) return;
          if (E.isRight(synced)) {
            slot.restoring.delete(node.nodeId);
            // A host whose TAPs were opened again by name is plugged into its namespace again (ADR 0087).
            const now = this.desired.get(node.nodeId);
            if (now !== undefined) this.options.notifications.publish({ kind: "node.restored", node: now });
          }
          else {
            const reason = synced.left instanceof Error ? synced.left.message : synced.left._tag;
            this.options.logger.error("a node could not be restored after its data plane worker restarted", { worker: slot.index, nodeId: node.nodeId, node: node.name, reason });
          }
        }),
      );
    } finally {
      slot.restoresUnderWay--;
    }
    this.noteBack(slot);
  }

  /** Once a dark worker runs and holds all its nodes again, they forward again: one info line. */
  private noteBack(slot: Slot): void {
    if (slot.dark === undefined || slot.worker === undefined) return;
    for (const nodeId of slot.restoring) if (!this.desired.has(nodeId) || this.slotOf(nodeId) !== slot) slot.restoring.delete(nodeId);
    if (slot.restoring.size > 0) return;
    const nodes = this.nodesOn(slot);
    this.options.logger.info("data plane worker's nodes are back: they forward again", { worker: slot.index, nodes: nodes.length, darkMs: Date.now() - slot.dark.since });
    slot.dark = undefined;
    for (const node of nodes) this.options.notifications.publish({ kind: "log", severity: "info", projectId: node.projectId, message: `The data plane of ${node.name} forwards again` });
  }

  /** The captures of these nodes stop with their worker: their files were closed with it; each is said stopped. */
  private stopCapturesOf(nodes: readonly ComputeNode[], reason: string): void {
    for (const node of nodes) {
      const running = this.captures.get(node.nodeId);
      if (running === undefined) continue;
      this.captures.delete(node.nodeId);
      for (const [portNumber, filePath] of running) {
        const why = `its data plane worker died (${reason})`;
        this.options.notifications.publish({ kind: "capture_failed", node, portNumber, filePath, reason: why });
        this.options.logger.error("capture stopped: its data plane worker died", { projectId: node.projectId, nodeId: node.nodeId, port: portNumber, filePath, reason });
      }
    }
  }

  /** The live nodes that run on this slot's worker. */
  private nodesOn(slot: Slot): ComputeNode[] {
    return [...this.desired.values()].filter((node) => this.slotOf(node.nodeId) === slot);
  }

  darkWorkers(): readonly DarkWorker[] {
    return this.slots.flatMap((slot) => {
      const dark = slot.dark;
      if (dark === undefined) return [];
      const state = slot.givenUp !== undefined ? "given_up" : slot.worker === undefined || slot.restoresUnderWay > 0 ? "restarting" : "running";
      const all = this.nodesOn(slot);
      const nodes: DarkNode[] = (slot.worker === undefined ? all : all.filter((n) => slot.restoring.has(n.nodeId))).map((n) => ({
        nodeId: n.nodeId,
        projectId: n.projectId,
        name: n.name,
        framesPerSecond: dark.rates.get(n.nodeId),
      }));
      return [{ worker: slot.index, state, reason: dark.reason, exitCode: dark.exitCode, since: new Date(dark.since), deaths: slot.deaths.length, nextAttempt: slot.givenUp === undefined ? undefined : new Date(slot.givenUp.retryAt), nodes }];
    });
  }

  lifeCounts(): readonly WorkerLifeCounts[] {
    return this.slots.map((slot) => ({ worker: slot.index, deaths: slot.deathsTotal, restarts: slot.restartsTotal }));
  }

  async bringBack(): Promise<readonly number[]> {
    if (this.closed) return [];
    const givenUp = this.slots.filter((slot) => slot.givenUp !== undefined);
    for (const slot of givenUp) this.options.logger.info("bringing back a given-up data plane worker", { worker: slot.index });
    await Promise.all([
      ...givenUp.map((slot) => this.comeBack(slot)),
      // A running worker that could not take some nodes back is asked again.
      ...this.slots.filter((slot) => slot.givenUp === undefined && slot.worker !== undefined && slot.dark !== undefined && !givenUp.includes(slot)).map((slot) => this.restore(slot, this.nodesOn(slot).filter((n) => slot.restoring.has(n.nodeId)))),
    ]);
    return givenUp.map((slot) => slot.index);
  }

  /** Tells each node's project, as GNS3 shows a compute's log.error to the user. */
  private tell(nodes: readonly ComputeNode[], what: string): void {
    for (const node of nodes) this.options.notifications.publish({ kind: "log", severity: "error", projectId: node.projectId, message: `The data plane of ${node.name} ${what}` });
  }

  private slotOf(nodeId: string | undefined): Slot {
    if (nodeId === undefined) return this.slots[0] as Slot;
    return this.slots[this.placed.get(nodeId) ?? workerIndexOf(nodeId, this.slots.length)] as Slot;
  }

  /** Runs `fn` after the node's sync, removal or move under way, if any. */
  private serially<T>(nodeId: string, fn: () => Promise<T>): Promise<T> {
    const before = this.queue.get(nodeId) ?? Promise.resolve();
    const run = before.then(fn, fn);
    const tail = run.catch(() => undefined);
    this.queue.set(nodeId, tail);
    void tail.then(() => {
      if (this.queue.get(nodeId) === tail) this.queue.delete(nodeId);
    });
    return run;
  }

  /**
   * A reading about a node goes to the worker it is on once nothing is under way for it (a move changes
   * which): it does not queue, but waits until the queue is empty, so it never reaches a worker mid-move.
   * While that worker is down the answer is `whileDown`: what the node had went with it (ADR 0073).
   */
  private async read<K extends WorkerOp>(nodeId: string, op: K, whileDown: WorkerResult<K>, ...args: WorkerArgs<K>): Promise<WorkerResult<K>> {
    for (let underWay = this.queue.get(nodeId); underWay !== undefined; underWay = this.queue.get(nodeId)) await underWay;
    const slot = this.slotOf(nodeId);
    return this.isDown(slot) ? whileDown : this.send(slot, op, args);
  }

  /** A worker that died and has not been started again (restarting, or given up); not one netemu closed. */
  private isDown(slot: Slot): boolean {
    return slot.worker === undefined && !this.closed;
  }

  /** Posts a call typed by the protocol's declaration; its answer is the op's result. */
  private send<K extends WorkerOp>(slot: Slot, op: K, args: WorkerArgs<K>): Promise<WorkerResult<K>> {
    const calls = slot.calls;
    if (slot.worker === undefined || calls === undefined) return Promise.reject(new Error(`data plane worker ${slot.index} is not running`));
    return calls.call<WorkerResult<K>>(op, (id) => ({ id, op, args }) as WorkerRequest);
  }

  /**
   * The programs of the bpf and match filters the NIOs run that the worker was not sent yet, compiled
   * here (once per text, by the programs' cache): the worker only instantiates them. A filter that does
   * not compile is the sync's refusal, as it would be on the main thread.
   */
  private async programsOf(slot: Slot, nios: Iterable<Nio>): Promise<E.Either<ErrorOf<"InvalidFilterSettings">, BpfProgram[]>> {
    const wanted = new Map<string, { kind: "bpf" | "match"; lines: string[] }>();
    for (const nio of nios) {
      if (!carriesFrames(nio)) continue;
      for (const settings of [filtersOf(nio, "in"), filtersOf(nio, "out")]) {
        for (const [kind, lines] of [["bpf", bpfLines(settings)], ["match", matchLines(settings)]] as const) {
          if (lines.length > 0 && !slot.programsSent.has(expressionText(lines))) wanted.set(expressionText(lines), { kind, lines });
        }
      }
    }
    const programs: BpfProgram[] = [];
    for (const { kind, lines } of wanted.values()) {
      const program = await this.options.programs.program(lines);
      if (E.isLeft(program)) return E.left({ _tag: "InvalidFilterSettings", problem: { problem: "bpf_invalid", kind, ...program.left } });
      programs.push(program.right);
    }
    return E.right(programs);
  }

  /** The traces the NIOs' filters name, as plain data for the worker (ADR 0103); a name the store does not hold is the sync's refusal. */
  private tracesOf(nios: Iterable<Nio>): E.Either<ErrorOf<"InvalidFilterSettings">, NamedTrace[]> {
    const settings: FilterSettings[] = [];
    for (const nio of nios) if (carriesFrames(nio)) settings.push(filtersOf(nio, "in"), filtersOf(nio, "out"));
    const used = tracesUsed(settings, this.options.traces ?? NO_TRACES);
    return E.isLeft(used) ? used : E.right([...used.right].map(([name, trace]) => ({ name, trace })));
  }

  /** Notes the programs a sync carries as held by the worker it goes to (which stores them first thing). */
  private noteSent(slot: Slot, programs: readonly BpfProgram[]): void {
    if (slot.programsSent.size + programs.length > PROGRAMS_KNOWN_SENT) slot.programsSent.clear();
    for (const program of programs) slot.programsSent.add(expressionText(program.lines));
  }

  /**
   * Sends the worker what changed since the sync it took last (the whole node if it holds none); with
   * `state`, the whole node as one coming from another worker, which takes up that state (ADR 0069).
   */
  private async syncOn(slot: Slot, node: ComputeNode, state?: NodeState): Promise<E.Either<SyncError, void>> {
    const change = nodeChange(slot.holds.has(node.nodeId) && state === undefined ? this.desired.get(node.nodeId) : undefined, node);
    const programs = await this.programsOf(slot, change.nios.values());
    if (E.isLeft(programs)) return programs;
    const traces = this.tracesOf(change.nios.values());
    if (E.isLeft(traces)) return traces;
    const worker = slot.worker;
    const sending = state === undefined ? this.send(slot, "sync", [change, programs.right, traces.right]) : this.send(slot, "takeOver", [change, programs.right, state, traces.right]);
    this.noteSent(slot, programs.right);
    const synced = await sending;
    // Only the worker that answered holds it (one restarted meanwhile holds nothing).
    if (E.isRight(synced) && slot.worker === worker) slot.holds.add(node.nodeId);
    return synced;
  }

  /**
   * While the node's worker is down its record is still checked and kept (ADR 0073): it is what the
   * worker is given when it comes back, so an operator can stop or change a node that floods its worker
   * before bringing that worker back.
   */
  sync(node: ComputeNode): Promise<E.Either<SyncError, void>> {
    return this.serially(node.nodeId, async () => {
      const slot = this.slotOf(node.nodeId);
      if (this.isDown(slot)) {
        const programs = await this.programsOf(slot, node.nios.values());
        if (E.isLeft(programs)) return programs;
        const traces = this.tracesOf(node.nios.values());
        if (E.isLeft(traces)) return traces;
        this.desired.set(node.nodeId, node);
        slot.restoring.add(node.nodeId);
        return E.right(undefined);
      }
      const synced = await this.syncOn(slot, node);
      if (E.isRight(synced)) {
        this.desired.set(node.nodeId, node);
        // A port whose NIO went took its capture with it.
        const running = this.captures.get(node.nodeId);
        for (const portNumber of running?.keys() ?? []) if (!node.nios.has(portNumber)) running?.delete(portNumber);
        // A node a restarted worker could not take back, taken now.
        if (slot.restoring.delete(node.nodeId)) this.noteBack(slot);
      }
      return synced;
    });
  }
  removeNode(nodeId: string): Promise<void> {
    return this.serially(nodeId, async () => {
      const slot = this.slotOf(nodeId);
      this.desired.delete(nodeId);
      this.placed.delete(nodeId);
      this.movedAt.delete(nodeId);
      slot.holds.delete(nodeId);
      this.captures.delete(nodeId);
      // A worker that is down holds nothing of it.
      if (slot.restoring.delete(nodeId)) this.noteBack(slot);
      if (slot.worker !== undefined) await this.send(slot, "removeNode", [nodeId]);
    });
  }

  /**
   * Moves a node to worker `to` (ADR 0069): handed over where it runs (its sockets stop being read, its
   * state is taken), then synced whole on `to`, which takes the same sockets over (the batched path: what
   * came meanwhile waited in the kernel, nothing is lost) or binds the same ports again (node:dgram: what
   * came between the close and the bind is lost), and takes up that state (MAC table, counters, filter
   * chains, the frames its delay lines held) before any frame reaches it. If `to` cannot take it, it is
   * put back where it was, with its state. True when it moved; false when there was nothing to do (an unknown
   * node or worker, the worker it is on, a worker not running), a capture runs on it, or it was put back.
   */
  moveNode(nodeId: string, to: number): Promise<boolean> {
    return this.serially(nodeId, async () => {
      const node = this.desired.get(nodeId);
      const from = this.slotOf(nodeId);
      const target = this.slots[to];
      if (node === undefined || target === undefined || target === from || target.worker === undefined || from.worker === undefined) return false;
      // Closed there first: Node 20's dgram has no reusePort, so the target cannot bind the ports before.
      const handed = await this.send(from, "handOver", [nodeId]);
      if (E.isLeft(handed)) {
        // Moving would stop the capture or split its file between two threads: the node stays (ADR 0069).
        this.options.logger.info("a node stays on its data plane worker while a capture runs on it", { nodeId, worker: from.index, port: handed.left.portNumber });
        return false;
      }
      from.holds.delete(nodeId);
      const state = handed.right ?? { nodeId, learned: [], ports: [] };
      const synced = await this.syncOn(target, node, state).catch((err: Error) => E.left(err));
      if (E.isRight(synced)) {
        if (to === workerIndexOf(nodeId, this.slots.length)) this.placed.delete(nodeId);
        else this.placed.set(nodeId, to);
        this.options.logger.info("node moved to another data plane worker", { nodeId, from: from.index, to });
        return true;
      }
      const reason = synced.left instanceof Error ? synced.left.message : synced.left._tag;
      const back = await this.syncOn(from, node, state).catch((err: Error) => E.left(err));
      this.options.logger.error("a node could not move to another data plane worker", { nodeId, from: from.index, to, reason, restored: E.isRight(back) });
      return false;
    });
  }
  /** None while its worker is down: they went with it, and a restart starts them from zero (ADR 0073). */
  counters(nodeId: string): Promise<ReadonlyMap<number, PortCounters>> {
    return this.read(nodeId, "counters", new Map(), nodeId);
  }
  /** Empty while its worker is down, as after its restart. */
  macTable(nodeId: string): Promise<readonly MacTableEntry[]> {
    return this.read(nodeId, "macTable", [], nodeId);
  }
  /**
   * Starts and stops take their turn in the node's queue (ADR 0074): a move asked after a start waits
   * for the capture to be attached (and is then refused while it runs); a start asked after a move runs
   * on the worker the node went to. Neither reaches a worker while the node is handed over.
   */
  start(nodeId: string, portNumber: number, filePath: string): Promise<E.Either<CaptureStartRefusal, void>> {
    return this.serially(nodeId, async (): Promise<E.Either<CaptureStartRefusal, void>> => {
      const slot = this.slotOf(nodeId);
      if (this.isDown(slot)) return E.left({ _tag: "DataPlaneWorkerDown", worker: slot.index, state: slot.givenUp === undefined ? "restarting" : "given_up" });
      const started = await this.send(slot, "start", [nodeId, portNumber, filePath]);
      if (E.isRight(started)) {
        const running = this.captures.get(nodeId) ?? new Map<number, string>();
        this.captures.set(nodeId, running.set(portNumber, filePath));
      }
      return started;
    });
  }
  /** A capture on a worker that is down stopped with it (its file closed): nothing to stop (ADR 0073). */
  stop(nodeId: string, portNumber: number): Promise<void> {
    return this.serially(nodeId, async () => {
      this.captures.get(nodeId)?.delete(portNumber);
      const slot = this.slotOf(nodeId);
      if (!this.isDown(slot)) await this.send(slot, "stop", [nodeId, portNumber]);
    });
  }
  /** None while its worker is down: its capture stopped when the worker died (ADR 0073). */
  fileOf(nodeId: string, portNumber: number): Promise<string | undefined> {
    return this.read(nodeId, "fileOf", undefined, nodeId, portNumber);
  }

  /**
   * Each live node's frame rate with the worker it runs on, as the workers last reported (ADR 0069):
   * what `planMove` places nodes by. A worker that is not running, or has not reported yet, gives none.
   */
  nodeLoads(): NodeLoad[] {
    return this.slots.flatMap((slot) =>
      slot.worker === undefined ? [] : slot.loads.filter((l) => this.desired.has(l.nodeId) && this.slotOf(l.nodeId) === slot).map((l) => ({ nodeId: l.nodeId, worker: slot.index, load: l.framesPerSecond })),
    );
  }

  /** A worker that is not running (or dies meanwhile) has no reading: the others still give theirs. */
  async eventLoopDelays(): Promise<readonly LoopDelay[]> {
    const readings = await Promise.allSettled(this.slots.map(async (slot) => ({ ...(await this.send(slot, "eventLoopDelay", [])), worker: slot.index })));
    return readings.flatMap((r) => (r.status === "fulfilled" ? [r.value] : []));
  }

  /**
   * Closes every node's sockets and captures in each running worker, then ends the workers. Idempotent.
   * What is under way for a node (a capture start opening its file, a move) ends first, so the close
   * finds every capture attached where it can close it.
   */
  async close(): Promise<void> {
    if (this.closed) return;
    this.closed = true;
    clearInterval(this.rebalancer);
    for (const slot of this.slots) if (slot.givenUp !== undefined) clearTimeout(slot.givenUp.timer);
    await Promise.allSettled([...this.queue.values()]);
    const running = this.slots.filter((slot) => slot.worker !== undefined);
    await Promise.all(running.map((slot) => this.send(slot, "close", []).catch(() => undefined)));
    await Promise.all(running.map((slot) => slot.worker?.terminate()));
  }
}
