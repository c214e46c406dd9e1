import { execFile } from "node:child_process";
import * as E from "fp-ts/lib/Either.js";
import type { ConsoleClients } from "../../application/ports/console-clients.js";

/** ss answers at once; a hung one must not hold the reset for ever. */
const SS_TIMEOUT_MS = 5_000;

/**
 * Drops a console's clients by destroying the TCP sockets the console accepted (`ss -K`, the kernel's
 * SOCK_DESTROY): a VPCS serves its console itself, with no proxy of netemu's in front to close (ADR
 * 0099). The VPCS reads an error, closes the socket and accepts the next client; the client is reset;
 * a web console's relay, a client too, ends and closes its websocket. Needs CAP_NET_ADMIN and a kernel
 * built with INET_DIAG_DESTROY; ss reports a refusal on its standard error and still exits 0.
 */
export class KernelConsoleClients implements ConsoleClients {
  /** `program` and `leadingArgs` run ss (a wrapper such as setpriv before it, in tests). */
  constructor(
    private readonly program = "ss",
    private readonly leadingArgs: readonly string[] = [],
  ) {}

  dropAll(port: number): Promise<E.Either<string, number>> {
    // Every state but listening (and closed): the clients being served and those queued behind them.
    const args = [...this.leadingArgs, "-K", "-t", "-n", "-H", "state", "connected", "sport", "=", `:${port}`];
    return new Promise((resolve) => {
      execFile(this.program, args, { timeout: SS_TIMEOUT_MS, maxBuffer: 1 << 20 }, (err, stdout, stderr) => {
        if (err !== null) return resolve(E.left(`${this.program} ${args.join(" ")} failed: ${stderr.trim() || err.message}`));
        if (stderr.trim() !== "") return resolve(E.left(stderr.trim()));
        resolve(E.right(stdout.split("\n").filter((line) => line.trim() !== "").length));
      });
    });
  }
}
