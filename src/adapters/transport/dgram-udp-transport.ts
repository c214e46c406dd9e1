import { createSocket, type Socket } from "node:dgram";
import { lookup } from "node:dns/promises";
import * as E from "fp-ts/lib/Either.js";
import type { UdpEndpoint, UdpEndpointOptions, UdpTransport } from "../../application/ports/udp-transport.js";

export interface DgramOptions {
  /** Address NIO sockets bind to (the IPv4 one; IPv6 peers bind the matching IPv6 address). */
  readonly bindHost: string;
  /** Socket buffer sizes in bytes: large enough to absorb bursts while the event loop is busy. */
  readonly receiveBufferBytes: number;
  readonly sendBufferBytes: number;
}

export function reasonOf(err: unknown): string {
  const e = err as NodeJS.ErrnoException;
  switch (e.code) {
    case "EADDRINUSE":
      return `local port is already in use (EADDRINUSE)`;
    case "EACCES":
      return `permission denied (EACCES)`;
    case "ENOTFOUND":
    case "EAI_AGAIN":
      return `Name or service not known (${e.code})`;
    case "EADDRNOTAVAIL":
      return `address not available (EADDRNOTAVAIL)`;
    default:
      return e.code !== undefined ? `${e.message}` : String(err);
  }
}

/** An IPv6 peer needs an IPv6 socket (shared with the batched transport): loopback stays loopback, a wildcard stays a wildcard. */
export function ipv6BindAddress(bindHost: string): string {
  if (bindHost.includes(":")) return bindHost;
  return bindHost.startsWith("127.") ? "::1" : "::";
}

function bindSocket(socket: Socket, port: number, address: string): Promise<void> {
  return new Promise((resolve, reject) => {
    const onError = (err: Error): void => reject(err);
    socket.once("error", onError);
    socket.bind({ port, address, exclusive: true }, () => {
      socket.off("error", onError);
      resolve();
    });
  });
}

function connectSocket(socket: Socket, port: number, address: string): Promise<void> {
  return new Promise((resolve, reject) => {
    socket.connect(port, address, (err?: Error) => (err ? reject(err) : resolve()));
  });
}

class DgramEndpoint implements UdpEndpoint {
  private closed = false;
  constructor(private readonly socket: Socket) {}

  send(frame: Uint8Array): void {
    if (this.closed) return;
    // No callback: with one, Node defers a call per datagram (process.nextTick) even when the kernel
    // took it at once, about 1 µs per frame (docs/benchmarks.md). Without one, Node drops a failed
    // send (ECONNREFUSED while the peer is not listening yet, and the like) and anything reported
    // later reaches the socket's "error" listener, which ignores it, as uBridge does.
    this.socket.send(frame);
  }

  close(): Promise<void> {
    if (this.closed) return Promise.resolve();
    this.closed = true;
    return new Promise((resolve) => this.socket.close(() => resolve()));
  }
}

/** The peer's address and family, or the reason its name does not resolve (both datagram paths). */
export async function resolvePeer(rhost: string): Promise<E.Either<string, { address: string; family: number }>> {
  try {
    return E.right(await lookup(rhost));
  } catch (err) {
    return E.left(reasonOf(err));
  }
}

/**
 * UDP NIOs over node:dgram: a socket bound to lport and connected to rhost:rport, so the kernel
 * drops datagrams from anyone else, as Dynamips and uBridge sockets do.
 */
export class DgramUdpTransport implements UdpTransport {
  constructor(private readonly options: DgramOptions) {}

  async open(o: UdpEndpointOptions): Promise<E.Either<string, UdpEndpoint>> {
    const resolved = await resolvePeer(o.rhost);
    if (E.isLeft(resolved)) return resolved;
    const peer = resolved.right;
    const v6 = peer.family === 6;
    const socket = createSocket({
      type: v6 ? "udp6" : "udp4",
      recvBufferSize: this.options.receiveBufferBytes,
      sendBufferSize: this.options.sendBufferBytes,
    });
    try {
      const bindAddress = v6 ? ipv6BindAddress(this.options.bindHost) : this.options.bindHost;
      await bindSocket(socket, o.lport, bindAddress);
      await connectSocket(socket, o.rport, peer.address);
    } catch (err) {
      await new Promise<void>((resolve) => {
        try {
          socket.close(() => resolve());
        } catch {
          resolve();
        }
      });
      return E.left(reasonOf(err));
    }
    socket.on("message", (msg) => o.onFrame(msg));
    // Errors after setup (ICMP unreachable and the like) must never take the process down; they
    // are reported so the user can be told the peer is gone.
    socket.on("error", (err) => o.onError?.(reasonOf(err)));
    return E.right(new DgramEndpoint(socket));
  }
}
