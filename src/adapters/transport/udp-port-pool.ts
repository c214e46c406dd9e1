import { createSocket } from "node:dgram";
import * as E from "fp-ts/lib/Either.js";
import type { UdpPortPool } from "../../application/ports/udp-port-pool.js";
import type { ErrorOf } from "../../application/errors.js";

/** What binding a port briefly found out: free, taken by someone else, or a failure of the host itself. */
export type BindProbeResult =
  | { readonly outcome: "free" }
  | { readonly outcome: "in-use" }
  /** `code` is the OS's (EMFILE, ...), `detail` Node's message. */
  | { readonly outcome: "failed"; readonly code: string; readonly detail: string };

/** Binds a UDP port on the address and closes it again. */
export type BindProbe = (port: number, address: string) => Promise<BindProbeResult>;

const dgramBindProbe: BindProbe = (port, address) =>
  new Promise((resolve) => {
    const socket = createSocket("udp4");
    socket.once("error", (err: NodeJS.ErrnoException) => {
      socket.close();
      const code = err.code ?? "UNKNOWN";
      if (code === "EADDRINUSE") resolve({ outcome: "in-use" });
      else resolve({ outcome: "failed", code, detail: err.message });
    });
    socket.bind({ port, address, exclusive: true }, () => socket.close(() => resolve({ outcome: "free" })));
  });

/**
 * Hands out ports of the configured range round-robin, skipping those held by netemu and those
 * another program has bound (checked by binding them briefly, as GNS3's port manager does).
 * Only "address in use" means a port is taken: any other bind failure (out of file descriptors,
 * an address the host lacks) would strike every port alike, so the scan stops at once and says why.
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
    private readonly probe: BindProbe = dgramBindProbe,
  ) {
    this.next = start;
    this.range = { start, end };
  }

  async reserve(projectId: string): Promise<E.Either<ErrorOf<"NoFreeUdpPort" | "UdpPortCheckFailed">, number>> {
    const size = this.end - this.start + 1;
    for (let i = 0; i < size; i++) {
      const port = this.next;
      this.next = port >= this.end ? this.start : port + 1;
      if (this.held.has(port)) continue;
      this.held.set(port, projectId);
      const probed = await this.probe(port, this.bindHost);
      if (probed.outcome === "free") return E.right(port);
      this.held.delete(port);
      if (probed.outcome === "failed") {
        // The next reservation tries this port again: the failure was not the port's.
        this.next = port;
        return E.left({ _tag: "UdpPortCheckFailed", port, address: this.bindHost, code: probed.code, detail: probed.detail });
      }
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
