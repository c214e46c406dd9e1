import type * as E from "fp-ts/lib/Either.js";

/** One UDP NIO's socket: bound to lport, exchanging datagrams with rhost:rport only. */
export interface UdpEndpoint {
  send(frame: Uint8Array): void;
  close(): Promise<void>;
}

export interface UdpEndpointOptions {
  readonly lport: number;
  readonly rhost: string;
  readonly rport: number;
  /** Called for every datagram from the peer (one datagram = one frame). */
  readonly onFrame: (frame: Uint8Array) => void;
  /** Called when the socket reports a failure after setup (the peer unreachable, ECONNREFUSED ...). */
  readonly onError?: (reason: string) => void;
}

export interface UdpTransport {
  /** Binds and connects; Left is the reason, for `Could not create an UDP connection to ...`. */
  open(options: UdpEndpointOptions): Promise<E.Either<string, UdpEndpoint>>;
}
