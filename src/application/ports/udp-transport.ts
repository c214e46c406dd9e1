import type * as E from "fp-ts/lib/Either.js";

/** One UDP NIO's socket: bound to lport, exchanging datagrams with rhost:rport only. */
export interface UdpEndpoint {
  send(frame: Uint8Array): void;
  close(): Promise<void>;
  /**
   * Stops receiving but keeps the socket bound and connected, for a transport on another thread to
   * take over (`UdpEndpointOptions.handover`): datagrams that come meanwhile wait in the socket's
   * kernel buffer, so a node moving between data-plane workers loses none (ADR 0069). Absent where the
   * transport cannot (node:dgram): there the socket is closed and bound again.
   */
  handOver?(): SocketHandover;
}

/** A socket handed over between threads, as plain data: the process-wide descriptor of a bound, connected socket. */
export interface SocketHandover {
  readonly fd: number;
  /**
   * What the transport keeps with the socket across threads, as plain data, given back to it with the
   * socket (an in-process link's shared rings, ADR 0111); the data plane only carries it.
   */
  readonly carried?: unknown;
}

export interface UdpEndpointOptions {
  readonly lport: number;
  readonly rhost: string;
  readonly rport: number;
  /** Called for every datagram from the peer (one datagram = one frame). */
  readonly onFrame: (frame: Uint8Array) => void;
  /** Called when the socket reports a failure after setup (the peer unreachable, ECONNREFUSED ...). */
  readonly onError?: (reason: string) => void;
  /**
   * Told of frames from the peer that this end had no room for in its receive buffer, and their bytes,
   * where the transport sees such drops (an in-process link, ADR 0105, 0111; the kernel's are not seen).
   */
  readonly onOverflow?: (frames: number, bytes: number) => void;
  /**
   * The socket another thread handed over for this NIO: taken over when it is this NIO's (same lport
   * and peer), else, or where the transport cannot take one, a socket is bound as usual.
   */
  readonly handover?: SocketHandover;
}

export interface UdpTransport {
  /** Binds and connects; Left is the reason, for `Could not create an UDP connection to ...`. */
  open(options: UdpEndpointOptions): Promise<E.Either<string, UdpEndpoint>>;
}
