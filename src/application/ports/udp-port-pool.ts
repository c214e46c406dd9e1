import type * as E from "fp-ts/lib/Either.js";
import type { NetemuError } from "../errors.js";

/** The configured UDP port range, handed out to link ends (GNS3's /ports/udp). */
export interface UdpPortPool {
  /** Reserves a free port of the range that can really be bound right now. */
  reserve(): Promise<E.Either<NetemuError, number>>;
  /** Marks a port as in use by a NIO (whether or not it came from reserve). */
  claim(port: number): void;
  release(port: number): void;
  reserved(): readonly number[];
}
