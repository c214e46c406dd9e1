import { EthernetSwitchFabric } from "../../domain/switching/forwarding.js";
import { HubFabric } from "../../domain/switching/hub-fabric.js";
import type { PortCounters as LivePortCounters } from "../../domain/switching/port-counters.js";
import type { ComputeNode } from "../../domain/switching/compute-node.js";
import { NODE_KINDS } from "../../domain/switching/node-kind.js";
import { hostPairOf } from "../../domain/switching/host-node.js";
import type { Nio } from "../../domain/switching/nio.js";
import type { UdpEndpoint } from "../ports/udp-transport.js";
import type { CaptureWriter } from "../ports/capture-sink.js";
import type { ComputeNotification } from "../ports/notifications.js";
import type { DelayLine, HeldFrames } from "./delay-line.js";
import type { TransmitQueue } from "./transmit-queue.js";
import type { PortQueueStatistics } from "../../domain/queueing/queue-statistics.js";
import type { PortIntake } from "./fair-intake.js";
import type { PortState } from "./node-state.js";
import type { PortChains } from "./port-chains.js";
import type { DataPlaneOptions } from "./data-plane-options.js";

/**
 * The live state every job of the data plane works on (reconcile, the frame path, captures, hand-over,
 * queries): the nodes of this thread, their ports and fabrics. Each job is a module of its own; this
 * one only holds the state and what closing it takes.
 */
export type LiveNodes = Map<string, LiveNode>;

/** Tells the user (the controller's console, through the notifications) and the operator's log. */
export type Tell = (notification: ComputeNotification, logLine: string, fields: Record<string, unknown>) => void;

/** One live switch port: its NIO's socket, its filter chain, its delay lines and capture. */
export class LivePort {
  endpoint: UdpEndpoint | undefined;
  /** Where its socket's frames go in: handled within the port's budget per turn, or kept, or shed (ADR 0075). */
  intake: PortIntake | undefined;
  /** The fabric's counters of this port (set once the port is attached). */
  counters: LivePortCounters | undefined;
  /** The chain each direction runs: one shared object unless the NIO has direction-specific filters. */
  chains: PortChains;
  capture: { writer: CaptureWriter; path: string } | undefined;
  /** Set while a capture's file is being opened for this port: a second start and a hand-over are refused meanwhile. */
  captureOpening = false;
  /** Frames lost to a throw on this port's path (a bug, or a socket that broke under us). */
  faults = 0;
  /**
   * Frames that came between its socket's open and its attach to the node (a socket taken over from
   * another worker is read at once): passed on once attached, so none is lost (ADR 0069).
   */
  early: Uint8Array[] | undefined = [];
  /** Set when the socket reported the peer unreachable; cleared when a frame from it arrives. */
  peerUnreachable = false;
  /** Frames received on the port, waiting out its delay before they reach the switch. */
  readonly ingressDelay: DelayLine;
  /** Frames the switch sent to the port, waiting out its delay before they leave. */
  readonly egressDelay: DelayLine;
  /** Frames reorder let skip the delay but that still wait for the rate limit: made when first needed. */
  private express: { ingress?: DelayLine; egress?: DelayLine } = {};
  /** The bandwidth stage's queues (CoDel, FQ-CoDel: ADR 0100), by direction: made when a frame first needs one. */
  private queues: { ingress?: TransmitQueue; egress?: TransmitQueue } = {};
  /** Makes a direction's queue; none for a port made without (a test's). */
  makeQueue: ((direction: "ingress" | "egress") => TransmitQueue) | undefined;

  constructor(
    readonly portNumber: number,
    public nio: Nio,
    chains: PortChains,
    makeLine: (deliver: (frame: Uint8Array) => void) => DelayLine,
    toSwitch: (frame: Uint8Array) => void,
    toWire: (frame: Uint8Array) => void,
  ) {
    this.chains = chains;
    this.ingressDelay = makeLine(toSwitch);
    this.egressDelay = makeLine(toWire);
    this.expressLine = (direction) => (this.express[direction] ??= makeLine(direction === "ingress" ? toSwitch : toWire));
  }

  readonly expressLine: (direction: "ingress" | "egress") => DelayLine;

  /** The direction's bandwidth queue (ADR 0100), made when first needed. */
  transmitQueue(direction: "ingress" | "egress"): TransmitQueue | undefined {
    const made = this.queues[direction] ?? this.makeQueue?.(direction);
    if (made !== undefined) this.queues[direction] = made;
    return made;
  }

  /** The direction's bandwidth queue if it has made one (none is made for asking). */
  queueOf(direction: "ingress" | "egress"): TransmitQueue | undefined {
    return this.queues[direction];
  }

  /** Stops the bandwidth queues and gives what they held (a node moving: ADR 0069, 0100); undefined when none ran. */
  handOverQueues(): PortState["queues"] {
    const ingress = this.queues.ingress?.handOver();
    const egress = this.queues.egress?.handOver();
    if (ingress === undefined && egress === undefined) return undefined;
    return { ...(ingress === undefined ? {} : { ingress }), ...(egress === undefined ? {} : { egress }) };
  }

  /**
   * Takes up what the same port's bandwidth queues held on another thread, under the discipline each
   * direction's chain runs here. A direction whose chain here queues nothing (its settings changed
   * meanwhile) has no queue to take them: they are dropped and counted (`delay_limit`), not lost unseen.
   */
  takeUpQueues(queues: PortState["queues"]): void {
    for (const direction of ["ingress", "egress"] as const) {
      const held = queues?.[direction];
      if (held === undefined) continue;
      const discipline = this.chains[direction].queue?.discipline;
      const queue = discipline === undefined ? undefined : this.transmitQueue(direction);
      if (discipline !== undefined && queue !== undefined) queue.takeUp(held, discipline);
      else for (const entry of [...held.frames, ...(held.inFlight === undefined ? [] : [held.inFlight])]) this.dropHeld(direction, entry.frame.byteLength);
    }
  }

  /** What each direction's bandwidth queue did, for the directions that ran one. */
  queueStatistics(): PortQueueStatistics | undefined {
    const ingress = this.queues.ingress?.statistics();
    const egress = this.queues.egress?.statistics();
    if (ingress === undefined && egress === undefined) return undefined;
    return { ...(ingress === undefined ? {} : { ingress }), ...(egress === undefined ? {} : { egress }) };
  }

  /** Stops the delay lines and gives what they held (a node moving: ADR 0069). */
  handOverLines(): PortState["held"] {
    return {
      ingress: this.ingressDelay.handOver(),
      egress: this.egressDelay.handOver(),
      ...(this.express.ingress === undefined ? {} : { expressIngress: this.express.ingress.handOver() }),
      ...(this.express.egress === undefined ? {} : { expressEgress: this.express.egress.handOver() }),
    };
  }

  /** Takes up what the same port's delay lines held on another thread; what this thread's bounds leave out is dropped and counted. */
  takeUpLines(held: PortState["held"]): void {
    const takeUp = (line: DelayLine, frames: HeldFrames | undefined, direction: "ingress" | "egress"): void => {
      if (frames === undefined) return;
      for (const bytes of line.takeUp(frames)) this.dropHeld(direction, bytes);
    };
    takeUp(this.ingressDelay, held.ingress, "ingress");
    takeUp(this.egressDelay, held.egress, "egress");
    if (held.expressIngress !== undefined) takeUp(this.expressLine("ingress"), held.expressIngress, "ingress");
    if (held.expressEgress !== undefined) takeUp(this.expressLine("egress"), held.expressEgress, "egress");
  }

  /**
   * A frame its delay's bound had no room for, counted as `delay_limit` (ADR 0072): an ingress frame had
   * not reached the switch yet, so it is received and dropped here; an egress frame never left.
   */
  dropHeld(direction: "ingress" | "egress", bytes: number): void {
    if (direction === "ingress") this.counters?.countInDropped(bytes, "delay_limit");
    else this.counters?.countEgressDrop("delay_limit");
  }

  closeLines(): void {
    this.ingressDelay.close();
    this.egressDelay.close();
    this.express.ingress?.close();
    this.express.egress?.close();
    this.queues.ingress?.close();
    this.queues.egress?.close();
  }

  /** Detaches and closes its capture's writer, if one runs. */
  async closeCapture(): Promise<void> {
    const capture = this.capture;
    this.capture = undefined;
    await capture?.writer.close();
  }
}

/** The forwarding of one node: an 802.1Q switch fabric or a hub's repeater. */
type LiveFabric = { readonly kind: "ethernet_switch"; readonly fabric: EthernetSwitchFabric } | { readonly kind: "ethernet_hub"; readonly fabric: HubFabric };

export class LiveNode {
  readonly ports = new Map<number, LivePort>();
  /** Only a started node forwards. */
  running: boolean;
  constructor(
    readonly live: LiveFabric,
    public node: ComputeNode,
  ) {
    this.running = node.status === "started";
  }

  /** A node's live state before any of its ports: a switch fabric (MAC table bounded by the options) or a hub. */
  static of(node: ComputeNode, options: DataPlaneOptions): LiveNode {
    const kind = NODE_KINDS[node.nodeType].fabric;
    const fabric: LiveFabric =
      kind === "switch"
        ? { kind: "ethernet_switch", fabric: new EthernetSwitchFabric({ agingTimeMs: options.macAgingMs, capacity: options.macTableCapacity }) }
        : { kind: "ethernet_hub", fabric: new HubFabric(kind === "host" ? hostPairOf : undefined) };
    return new LiveNode(fabric, node);
  }

  forward(portNumber: number, frame: Uint8Array, nowMs: number) {
    return this.live.kind === "ethernet_switch" ? this.live.fabric.forward(portNumber, frame, nowMs) : this.live.fabric.forward(portNumber, frame);
  }

  counters(portNumber: number): LivePortCounters | undefined {
    return this.live.fabric.counters(portNumber);
  }

  /** Takes a port out of the node's forwarding and closes its delay lines, capture and socket. */
  async closePort(portNumber: number): Promise<void> {
    const port = this.ports.get(portNumber);
    if (port === undefined) return;
    this.ports.delete(portNumber);
    this.live.fabric.removePort(portNumber);
    port.intake?.close();
    port.closeLines();
    await port.closeCapture();
    await port.endpoint?.close();
  }

  /** Closes every port, one after the other. */
  async closePorts(): Promise<void> {
    for (const portNumber of [...this.ports.keys()]) await this.closePort(portNumber);
  }
}
