import * as E from "fp-ts/lib/Either.js";
import { portOf } from "../../domain/switching/ethernet-switch.js";
import { type ComputeNode, hasPort } from "../../domain/switching/compute-node.js";
import { type Port, portFromMapping, portsMappingEqual } from "../../domain/switching/port.js";
import { type Nio, deviceOf, nioEqual, sameEndpoint } from "../../domain/switching/nio.js";
import { bpfLines, matchLines } from "../../domain/filters/filter-settings.js";
import { HoldBudget } from "../../domain/filters/hold-limit.js";
import type { SocketHandover, UdpTransport } from "../ports/udp-transport.js";
import type { HostDevices } from "../ports/host-devices.js";
import type { Clock } from "../ports/system.js";
import type { RandomSourceFactory, Timers } from "../ports/timers.js";
import type { BpfPrograms } from "../ports/bpf-compiler.js";
import type { ErrorOf, SyncError } from "../errors.js";
import { DelayLine } from "./delay-line.js";
import type { FairIntake } from "./fair-intake.js";
import type { NodeState } from "./node-state.js";
import { type ChainSpec, type PortChains, directionSettings, reconcileChains } from "./port-chains.js";
import { NO_TRACES, type TraceBook } from "../ports/trace-store.js";
import { ChainCompiler } from "./chain-compiler.js";
import type { DataPlaneOptions } from "./data-plane-options.js";
import type { FramePath } from "./frame-path.js";
import { LiveNode, LivePort, type LiveNodes } from "./live-node.js";
import { carryBacklogs, makeTransmitQueue } from "./port-queues.js";

/** What must happen to the live port of one NIO of a record that it does not run as it is (decided by value). */
export interface PortChange<P> {
  readonly portNumber: number;
  readonly nio: Nio;
  /** The live port there now, if any. */
  readonly current: P | undefined;
  /** The port is on the node's mapping: a NIO anywhere else is refused (PortNotFound). */
  readonly onMapping: boolean;
  /** Same local port and peer: the live port keeps its socket, only its chains and NIO change. */
  readonly keepsSocket: boolean;
}

/**
 * What the NIO a record has on a port asks of the live port there (ADR 0037, 0055): nothing when the
 * live port's NIO is the same value, whatever object the record holds (a worker, a database or a copy
 * gives another); otherwise a change, which keeps the socket when only the filters differ.
 */
export function portChange<P extends { readonly nio: Nio }>(node: ComputeNode, portNumber: number, nio: Nio, current: P | undefined): PortChange<P> | undefined {
  if (current !== undefined && nioEqual(current.nio, nio)) return undefined;
  // Every NIO of a record is on a port of its mapping (attachNio, parseComputeNode); a changed one is checked all the same.
  return { portNumber, nio, current, onMapping: hasPort(node, portNumber), keepsSocket: current !== undefined && sameEndpoint(current.nio, nio) };
}

/** The live ports whose NIO the record no longer has, in the order they are. */
export function portsGone(ports: ReadonlyMap<number, unknown>, node: ComputeNode): number[] {
  return [...ports.keys()].filter((portNumber) => !node.nios.has(portNumber));
}

/**
 * A node with a bpf or match program on any port has its frames timed (a frame from one port runs the
 * others' egress programs): their cost is the program's. The others' frames are only counted (ADR 0075).
 */
export function hasCostlyFilters(nios: Iterable<Nio>): boolean {
  for (const nio of nios) {
    const { ingress, egress } = directionSettings(nio);
    if (bpfLines(ingress).length + matchLines(ingress).length + bpfLines(egress).length + matchLines(egress).length > 0) return true;
  }
  return false;
}

/** Where a node arriving from another worker is read from while it is synced here (NodeHandOver). */
export interface Arrivals {
  arriving(nodeId: string): NodeState | undefined;
  /** Applies what the node knew there to its live ports here, once they are attached and before any frame. */
  takeUp(live: LiveNode, state: NodeState): void;
}

/**
 * Makes a live node match its record: the decisions are the pure functions above; this class carries
 * them out on the live state (sockets, chains, fabric), fallible steps first so that a refusal changes
 * nothing.
 */
export class Reconciler {
  private readonly compiler: ChainCompiler;
  /** What every delay line of this thread holds, within its bound (ADR 0072). */
  readonly threadBudget: HoldBudget;

  constructor(
    private readonly nodes: LiveNodes,
    private readonly transport: UdpTransport,
    private readonly clock: Clock,
    private readonly timers: Timers,
    private readonly randomness: RandomSourceFactory,
    programs: BpfPrograms,
    private readonly options: DataPlaneOptions,
    private readonly intake: FairIntake,
    private readonly path: FramePath,
    private readonly arrivals: Arrivals,
    private readonly devices: HostDevices,
    traces: TraceBook = NO_TRACES,
  ) {
    this.compiler = new ChainCompiler(programs, traces);
    this.threadBudget = new HoldBudget({ frames: options.heldFramesPerWorker, bytes: options.heldBytesPerWorker });
  }

  /**
   * Makes the live node match its record by value (ADR 0037, 0055): a port whose NIO is the same value
   * is left as it is; a NIO whose filters changed gets, per direction that changed, a chain that takes
   * over what the old one knew. Fallible steps first: every changed NIO's expressions are compiled (a
   * refusal changes nothing), then a socket is opened for every new NIO (the first that cannot be opened
   * is reported, and the sockets opened before it are closed: nothing changed); then the rest, which
   * cannot fail: ports without a NIO any more are closed, chains reconciled, modes, status and name applied.
   */
  async sync(node: ComputeNode): Promise<E.Either<SyncError, void>> {
    const existing = this.nodes.get(node.nodeId);
    if (existing === undefined && node.nios.size === 0) return E.right(undefined);
    const live = existing ?? LiveNode.of(node, this.options);
    const plans: (PortChange<LivePort> & { specs: { ingress: ChainSpec; egress: ChainSpec } })[] = [];
    for (const [portNumber, nio] of node.nios) {
      const change = portChange(node, portNumber, nio, live.ports.get(portNumber));
      if (change === undefined) continue;
      if (!change.onMapping) return E.left({ _tag: "PortNotFound", portNumber, nodeName: node.name, nodeType: node.nodeType });
      const specs = await this.compiler.chainSpecs(nio);
      if (E.isLeft(specs)) return specs;
      plans.push({ ...change, specs: specs.right });
    }
    const opened: LivePort[] = [];
    for (const plan of plans) {
      if (plan.keepsSocket) continue;
      // A NIO whose socket changes gives its local port up first (use cases never do this: a port's NIO is removed, then added).
      if (plan.current !== undefined) await live.closePort(plan.portNumber);
      const handover = existing === undefined ? this.arrivals.arriving(node.nodeId)?.ports.find((p) => p.portNumber === plan.portNumber)?.socket : undefined;
      const port = await this.openPort(live, plan.portNumber, plan.nio, reconcileChains(undefined, plan.specs, () => this.randomness.create()), handover);
      if (E.isLeft(port)) {
        for (const p of opened) await p.endpoint?.close();
        if (live.ports.size === 0) this.nodes.delete(node.nodeId);
        return port;
      }
      opened.push(port.right);
    }
    this.nodes.set(node.nodeId, live);
    for (const portNumber of portsGone(live.ports, node)) await live.closePort(portNumber);
    for (const plan of plans) {
      if (!plan.keepsSocket || plan.current === undefined) continue;
      const before = plan.current.chains;
      plan.current.chains = reconcileChains(before, plan.specs, () => this.randomness.create());
      carryBacklogs(this.path, live, plan.current, before, this.clock.nowMs());
      plan.current.nio = plan.nio;
    }
    this.applyNode(live, node);
    for (const port of opened) live.ports.set(port.portNumber, port);
    const costly = hasCostlyFilters([...live.ports.values()].map((port) => port.nio));
    for (const port of live.ports.values()) if (port.intake !== undefined) port.intake.timed = costly;
    for (const port of opened) {
      if (live.live.kind === "ethernet_hub") live.live.fabric.setPort(port.portNumber);
      else if (node.nodeType === "ethernet_switch") live.live.fabric.setPort(port.portNumber, (portOf(node, port.portNumber) as Port).mode);
      port.counters = live.counters(port.portNumber);
    }
    // In the same turn as the attach: no frame reaches the node before it knows what it knew.
    const arriving = this.arrivals.arriving(node.nodeId);
    if (arriving !== undefined && existing === undefined) this.arrivals.takeUp(live, arriving);
    for (const port of opened) {
      const early = port.early ?? [];
      port.early = undefined;
      for (const frame of early) this.path.receivedGuarded(live, port, frame);
    }
    if (live.ports.size === 0) this.nodes.delete(node.nodeId);
    return E.right(undefined);
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

  /** A port with its delay lines and, for a frame NIO, its socket or device, wired to the frame path; not yet part of the node's forwarding. */
  private async openPort(live: LiveNode, portNumber: number, nio: Nio, chains: PortChains, handover?: SocketHandover): Promise<E.Either<ErrorOf<"UdpConnectionFailed" | "NioDeviceFailed">, LivePort>> {
    const path = this.path;
    // What the port's delay lines hold together, within the thread's bound (ADR 0072).
    const held = new HoldBudget({ frames: this.options.heldFramesPerPort, bytes: this.options.heldBytesPerPort }, this.threadBudget);
    const makeLine = (deliver: (frame: Uint8Array) => void) => new DelayLine(this.clock, this.timers, deliver, (err) => path.faulted(live, livePort, err), held);
    const livePort: LivePort = new LivePort(
      portNumber,
      nio,
      chains,
      makeLine,
      (frame) => path.intoSwitch(live, livePort, frame),
      // A frame still held by the egress delay when the node stopped does not leave either.
      (frame) => (live.running ? path.ontoWire(livePort, frame) : livePort.counters?.countEgressDrop("stopped")),
    );
    livePort.makeQueue = (direction) => makeTransmitQueue(this.clock, this.timers, path, live, livePort, direction, held);
    if (nio.type === "nio_udp") {
      const intake = this.intake.port(
        (frame) => path.receivedGuarded(live, livePort, frame),
        (frame) => path.overloaded(livePort, frame),
      );
      livePort.intake = intake;
      const opened = await this.transport.open({
        lport: nio.lport,
        rhost: nio.rhost,
        rport: nio.rport,
        onFrame: (frame) => intake.offer(frame),
        onError: (reason) => path.peerFailed(live, livePort, reason),
        onOverflow: (frames, bytes) => path.overflowed(livePort, frames, bytes),
        ...(handover === undefined ? {} : { handover }),
      });
      if (E.isLeft(opened)) return E.left({ _tag: "UdpConnectionFailed", rhost: nio.rhost, rport: nio.rport, reason: opened.left });
      livePort.endpoint = opened.right;
    } else if (nio.type === "nio_tap" || nio.type === "nio_ethernet") {
      // A device's frames take the same intake, chains, fabric and captures as a socket's (ADR 0083).
      const intake = this.intake.port(
        (frame) => path.receivedGuarded(live, livePort, frame),
        (frame) => path.overloaded(livePort, frame),
      );
      livePort.intake = intake;
      const device = deviceOf(nio);
      const opened = await this.devices.open({
        kind: nio.type === "nio_tap" ? "tap" : "ethernet",
        device,
        onFrame: (frame) => intake.offer(frame),
        onError: (reason) => path.deviceFailed(live, livePort, reason),
        ...(handover === undefined ? {} : { handover }),
      });
      if (E.isLeft(opened)) return E.left({ _tag: "NioDeviceFailed", nioType: nio.type, device, problem: opened.left });
      livePort.endpoint = opened.right;
    }
    return E.right(livePort);
  }
}
