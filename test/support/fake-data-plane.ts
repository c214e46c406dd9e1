import * as E from "fp-ts/lib/Either.js";
import type { DataPlane, MacTableEntry, PortCounters } from "../../src/application/ports/data-plane.js";
import type { PacketCaptures } from "../../src/application/ports/packet-captures.js";
import type { ErrorOf, SyncError } from "../../src/application/errors.js";
import type { ComputeNode } from "../../src/domain/switching/compute-node.js";
import type { Nio } from "../../src/domain/switching/nio.js";

/**
 * A data plane that keeps the desired state the use cases hand it (the NIO of each live port) and
 * can be told to refuse a local port, as a busy socket would.
 */
export class FakeDataPlane implements DataPlane, PacketCaptures {
  /** "<node id>/<port>" → the NIO live on that port. */
  readonly attached = new Map<string, Nio>();
  readonly refusedLports = new Set<number>();
  /** Every record handed to sync(), in order. */
  readonly synced: ComputeNode[] = [];
  readonly captures = new Map<string, string>();
  closed = false;

  private key(nodeId: string, port: number): string {
    return `${nodeId}/${port}`;
  }

  /** The records synced whose NIOs did not change from what was live: updates of ports, status or name. */
  get updated(): ComputeNode[] {
    const live = new Map<string, ReadonlyMap<number, Nio>>();
    const out: ComputeNode[] = [];
    for (const node of this.synced) {
      const before = live.get(node.nodeId) ?? new Map<number, Nio>();
      if (before.size === node.nios.size && [...node.nios].every(([port, nio]) => before.get(port) === nio)) out.push(node);
      live.set(node.nodeId, node.nios);
    }
    return out;
  }

  async sync(node: ComputeNode): Promise<E.Either<SyncError, void>> {
    for (const [port, nio] of node.nios) {
      if (nio.type === "nio_udp" && this.refusedLports.has(nio.lport) && !this.attached.has(this.key(node.nodeId, port))) {
        return E.left({ _tag: "UdpConnectionFailed", rhost: nio.rhost, rport: nio.rport, reason: "local port is already in use (EADDRINUSE)" });
      }
    }
    this.synced.push(node);
    for (const key of [...this.attached.keys()]) if (key.startsWith(`${node.nodeId}/`)) this.attached.delete(key);
    for (const [port, nio] of node.nios) this.attached.set(this.key(node.nodeId, port), nio);
    return E.right(undefined);
  }
  async removeNode(nodeId: string): Promise<void> {
    for (const key of [...this.attached.keys()]) if (key.startsWith(`${nodeId}/`)) this.attached.delete(key);
  }
  async counters(_nodeId: string): Promise<ReadonlyMap<number, PortCounters>> {
    return new Map();
  }
  async macTable(_nodeId: string): Promise<readonly MacTableEntry[]> {
    return [];
  }
  async start(nodeId: string, portNumber: number, filePath: string): Promise<E.Either<ErrorOf<"PortNotAllocated" | "CaptureAlreadyActive" | "CaptureFileUnwritable">, void>> {
    this.captures.set(this.key(nodeId, portNumber), filePath);
    return E.right(undefined);
  }
  async stop(nodeId: string, portNumber: number): Promise<void> {
    this.captures.delete(this.key(nodeId, portNumber));
  }
  async fileOf(nodeId: string, portNumber: number): Promise<string | undefined> {
    return this.captures.get(this.key(nodeId, portNumber));
  }
  isCapturing(nodeId: string, portNumber: number): boolean {
    return this.captures.has(this.key(nodeId, portNumber));
  }
  async close(): Promise<void> {
    this.closed = true;
    this.attached.clear();
  }
}
