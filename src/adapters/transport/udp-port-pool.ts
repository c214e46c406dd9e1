import { createSocket } from "node:dgram";
import * as E from "fp-ts/lib/Either.js";
import type { UdpPortPool } from "../../application/ports/udp-port-pool.js";
import type { ErrorOf } from "../../application/errors.js";

function canBind(port: number, address: string): Promise<boolean> {
  return new Promise((resolve) => {
    const socket = createSocket("udp4");
    socket.once("error", () => {
      socket.close();
      resolve(false);
    });
    socket.bind({ port, address, exclusive: true }, () => socket.close(() => resolve(true)));
  });
}

/**
 * Hands out ports of the configured range round-robin, skipping those held by netemu and those
 * another program has bound (checked by binding them briefly, as GNS3's port manager does).
 */
export class DgramUdpPortPool implements UdpPortPool {
  /** Each held port and the project holding it. */
  private readonly held = new Map<number, string>();
  private next: number;
  readonly range: { readonly start: number; readonly end: number };

  constructor(
    private readonly start: number,
    private readonly end: number,
    private readonly bindHost: string,
  ) {
    this.next = start;
    this.range = { start, end };
  }

  async reserve(projectId: string): Promise<E.Either<ErrorOf<"NoFreeUdpPort">, number>> {
    const size = this.end - this.start + 1;
    for (let i = 0; i < size; i++) {
      const port = this.next;
      this.next = port >= this.end ? this.start : port + 1;
      if (this.held.has(port)) continue;
      this.held.set(port, projectId);
      if (await canBind(port, this.bindHost)) return E.right(port);
      this.held.delete(port);
    }
    return E.left({ _tag: "NoFreeUdpPort", start: this.start, end: this.end });
  }

  claim(port: number, projectId: string): void {
    this.held.set(port, projectId);
  }

  release(port: number): void {
    this.held.delete(port);
  }

  releaseProject(projectId: string): void {
    for (const [port, holder] of this.held) if (holder === projectId) this.held.delete(port);
  }

  reserved(): readonly number[] {
    return [...this.held.keys()].sort((a, b) => a - b);
  }
}
