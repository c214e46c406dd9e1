import { createServer, type IncomingMessage, type RequestListener, type Server } from "node:http";
import type { AddressInfo } from "node:net";
import type { Duplex } from "node:stream";

export interface HttpTimeouts {
  readonly headersMs: number;
  readonly requestMs: number;
  readonly keepAliveMs: number;
}

export const DEFAULT_HTTP_TIMEOUTS: HttpTimeouts = { headersMs: 20_000, requestMs: 60_000, keepAliveMs: 5_000 };

export interface ListeningServer {
  readonly url: string;
  readonly port: number;
  readonly server: Server;
}

/**
 * The HTTP server netemu listens with: answers go out at once (with Nagle's algorithm a body sent
 * apart from its headers waits for an ACK), slow or idle clients cannot hold connections for ever
 * (the limits are checked every second), upgrades go to `onUpgrade`.
 */
export function listenHttp(
  handler: RequestListener,
  onUpgrade: (req: IncomingMessage, socket: Duplex, head: Buffer) => void,
  where: { readonly port: number; readonly host: string; readonly timeouts: HttpTimeouts },
): Promise<ListeningServer> {
  return new Promise((resolve, reject) => {
    const t = where.timeouts;
    const server = createServer(
      {
        noDelay: true,
        headersTimeout: t.headersMs,
        requestTimeout: t.requestMs,
        keepAliveTimeout: t.keepAliveMs,
        connectionsCheckingInterval: Math.min(1000, t.headersMs),
      },
      handler,
    );
    server.on("upgrade", onUpgrade);
    server.once("error", reject);
    server.listen(where.port, where.host, () => {
      server.off("error", reject);
      const address = server.address() as AddressInfo;
      const shownHost = address.family === "IPv6" ? `[${address.address}]` : address.address;
      resolve({ url: `http://${shownHost}:${address.port}`, port: address.port, server });
    });
  });
}

/**
 * Stops a server in two steps around `meanwhile` (the core's own stop): it stops accepting and drops
 * idle connections first, and ends the busy ones (streams, long requests) once `meanwhile` is done.
 */
export async function stopHttp(server: Server | undefined, meanwhile: () => Promise<void>): Promise<void> {
  const closed = server === undefined ? Promise.resolve() : new Promise<void>((resolve) => server.close(() => resolve()));
  server?.closeIdleConnections();
  await meanwhile();
  server?.closeAllConnections();
  await closed;
}
