import type * as E from "fp-ts/lib/Either.js";

/**
 * Whoever is connected to a node's telnet console now: a telnet client, or a web console relaying to
 * it. A VPCS serves one client at a time and queues the next, so a client that never leaves holds the
 * console for everyone (ADR 0099).
 */
export interface ConsoleClients {
  /** Drops every connection to the console listening on this TCP port; answers how many, or why it could not. */
  dropAll(port: number): Promise<E.Either<string, number>>;
}
