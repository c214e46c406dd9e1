import * as E from "fp-ts/lib/Either.js";
import { PortCounters as LivePortCounters } from "../../domain/switching/port-counters.js";
import type { ComputeNode } from "../../domain/switching/compute-node.js";
import type { SocketHandover } from "../ports/udp-transport.js";
import type { SyncError } from "../errors.js";
import type { CaptureRunning, NodeState, PortState } from "./node-state.js";
import type { LiveNode, LiveNodes } from "./live-node.js";
import type { Arrivals } from "./reconcile.js";

/**
 * A node moving between data-plane workers with what it knows (ADR 0069): given as plain data here
 * (handOver), taken up there as its ports are attached (takeOver, through reconcile's Arrivals).
 */
export class NodeHandOver implements Arrivals {
  /** The state of nodes arriving from another worker, taken up as their ports are attached (takeOver). */
  private readonly arrivingNodes = new Map<string, NodeState>();

  constructor(private readonly nodes: LiveNodes) {}

  arriving(nodeId: string): NodeState | undefined {
    return this.arrivingNodes.get(nodeId);
  }

  /**
   * Lets a node go to another worker, with what it knows (ADR 0069): its sockets stop being read first
   * (handed over, still open, where the transport can; closed where it cannot), so that nothing changes
   * its state after; then its MAC table, port counters, filter chains' state, the frames its delay lines
   * and bandwidth queues (ADR 0100) hold and its sockets' hand-overs are taken, as plain data, and it is
   * forgotten here. Refused while a capture runs on one of its ports (nothing changes then). Undefined
   * for a node not here.
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
      const queues = port.handOverQueues();
      ports.push({
        ...(socket === undefined ? {} : { socket }),
        portNumber: port.portNumber,
        counters: (port.counters ?? new LivePortCounters()).snapshot(),
        faults: port.faults,
        chains: { ingress: port.chains.ingress.state(), ...(shared ? {} : { egress: port.chains.egress.state() }) },
        held: port.handOverLines(),
        ...(queues === undefined ? {} : { queues }),
      });
      port.endpoint = undefined;
    }
    const learned = live.live.kind === "ethernet_switch" ? live.live.fabric.learnedEntries() : [];
    await live.closePorts();
    return E.right({ nodeId, learned, ports });
  }

  /**
   * Takes a node over from another worker: synced here as `sync` does, then, as its ports are attached
   * and before any frame reaches it, it takes up `state` (what `handOver` gave there). A node already
   * here is only synced.
   */
  async takeOver(node: ComputeNode, state: NodeState, sync: (node: ComputeNode) => Promise<E.Either<SyncError, void>>): Promise<E.Either<SyncError, void>> {
    if (state.nodeId !== node.nodeId) return sync(node);
    this.arrivingNodes.set(node.nodeId, state);
    try {
      return await sync(node);
    } finally {
      this.arrivingNodes.delete(node.nodeId);
    }
  }

  takeUp(live: LiveNode, state: NodeState): void {
    for (const p of state.ports) {
      const port = live.ports.get(p.portNumber);
      if (port === undefined) continue;
      port.counters?.resume(p.counters);
      if (Number.isSafeInteger(p.faults) && p.faults >= 0) port.faults = p.faults;
      port.chains.ingress.resume(p.chains.ingress);
      if (port.chains.egress !== port.chains.ingress) port.chains.egress.resume(p.chains.egress ?? p.chains.ingress);
      port.takeUpLines(p.held);
      if (p.queues !== undefined) port.takeUpQueues(p.queues);
    }
    if (live.live.kind === "ethernet_switch") live.live.fabric.relearn(state.learned);
  }
}
