// Apart from the relay itself (console-socket.ts) so that the public types (NetemuOptions, the socket
// server's options) do not reach the \`ws\` package's types: an embedder compiles without @types/ws.
import type * as E from "fp-ts/lib/Either.js";
import type { NodeConsole, OpenNodeConsoleError } from "../../application/use-cases/compute/open-node-console.js";
import type { OpenControllerNodeConsoleError } from "../../application/use-cases/controller/open-controller-node-console.js";

/** What a console websocket path reaches: the node's telnet console, or why not. */
export interface ConsoleSource {
  readonly open: () => Promise<E.Either<OpenNodeConsoleError | OpenControllerNodeConsoleError, NodeConsole>>;
  /**
   * "v3" for /v3/compute's path, served as 3.0.6 serves it (ADR 0099): upgraded first, the credentials
   * checked after (as its notification socket), a refusal told by closing; "v2" refuses before the upgrade.
   */
  readonly dialect: "v2" | "v3";
}

export interface ConsoleRelayLimits {
  /** Console output waiting for a browser beyond this pauses reading the telnet socket (the node blocks on its console, as on a real line). */
  readonly pauseAboveBytes: number;
  /** A browser that takes nothing for this long while reading is paused is dropped, and the node's console socket freed. */
  readonly stalledMs: number;
}

export const CONSOLE_RELAY_LIMITS: ConsoleRelayLimits = { pauseAboveBytes: 256 * 1024, stalledMs: 30_000 };
