import { inject, injectable } from "tsyringe";
import type * as E from "fp-ts/lib/Either.js";
import type { ComputeNode } from "../../domain/switching/compute-node.js";
import type { DataPlane, MacTableEntry, PortCounters } from "../ports/data-plane.js";
import type { CaptureStartRefusal, PacketCaptures } from "../ports/packet-captures.js";
import type { UdpTransport } from "../ports/udp-transport.js";
import type { HostDevices } from "../ports/host-devices.js";
import type { CaptureSink } from "../ports/capture-sink.js";
import type { Clock, Logger } from "../ports/system.js";
import type { RandomSourceFactory, Timers } from "../ports/timers.js";
import type { BpfPrograms } from "../ports/bpf-compiler.js";
import { NO_TRACES, type TraceBook } from "../ports/trace-store.js";
import type { ComputeNotification, Notifications } from "../ports/notifications.js";
import { TOKENS } from "../ports/tokens.js";
import type { SyncError } from "../errors.js";
import { DEFAULT_INTAKE_BUDGET, FairIntake } from "./fair-intake.js";
import type { CaptureRunning, NodeState } from "./node-state.js";
import type { DataPlaneOptions } from "./data-plane-options.js";
import type { LiveNodes } from "./live-node.js";
import { FramePath } from "./frame-path.js";
import { Reconciler } from "./reconcile.js";
import { NodeHandOver } from "./node-hand-over.js";
import { PortCaptures } from "./port-captures.js";
import { frameTotalsOf, macTableOf, portCountersOf } from "./data-plane-queries.js";

export { DEFAULT_DATA_PLANE_OPTIONS, type DataPlaneOptions } from "./data-plane-options.js";

/**
 * The data plane of the switches and hubs of one thread, composed of its jobs, each a module of its
 * own over the one live state (`live-node.ts`), as Open vSwitch keeps `bridge.c` apart from its
 * datapath (ADR 0077): reconcile (`reconcile.ts`: a record's NIOs, mapping and status onto live
 * ports), the frame path (`frame-path.ts`: ingress and egress of every frame), captures
 * (`port-captures.ts`), node hand-over between workers (`node-hand-over.ts`) and queries
 * (`data-plane-queries.ts`). This class implements the DataPlane and PacketCaptures ports with them.
 */
@injectable()
export class SwitchDataPlane implements DataPlane, PacketCaptures {
  private readonly nodes: LiveNodes = new Map();
  private readonly reconciler: Reconciler;
  private readonly moves: NodeHandOver;
  private readonly captures: PortCaptures;

  constructor(
    @inject(TOKENS.UdpTransport) private readonly transport: UdpTransport,
    @inject(TOKENS.CaptureSink) captureSink: CaptureSink,
    @inject(TOKENS.Clock) private readonly clock: Clock,
    @inject(TOKENS.Timers) timers: Timers,
    @inject(TOKENS.RandomSourceFactory) randomness: RandomSourceFactory,
    @inject(TOKENS.BpfPrograms) programs: BpfPrograms,
    @inject(TOKENS.Logger) private readonly logger: Logger,
    @inject(TOKENS.DataPlaneOptions) options: DataPlaneOptions,
    @inject(TOKENS.Notifications) private readonly notifications: Notifications,
    @inject(TOKENS.HostDevices) devices: HostDevices,
    @inject(TOKENS.TraceBook) traces: TraceBook = NO_TRACES,
  ) {
    const tell = this.tell.bind(this);
    // Every port's frames share this thread fairly (ADR 0075).
    const intake = new FairIntake(clock, timers, options.intake ?? DEFAULT_INTAKE_BUDGET);
    const path = new FramePath(clock, logger, tell);
    this.moves = new NodeHandOver(this.nodes);
    // Each socket is opened through this data plane's own transport as it is at the time of the open.
    const sockets: UdpTransport = { open: (socket) => this.transport.open(socket) };
    this.reconciler = new Reconciler(this.nodes, sockets, clock, timers, randomness, programs, options, intake, path, this.moves, devices, traces);
    this.captures = new PortCaptures(this.nodes, captureSink, logger, tell);
  }

  /** Frames and bytes every delay line of this data plane holds now (never beyond heldFramesPerWorker / heldBytesPerWorker). */
  held(): { readonly frames: number; readonly bytes: number } {
    return { frames: this.reconciler.threadBudget.frames, bytes: this.reconciler.threadBudget.bytes };
  }

  /** Tells the user (the controller's console, through the notifications) and the operator's log. */
  private tell(notification: ComputeNotification, logLine: string, fields: Record<string, unknown>): void {
    this.notifications.publish(notification);
    const node = notification.kind === "log" ? undefined : notification.node;
    const log = notification.kind === "capture_failed" ? this.logger.error : this.logger.warn;
    log.call(this.logger, logLine, { projectId: node?.projectId, nodeId: node?.nodeId, ...fields });
  }

  /** Makes the live node match its record by value (ADR 0037, 0055): see Reconciler.sync. */
  sync(node: ComputeNode): Promise<E.Either<SyncError, void>> {
    return this.reconciler.sync(node);
  }

  /** Lets a node go to another worker, with what it knows (ADR 0069): see NodeHandOver.handOver. */
  handOver(nodeId: string): Promise<E.Either<CaptureRunning, NodeState | undefined>> {
    return this.moves.handOver(nodeId);
  }

  /** Takes a node over from another worker: synced here, taking up `state` as its ports are attached. */
  takeOver(node: ComputeNode, state: NodeState): Promise<E.Either<SyncError, void>> {
    return this.moves.takeOver(node, state, (n) => this.reconciler.sync(n));
  }

  async removeNode(nodeId: string): Promise<void> {
    const live = this.nodes.get(nodeId);
    if (live === undefined) return;
    this.nodes.delete(nodeId);
    await live.closePorts();
  }

  async counters(nodeId: string): Promise<ReadonlyMap<number, PortCounters>> {
    return portCountersOf(this.nodes.get(nodeId), this.clock);
  }

  /** Frames each node has taken in and sent out since its ports were attached (ADR 0069): see frameTotalsOf. */
  frameTotals(): ReadonlyMap<string, number> {
    return frameTotalsOf(this.nodes);
  }

  async macTable(nodeId: string): Promise<readonly MacTableEntry[]> {
    return macTableOf(this.nodes.get(nodeId), this.clock);
  }

  start(nodeId: string, portNumber: number, filePath: string): Promise<E.Either<CaptureStartRefusal, void>> {
    return this.captures.start(nodeId, portNumber, filePath);
  }

  stop(nodeId: string, portNumber: number): Promise<void> {
    return this.captures.stop(nodeId, portNumber);
  }

  async fileOf(nodeId: string, portNumber: number): Promise<string | undefined> {
    return this.captures.fileOf(nodeId, portNumber);
  }

  async close(): Promise<void> {
    for (const nodeId of [...this.nodes.keys()]) await this.removeNode(nodeId);
    // A start still opening its file finds its port gone and closes the file: waited for, so none outlives close.
    await this.captures.settled();
    this.logger.debug("data plane closed");
  }
}
