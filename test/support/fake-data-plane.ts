import * as E from "fp-ts/lib/Either.js";
import type { DataPlane, MacTableEntry, PortCounters } from "../../src/application/ports/data-plane.js";
import type { NetemuError } from "../../src/application/errors.js";
import type { ComputeNode } from "../../src/domain/switching/compute-node.js";
import type { Nio } from "../../src/domain/switching/nio.js";

/** A data plane that records what the use cases ask of it, and can be told to refuse a port. */
export class FakeDataPlane implements DataPlane {
  readonly attached = new Map<string, Nio>();
  readonly refusedLports = new Set<number>();
  /** The node records update() was handed, in order. */
  readonly updated: ComputeNode[] = [];
  closed = false;

  private key(nodeId: string, port: number): string {
    return `${nodeId}/${port}`;
  }

  async attach(sw: ComputeNode, portNumber: number, nio: Nio): Promise<E.Either<NetemuError, void>> {
    if (nio.type === "nio_udp" && this.refusedLports.has(nio.lport)) {
      return E.left({ _tag: "UdpConnectionFailed", rhost: nio.rhost, rport: nio.rport, reason: "local port is already in use (EADDRINUSE)" });
    }
    this.attached.set(this.key(sw.nodeId, portNumber), nio);
    return E.right(undefined);
  }
  async detach(nodeId: string, portNumber: number): Promise<void> {
    this.attached.delete(this.key(nodeId, portNumber));
  }
  reconfigure(nodeId: string, portNumber: number, nio: Nio): E.Either<NetemuError, void> {
    this.attached.set(this.key(nodeId, portNumber), nio);
    return E.right(undefined);
  }
  update(node: ComputeNode): void {
    this.updated.push(node);
  }
  async removeNode(nodeId: string): Promise<void> {
    for (const key of [...this.attached.keys()]) if (key.startsWith(`${nodeId}/`)) this.attached.delete(key);
  }
  counters(): ReadonlyMap<number, PortCounters> {
    return new Map();
  }
  macTable(): readonly MacTableEntry[] {
    return [];
  }
  readonly captures = new Map<string, string>();
  async startCapture(nodeId: string, portNumber: number, filePath: string): Promise<E.Either<NetemuError, void>> {
    this.captures.set(this.key(nodeId, portNumber), filePath);
    return E.right(undefined);
  }
  async stopCapture(nodeId: string, portNumber: number): Promise<void> {
    this.captures.delete(this.key(nodeId, portNumber));
  }
  isCapturing(nodeId: string, portNumber: number): boolean {
    return this.captures.has(this.key(nodeId, portNumber));
  }
  captureFile(nodeId: string, portNumber: number): string | undefined {
    return this.captures.get(this.key(nodeId, portNumber));
  }
  async close(): Promise<void> {
    this.closed = true;
    this.attached.clear();
  }
}
