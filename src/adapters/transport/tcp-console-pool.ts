import { createServer } from "node:net";
import * as E from "fp-ts/lib/Either.js";
import type { ConsolePortPool } from "../../application/ports/host-processes.js";

/** Whether a TCP port can be listened on now, on every address (VPCS listens on all of them). */
function bindable(port: number): Promise<boolean> {
  return new Promise((resolve) => {
    const server = createServer();
    server.once("error", () => resolve(false));
    server.listen({ port, host: "0.0.0.0", exclusive: true }, () => server.close(() => resolve(true)));
  });
}

/** GNS3's console port allocation: the first port of the range that is neither handed out nor bound by anyone. */
export class TcpConsolePortPool implements ConsolePortPool {
  private readonly taken = new Set<number>();

  constructor(readonly range: { readonly start: number; readonly end: number }) {}

  async reserve(): Promise<E.Either<{ readonly start: number; readonly end: number }, number>> {
    for (let port = this.range.start; port <= this.range.end; port++) {
      if (this.taken.has(port)) continue;
      this.taken.add(port);
      if (await bindable(port)) return E.right(port);
      this.taken.delete(port);
    }
    return E.left(this.range);
  }

  async claim(port: number): Promise<boolean> {
    if (this.taken.has(port)) return false;
    this.taken.add(port);
    if (await bindable(port)) return true;
    this.taken.delete(port);
    return false;
  }

  release(port: number): void {
    this.taken.delete(port);
  }

  inUse(): readonly number[] {
    return [...this.taken].sort((a, b) => a - b);
  }
}
