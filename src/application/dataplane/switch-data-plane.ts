import { inject, injectable } from "tsyringe";
import * as E from "fp-ts/lib/Either.js";
import { EthernetSwitchFabric } from "../../domain/switching/forwarding.js";
import { HubFabric } from "../../domain/switching/hub-fabric.js";
import { PortCounters as LivePortCounters, type DropReason } from "../../domain/switching/port-counters.js";
import { portOf } from "../../domain/switching/ethernet-switch.js";
import { type ComputeNode, hasPort } from "../../domain/switching/compute-node.js";
import { type Port, portFromMapping, portsMappingEqual } from "../../domain/switching/port.js";
import { type Nio, nioEqual, sameEndpoint } from "../../domain/switching/nio.js";
import type { BpfMatcher } from "../../domain/filters/filter-chain.js";
import { type FilterSettings, type TextLinesKind, bpfLines, expressionText, matchLines } from "../../domain/filters/filter-settings.js";
import { instantiateProgram } from "../../domain/bpf/index.js";
import type { DataPlane, MacTableEntry, PortCounters } from "../ports/data-plane.js";
import type { CaptureStartRefusal, PacketCaptures } from "../ports/packet-captures.js";
import type { SocketHandover, UdpEndpoint, UdpTransport } from "../ports/udp-transport.js";
import type { CaptureSink, CaptureWriter } from "../ports/capture-sink.js";
import type { Clock, Logger } from "../ports/system.js";
import type { RandomSourceFactory, Timers } from "../ports/timers.js";
import type { BpfPrograms } from "../ports/bpf-compiler.js";
import type { ComputeNotification, Notifications } from "../ports/notifications.js";
import { TOKENS } from "../ports/tokens.js";
import type { ErrorOf, SyncError } from "../errors.js";
import { DelayLine, type HeldFrames } from "./delay-line.js";
import { HoldBudget } from "../../domain/filters/hold-limit.js";
import { DEFAULT_INTAKE_BUDGET, FairIntake, type IntakeBudget, type PortIntake } from "./fair-intake.js";
import type { CaptureRunning, NodeState, PortState } from "./node-state.js";
import { type ChainSpec, type PortChains, directionSettings, reconcileChains } from "./port-chains.js";

/** The largest UDP payload over IPv4: a frame that grew past it (a pushed tag) cannot be sent. */
const MAX_UDP_PAYLOAD = 65_507;
/** Frames kept for a port not attached yet: a few ms of a busy link; more waits in the kernel anyway. */
const MAX_EARLY_FRAMES = 4096;

export interface DataPlaneOptions {
  /** MAC address aging, ms (802.1Q default 300 s). */
  readonly macAgingMs: number;
  /** MAC table size per switch; the oldest entry goes when it is full. */
  readonly macTableCapacity: number;
  /**
   * Frames and bytes (the frames' own length) the delays of one port may hold at once, both
   * directions together; a frame beyond either is dropped (`delay_limit`, ADR 0072).
   */
  readonly heldFramesPerPort: number;
  readonly heldBytesPerPort: number;
  /** The same, for every port of one data-plane thread together (a worker, or the main thread without workers). */
  readonly heldFramesPerWorker: number;
  readonly heldBytesPerWorker: number;
  /** The work one port may make its thread do per turn, and what it may hold past it (ADR 0075). */
  readonly intake?: IntakeBudget;
}

/**
 * Per port, 64 MiB: half a second of a 1 Gbit/s link (netem's default `limit` of 1,000 packets is
 * 12 ms of it); per thread, four such ports. 65,536 frames bound the bookkeeping of small frames.
 */
export const DEFAULT_DATA_PLANE_OPTIONS: DataPlaneOptions = {
  macAgingMs: 300_000,
  macTableCapacity: 8192,
  heldFramesPerPort: 65_536,
  heldBytesPerPort: 64 * 1024 * 1024,
  heldFramesPerWorker: 262_144,
  heldBytesPerWorker: 256 * 1024 * 1024,
};

/** One live switch port: its NIO's socket, its filter chain, its delay lines and capture. */
class LivePort {
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
    const takeUp = (line: DelayLine, frames: HeldFrames | undefined): void => {
      if (frames === undefined) return;
      // A held ingress frame had not reached the switch yet: it is received and dropped here.
      const ingress = line === this.ingressDelay || line === this.express.ingress;
      for (const bytes of line.takeUp(frames)) {
        if (ingress) this.counters?.countInDropped(bytes, "delay_limit");
        else this.counters?.countEgressDrop("delay_limit");
      }
    };
    takeUp(this.ingressDelay, held.ingress);
    takeUp(this.egressDelay, held.egress);
    if (held.expressIngress !== undefined) takeUp(this.expressLine("ingress"), held.expressIngress);
    if (held.expressEgress !== undefined) takeUp(this.expressLine("egress"), held.expressEgress);
  }

  closeLines(): void {
    this.ingressDelay.close();
    this.egressDelay.close();
    this.express.ingress?.close();
    this.express.egress?.close();
  }
}

/** The forwarding of one node: an 802.1Q switch fabric or a hub's repeater. */
type LiveFabric = { readonly kind: "ethernet_switch"; readonly fabric: EthernetSwitchFabric } | { readonly kind: "ethernet_hub"; readonly fabric: HubFabric };

class LiveNode {
  readonly ports = new Map<number, LivePort>();
  /** Only a started node forwards. */
  running: boolean;
  constructor(
    readonly live: LiveFabric,
    public node: ComputeNode,
  ) {
    this.running = node.status === "started";
  }

  forward(portNumber: number, frame: Uint8Array, nowMs: number) {
    return this.live.kind === "ethernet_switch" ? this.live.fabric.forward(portNumber, frame, nowMs) : this.live.fabric.forward(portNumber, frame);
  }

  counters(portNumber: number): LivePortCounters | undefined {
    return this.live.fabric.counters(portNumber);
  }

}

/**
 * The frame path of the switches and hubs. A frame received on port P: P's counters, P's filter
 * chain (drop, or corrupt, or hold for its delay), P's capture, then the node's fabric (802.1Q
 * switch or hub); each egress port Q: Q's filter chain, Q's delay, Q's capture, Q's socket. So a
 * link end's filters act on both directions, and captures see frames after the filters. A stopped
 * or suspended node drops what it receives.
 */
@injectable()
export class SwitchDataPlane implements DataPlane, PacketCaptures {
  private readonly nodes = new Map<string, LiveNode>();
  /** The matcher of each expression text in use (instantiated from its program once). */
  private readonly matchers = new Map<string, BpfMatcher>();
  /** The state of nodes arriving from another worker, taken up as their ports are attached (takeOver). */
  private readonly arriving = new Map<string, NodeState>();
  /** What every delay line of this thread holds, within its bound (ADR 0072); made with the options. */
  private heldHere: HoldBudget | undefined;
  /** Capture starts under way (their file being opened): close() waits for them, so none leaves its file open. */
  private readonly starting = new Set<Promise<unknown>>();
  /** Every port's frames share this thread fairly (ADR 0075). */
  private readonly intake: FairIntake;

  constructor(
    @inject(TOKENS.UdpTransport) private readonly transport: UdpTransport,
    @inject(TOKENS.CaptureSink) private readonly captureSink: CaptureSink,
    @inject(TOKENS.Clock) private readonly clock: Clock,
    @inject(TOKENS.Timers) private readonly timers: Timers,
    @inject(TOKENS.RandomSourceFactory) private readonly randomness: RandomSourceFactory,
    @inject(TOKENS.BpfPrograms) private readonly programs: BpfPrograms,
    @inject(TOKENS.Logger) private readonly logger: Logger,
    @inject(TOKENS.DataPlaneOptions) private readonly options: DataPlaneOptions,
    @inject(TOKENS.Notifications) private readonly notifications: Notifications,
  ) {
    this.intake = new FairIntake(clock, timers, options.intake ?? DEFAULT_INTAKE_BUDGET);
  }

  private get threadBudget(): HoldBudget {
    return (this.heldHere ??= new HoldBudget({ frames: this.options.heldFramesPerWorker, bytes: this.options.heldBytesPerWorker }));
  }

  /** Frames and bytes every delay line of this data plane holds now (never beyond heldFramesPerWorker / heldBytesPerWorker). */
  held(): { readonly frames: number; readonly bytes: number } {
    return { frames: this.threadBudget.frames, bytes: this.threadBudget.bytes };
  }

  /** Tells the user (the controller's console, through the notifications) and the operator's log. */
  private tell(notification: ComputeNotification, logLine: string, fields: Record<string, unknown>): void {
    this.notifications.publish(notification);
    const node = notification.kind === "log" ? undefined : notification.node;
    const log = notification.kind === "capture_failed" ? this.logger.error : this.logger.warn;
    log.call(this.logger, logLine, { projectId: node?.projectId, nodeId: node?.nodeId, ...fields });
  }

  /** What each direction of a NIO must run, its expressions compiled (a refusal changes nothing). */
  private async chainSpecs(nio: Nio): Promise<E.Either<ErrorOf<"InvalidFilterSettings">, { ingress: ChainSpec; egress: ChainSpec }>> {
    const wanted = directionSettings(nio);
    const ingress = await this.spec(wanted.ingress, wanted.suspend);
    if (E.isLeft(ingress)) return ingress;
    const egress = wanted.egress === wanted.ingress ? ingress : await this.spec(wanted.egress, wanted.suspend);
    if (E.isLeft(egress)) return egress;
    return E.right({ ingress: ingress.right, egress: egress.right });
  }

  private async spec(settings: FilterSettings, suspend: boolean): Promise<E.Either<ErrorOf<"InvalidFilterSettings">, ChainSpec>> {
    const bpf = await this.matcherOf("bpf", bpfLines(settings));
    if (E.isLeft(bpf)) return bpf;
    const classify = await this.matcherOf("match", matchLines(settings));
    if (E.isLeft(classify)) return classify;
    return E.right({ settings, suspend, bpf: bpf.right, classify: classify.right });
  }

  /** The matcher of a bpf or match entry's lines (none without lines), from its program, compiled once per text. */
  private async matcherOf(kind: TextLinesKind, lines: readonly string[]): Promise<E.Either<ErrorOf<"InvalidFilterSettings">, BpfMatcher | undefined>> {
    if (lines.length === 0) return E.right(undefined);
    const key = expressionText(lines);
    const known = this.matchers.get(key);
    if (known !== undefined) return E.right(known);
    const program = await this.programs.program(lines);
    if (E.isLeft(program)) return E.left({ _tag: "InvalidFilterSettings", problem: { problem: "bpf_invalid", kind, ...program.left } });
    // Chains hold their matchers: forgetting the cache only costs instantiating a program again.
    if (this.matchers.size >= 1024) this.matchers.clear();
    const matcher = instantiateProgram(program.right);
    this.matchers.set(key, matcher);
    return E.right(matcher);
  }

  /**
   * Makes the live node match its record by value (ADR 0037, 0055): a port whose NIO is the same value
   * is left as it is, whatever object the record holds (a worker, a database or a copy gives another);
   * a NIO whose filters changed gets, per direction that changed, a chain that takes over what the old
   * one knew. Fallible steps first: every changed NIO's expressions are compiled (a refusal changes
   * nothing), then a socket is opened for every new NIO (the first that cannot be opened is reported,
   * and the sockets opened before it are closed: nothing changed); then the rest, which cannot fail:
   * ports without a NIO any more are closed, chains reconciled, modes, status and name applied.
   */
  async sync(node: ComputeNode): Promise<E.Either<SyncError, void>> {
    const existing = this.nodes.get(node.nodeId);
    if (existing === undefined && node.nios.size === 0) return E.right(undefined);
    const live = existing ?? this.newLiveNode(node);
    const plans: { portNumber: number; nio: Nio; specs: { ingress: ChainSpec; egress: ChainSpec }; current: LivePort | undefined }[] = [];
    for (const [portNumber, nio] of node.nios) {
      const current = live.ports.get(portNumber);
      if (current !== undefined && nioEqual(current.nio, nio)) continue;
      // Every NIO of a record is on a port of its mapping (attachNio, parseComputeNode); a changed one is checked all the same.
      if (!hasPort(node, portNumber)) return E.left({ _tag: "PortNotFound", portNumber, nodeName: node.name, nodeType: node.nodeType });
      const specs = await this.chainSpecs(nio);
      if (E.isLeft(specs)) return specs;
      plans.push({ portNumber, nio, specs: specs.right, current });
    }
    const kept = (plan: (typeof plans)[number]): plan is (typeof plans)[number] & { current: LivePort } => plan.current !== undefined && sameEndpoint(plan.current.nio, plan.nio);
    const opened: LivePort[] = [];
    for (const plan of plans) {
      if (kept(plan)) continue;
      // A NIO whose socket changes gives its local port up first (use cases never do this: a port's NIO is removed, then added).
      if (plan.current !== undefined) await this.closePort(live, plan.portNumber);
      const handover = existing === undefined ? this.arriving.get(node.nodeId)?.ports.find((p) => p.portNumber === plan.portNumber)?.socket : undefined;
      const port = await this.openPort(live, plan.portNumber, plan.nio, reconcileChains(undefined, plan.specs, () => this.randomness.create()), handover);
      if (E.isLeft(port)) {
        for (const p of opened) await p.endpoint?.close();
        if (live.ports.size === 0) this.nodes.delete(node.nodeId);
        return port;
      }
      opened.push(port.right);
    }
    this.nodes.set(node.nodeId, live);
    for (const portNumber of [...live.ports.keys()]) if (!node.nios.has(portNumber)) await this.closePort(live, portNumber);
    for (const plan of plans) {
      if (!kept(plan)) continue;
      plan.current.chains = reconcileChains(plan.current.chains, plan.specs, () => this.randomness.create());
      plan.current.nio = plan.nio;
    }
    this.applyNode(live, node);
    for (const port of opened) live.ports.set(port.portNumber, port);
    this.timeCostlyNodes(live);
    for (const port of opened) {
      if (live.live.kind === "ethernet_hub") live.live.fabric.setPort(port.portNumber);
      else if (node.nodeType === "ethernet_switch") live.live.fabric.setPort(port.portNumber, (portOf(node, port.portNumber) as Port).mode);
      port.counters = live.counters(port.portNumber);
    }
    // In the same turn as the attach: no frame reaches the node before it knows what it knew.
    const arriving = this.arriving.get(node.nodeId);
    if (arriving !== undefined && existing === undefined) this.takeUp(live, arriving);
    for (const port of opened) {
      const early = port.early ?? [];
      port.early = undefined;
      for (const frame of early) this.receivedGuarded(live, port, frame);
    }
    if (live.ports.size === 0) this.nodes.delete(node.nodeId);
    return E.right(undefined);
  }

  /**
   * Times the frames of a node with a bpf or match program on any port (a frame from one port runs the
   * others' egress programs): their cost is the program's. The others' frames are only counted (ADR 0075).
   */
  private timeCostlyNodes(live: LiveNode): void {
    let costly = false;
    for (const port of live.ports.values()) {
      const { ingress, egress } = directionSettings(port.nio);
      if (bpfLines(ingress).length + matchLines(ingress).length + bpfLines(egress).length + matchLines(egress).length > 0) costly = true;
    }
    for (const port of live.ports.values()) if (port.intake !== undefined) port.intake.timed = costly;
  }

  /** ports_mapping of the attached ports, status and name: what a node's record says beyond its NIOs. */
  private applyNode(live: LiveNode, node: ComputeNode): void {
    const before = live.node;
    live.node = node;
    live.running = node.status === "started";
    if (live.live.kind === "ethernet_switch" && node.nodeType === "ethernet_switch") {
      if (!portsMappingEqual(node.portsMapping, before.portsMapping)) live.live.fabric.updatePorts(node.portsMapping.map(portFromMapping));
      // A stopped switch forgets what it learned, as a powered-off one does; a suspended one keeps it.
      if (node.status === "stopped" && before.status !== "stopped") live.live.fabric.flushMacTable();
    }
  }

  private newLiveNode(node: ComputeNode): LiveNode {
    const fabric: LiveFabric =
      node.nodeType === "ethernet_switch"
        ? { kind: "ethernet_switch", fabric: new EthernetSwitchFabric({ agingTimeMs: this.options.macAgingMs, capacity: this.options.macTableCapacity }) }
        : { kind: "ethernet_hub", fabric: new HubFabric() };
    return new LiveNode(fabric, node);
  }

  /** A port with its delay lines and, for nio_udp, its socket; not yet part of the node's forwarding. */
  private async openPort(live: LiveNode, portNumber: number, nio: Nio, chains: PortChains, handover?: SocketHandover): Promise<E.Either<ErrorOf<"UdpConnectionFailed">, LivePort>> {
    // What the port's delay lines hold together, within the thread's bound (ADR 0072).
    const held = new HoldBudget({ frames: this.options.heldFramesPerPort, bytes: this.options.heldBytesPerPort }, this.threadBudget);
    const makeLine = (deliver: (frame: Uint8Array) => void) => new DelayLine(this.clock, this.timers, deliver, (err) => this.faulted(live, livePort, err), held);
    const livePort: LivePort = new LivePort(
      portNumber,
      nio,
      chains,
      makeLine,
      (frame) => this.intoSwitch(live, livePort, frame),
      // A frame still held by the egress delay when the node stopped does not leave either.
      (frame) => (live.running ? this.ontoWire(livePort, frame) : livePort.counters?.countEgressDrop("stopped")),
    );
    if (nio.type === "nio_udp") {
      const intake = this.intake.port(
        (frame) => this.receivedGuarded(live, livePort, frame),
        (frame) => this.overloaded(livePort, frame),
      );
      livePort.intake = intake;
      const opened = await this.transport.open({
        lport: nio.lport,
        rhost: nio.rhost,
        rport: nio.rport,
        onFrame: (frame) => intake.offer(frame),
        onError: (reason) => this.peerFailed(live, livePort, reason),
        ...(handover === undefined ? {} : { handover }),
      });
      if (E.isLeft(opened)) return E.left({ _tag: "UdpConnectionFailed", rhost: nio.rhost, rport: nio.rport, reason: opened.left });
      livePort.endpoint = opened.right;
    }
    return E.right(livePort);
  }

  /** The socket says the peer cannot be reached: told once, until frames come from it again. */
  private peerFailed(live: LiveNode, port: LivePort, reason: string): void {
    if (port.peerUnreachable || port.nio.type !== "nio_udp") return;
    port.peerUnreachable = true;
    const peer = `${port.nio.rhost}:${port.nio.rport}`;
    this.tell({ kind: "peer_unreachable", node: live.node, portNumber: port.portNumber, peer, reason }, "NIO peer unreachable", { port: port.portNumber, peer, reason });
  }

  /** A frame the port had neither the budget to handle this turn nor the room to keep. */
  private overloaded(port: LivePort, frame: Uint8Array): void {
    if (port.counters !== undefined) port.counters.countInDropped(frame.length, "overload");
    else if (port.early !== undefined && port.early.length < MAX_EARLY_FRAMES) port.early.push(frame);
  }

  /** A throw out of a socket's message event would end the process: it costs the one frame instead. */
  private receivedGuarded(live: LiveNode, port: LivePort, frame: Uint8Array): void {
    try {
      this.received(live, port, frame);
    } catch (err) {
      this.faulted(live, port, err);
    }
  }

  /** Logged at the first fault of a port and then every 1,000th, so a fault per frame cannot flood the log. */
  private faulted(live: LiveNode, port: LivePort, err: unknown): void {
    port.faults++;
    if (port.faults !== 1 && port.faults % 1000 !== 0) return;
    const reason = err instanceof Error ? (err.stack ?? err.message) : String(err);
    this.logger.error("frame lost to a fault in the data plane", {
      projectId: live.node.projectId,
      nodeId: live.node.nodeId,
      port: port.portNumber,
      faults: port.faults,
      reason,
    });
  }

  /** A datagram from the port's peer. */
  private received(live: LiveNode, port: LivePort, frame: Uint8Array): void {
    const counters = port.counters;
    if (counters === undefined) {
      if (port.early !== undefined && port.early.length < MAX_EARLY_FRAMES) port.early.push(frame);
      return;
    }
    port.peerUnreachable = false;
    if (!live.running) {
      counters.countInDropped(frame.length, "stopped");
      return;
    }
    const chain = port.chains.ingress;
    const outcome = chain.process(frame, "ingress", chain.needsTime ? this.clock.nowMs() : 0);
    if (outcome.drop !== undefined) {
      counters.countInDropped(frame.length, outcome.drop);
      return;
    }
    // Read before the first copy goes on: forwarding may run this port's chain again (the outcome is reused).
    const { frame: passed, delayMs, copies, copyDelayMs, bypassed } = outcome;
    const overtakes = outcome.overtakes || bypassed;
    this.towardsSwitch(live, port, passed, delayMs, overtakes);
    if (copies === 2) this.towardsSwitch(live, port, passed, copyDelayMs, overtakes);
  }

  private towardsSwitch(live: LiveNode, port: LivePort, frame: Uint8Array, delayMs: number, overtakes: boolean): void {
    // The switch counts it as received when it takes it in, once its delay is over. A frame without
    // delay still waits behind frames held under an earlier delay setting: the order is kept (ADR
    // 0055); one that overtakes on purpose (reorder) or that match left untouched does not.
    if (overtakes && delayMs <= 0) this.intoSwitch(live, port, frame);
    else if (!overtakes && delayMs <= 0 && port.ingressDelay.pending === 0) this.intoSwitch(live, port, frame);
    // Beyond the port's or the thread's bound (ADR 0072): received, and dropped there.
    else if (!(overtakes ? port.expressLine("ingress") : port.ingressDelay).push(frame, delayMs)) port.counters?.countInDropped(frame.length, "delay_limit");
  }

  private intoSwitch(live: LiveNode, port: LivePort, frame: Uint8Array): void {
    if (!live.running) {
      // Held by a delay while the node stopped: it is received now, into a node that forwards nothing.
      port.counters?.countInDropped(frame.length, "stopped");
      return;
    }
    const nowMs = this.clock.nowMs();
    port.capture?.writer.write(frame, nowMs);
    const result = live.forward(port.portNumber, frame, nowMs);
    for (let i = 0; i < result.count; i++) {
      const egress = live.ports.get(result.ports[i] as number);
      if (egress !== undefined) this.towardsPort(egress, result.frames[i] as Uint8Array);
    }
  }

  /** A frame the switch sends to a port: that port's filters, then its delay, capture and socket. */
  private towardsPort(port: LivePort, frame: Uint8Array): void {
    const chain = port.chains.egress;
    const outcome = chain.process(frame, "egress", chain.needsTime ? this.clock.nowMs() : 0);
    if (outcome.drop !== undefined) {
      port.counters?.countEgressDrop(outcome.drop as DropReason);
      return;
    }
    const { frame: passed, delayMs, copies, copyDelayMs, bypassed } = outcome;
    const overtakes = outcome.overtakes || bypassed;
    this.onToPort(port, passed, delayMs, overtakes);
    if (copies === 2) this.onToPort(port, passed, copyDelayMs, overtakes);
  }

  private onToPort(port: LivePort, frame: Uint8Array, delayMs: number, overtakes: boolean): void {
    if (overtakes && delayMs <= 0) this.ontoWire(port, frame);
    else if (!overtakes && delayMs <= 0 && port.egressDelay.pending === 0) this.ontoWire(port, frame);
    else if (!(overtakes ? port.expressLine("egress") : port.egressDelay).push(frame, delayMs)) port.counters?.countEgressDrop("delay_limit");
  }

  private ontoWire(port: LivePort, frame: Uint8Array): void {
    if (frame.length > MAX_UDP_PAYLOAD) {
      port.counters?.countEgressDrop("oversize");
      return;
    }
    port.capture?.writer.write(frame, this.clock.nowMs());
    if (port.endpoint === undefined) {
      port.counters?.countEgressDrop("nio_null");
      return;
    }
    port.endpoint.send(frame);
    port.counters?.countOut(frame.length);
  }

  /** Takes a port out of the node's forwarding and closes its delay lines, capture and socket. */
  private async closePort(live: LiveNode, portNumber: number): Promise<void> {
    const port = live.ports.get(portNumber);
    if (port === undefined) return;
    live.ports.delete(portNumber);
    live.live.fabric.removePort(portNumber);
    port.intake?.close();
    port.closeLines();
    await this.closeCapture(port);
    await port.endpoint?.close();
  }

  /**
   * Lets a node go to another worker, with what it knows (ADR 0069): its sockets stop being read first
   * (handed over, still open, where the transport can; closed where it cannot), so that nothing changes
   * its state after; then its MAC table, port counters, filter chains' state, the frames its delay lines
   * hold and its sockets' hand-overs are taken, as plain data, and it is forgotten here. Refused while a
   * capture runs on one of its ports (nothing changes then). Undefined for a node not here.
   */
  async handOver(nodeId: string): Promise<E.Either<CaptureRunning, NodeState | undefined>> {
    const live = this.nodes.get(nodeId);
    if (live === undefined) return E.right(undefined);
    // A capture whose file is still being opened counts as running: it will attach to this port.
    for (const port of live.ports.values()) if (port.capture !== undefined || port.captureOpening) return E.left({ _tag: "CaptureRunning", portNumber: port.portNumber });
    // What its ports read and kept for their next turn is the node's before it goes: nothing read is lost.
    for (const port of live.ports.values()) port.intake?.drainAll();
    this.nodes.delete(nodeId);
    // Every socket stops being read in this one turn: a transport that can hand its socket over keeps
    // it open (what comes meanwhile waits in the kernel, ADR 0069); the others close it.
    const sockets = new Map<number, SocketHandover>();
    const closing: Promise<void>[] = [];
    for (const port of live.ports.values()) {
      const endpoint = port.endpoint;
      if (endpoint?.handOver !== undefined) sockets.set(port.portNumber, endpoint.handOver());
      else if (endpoint !== undefined) closing.push(endpoint.close());
      if (endpoint?.handOver !== undefined) port.endpoint = undefined;
    }
    await Promise.all(closing);
    const ports: PortState[] = [];
    for (const port of live.ports.values()) {
      const shared = port.chains.ingress === port.chains.egress;
      const socket = sockets.get(port.portNumber);
      ports.push({
        ...(socket === undefined ? {} : { socket }),
        portNumber: port.portNumber,
        counters: (port.counters ?? new LivePortCounters()).snapshot(),
        faults: port.faults,
        chains: { ingress: port.chains.ingress.state(), ...(shared ? {} : { egress: port.chains.egress.state() }) },
        held: port.handOverLines(),
      });
      port.endpoint = undefined;
    }
    const learned = live.live.kind === "ethernet_switch" ? live.live.fabric.learnedEntries() : [];
    for (const portNumber of [...live.ports.keys()]) await this.closePort(live, portNumber);
    return E.right({ nodeId, learned, ports });
  }

  /**
   * Takes a node over from another worker: synced here as `sync` does, then, as its ports are attached
   * and before any frame reaches it, it takes up `state` (what `handOver` gave there). A node already
   * here is only synced.
   */
  async takeOver(node: ComputeNode, state: NodeState): Promise<E.Either<SyncError, void>> {
    if (state.nodeId !== node.nodeId) return this.sync(node);
    this.arriving.set(node.nodeId, state);
    try {
      return await this.sync(node);
    } finally {
      this.arriving.delete(node.nodeId);
    }
  }

  private takeUp(live: LiveNode, state: NodeState): void {
    for (const p of state.ports) {
      const port = live.ports.get(p.portNumber);
      if (port === undefined) continue;
      port.counters?.resume(p.counters);
      if (Number.isSafeInteger(p.faults) && p.faults >= 0) port.faults = p.faults;
      port.chains.ingress.resume(p.chains.ingress);
      if (port.chains.egress !== port.chains.ingress) port.chains.egress.resume(p.chains.egress ?? p.chains.ingress);
      port.takeUpLines(p.held);
    }
    if (live.live.kind === "ethernet_switch") live.live.fabric.relearn(state.learned);
  }

  async removeNode(nodeId: string): Promise<void> {
    const live = this.nodes.get(nodeId);
    if (live === undefined) return;
    this.nodes.delete(nodeId);
    for (const portNumber of [...live.ports.keys()]) await this.closePort(live, portNumber);
  }

  async counters(nodeId: string): Promise<ReadonlyMap<number, PortCounters>> {
    const live = this.nodes.get(nodeId);
    const out = new Map<number, PortCounters>();
    if (live === undefined) return out;
    for (const portNumber of live.ports.keys()) {
      const c: LivePortCounters | undefined = live.counters(portNumber);
      if (c === undefined) continue;
      const s = c.snapshot();
      out.set(portNumber, { framesIn: s.framesIn, bytesIn: s.bytesIn, framesOut: s.framesOut, bytesOut: s.bytesOut, drops: s.drops });
    }
    return out;
  }

  /**
   * Frames each node has taken in and sent out since its ports were attached: the work it costs its
   * thread, which the placement of nodes over workers compares (ADR 0069). Counted, not timed, so it
   * costs the frame path nothing more.
   */
  frameTotals(): ReadonlyMap<string, number> {
    const totals = new Map<string, number>();
    for (const [nodeId, live] of this.nodes) {
      let frames = 0;
      for (const portNumber of live.ports.keys()) {
        const c = live.counters(portNumber);
        if (c !== undefined) frames += c.framesIn + c.framesOut;
      }
      totals.set(nodeId, frames);
    }
    return totals;
  }

  async macTable(nodeId: string): Promise<readonly MacTableEntry[]> {
    const live = this.nodes.get(nodeId)?.live;
    return live?.kind === "ethernet_switch" ? live.fabric.macTable(this.clock.nowMs()) : [];
  }

  start(nodeId: string, portNumber: number, filePath: string): Promise<E.Either<CaptureStartRefusal, void>> {
    const started = this.startCapture(nodeId, portNumber, filePath);
    this.starting.add(started);
    void started.finally(() => this.starting.delete(started)).catch(() => undefined);
    return started;
  }

  /**
   * Opens the capture's file, then attaches its writer to the port as it is once the file is open
   * (ADR 0074): the port may have been closed meanwhile (its NIO removed, its node removed or handed
   * over, the data plane closed), or given another NIO. A port still there with no capture takes the
   * writer; otherwise the writer is closed here, so no file stays open, and the caller is told why.
   */
  private async startCapture(nodeId: string, portNumber: number, filePath: string): Promise<E.Either<CaptureStartRefusal, void>> {
    const port = this.nodes.get(nodeId)?.ports.get(portNumber);
    if (port === undefined) return E.left({ _tag: "PortNotAllocated", portNumber });
    if (port.capture !== undefined || port.captureOpening) return E.left({ _tag: "CaptureAlreadyActive", portNumber });
    let attached: { live: LiveNode; port: LivePort } | undefined;
    port.captureOpening = true;
    let opened: E.Either<string, CaptureWriter>;
    try {
      opened = await this.captureSink.open(filePath, (reason) => {
        const at = attached;
        if (at === undefined || at.port.capture?.path !== filePath) return;
        this.tell({ kind: "capture_failed", node: at.live.node, portNumber, filePath, reason }, "capture stopped: its file cannot be written", { port: portNumber, filePath, reason });
        void this.closeCapture(at.port);
      });
    } finally {
      port.captureOpening = false;
    }
    if (E.isLeft(opened)) return E.left({ _tag: "CaptureFileUnwritable", filePath, reason: opened.left });
    const live = this.nodes.get(nodeId);
    const now = live?.ports.get(portNumber);
    if (live === undefined || now === undefined || now.capture !== undefined || now.captureOpening) {
      await opened.right.close();
      this.logger.info("a capture's port was closed or taken while its file was opened: the file is closed", { nodeId, port: portNumber, filePath });
      return E.left(now === undefined ? { _tag: "PortNotAllocated", portNumber } : { _tag: "CaptureAlreadyActive", portNumber });
    }
    now.capture = { writer: opened.right, path: filePath };
    attached = { live, port: now };
    return E.right(undefined);
  }

  async stop(nodeId: string, portNumber: number): Promise<void> {
    const port = this.nodes.get(nodeId)?.ports.get(portNumber);
    if (port !== undefined) await this.closeCapture(port);
  }

  private async closeCapture(port: LivePort): Promise<void> {
    const capture = port.capture;
    port.capture = undefined;
    await capture?.writer.close();
  }

  async fileOf(nodeId: string, portNumber: number): Promise<string | undefined> {
    return this.nodes.get(nodeId)?.ports.get(portNumber)?.capture?.path;
  }

  async close(): Promise<void> {
    for (const nodeId of [...this.nodes.keys()]) await this.removeNode(nodeId);
    // A start still opening its file finds its port gone and closes the file: waited for, so none outlives close.
    await Promise.allSettled([...this.starting]);
    this.logger.debug("data plane closed");
  }
}
