import type * as E from "fp-ts/lib/Either.js";
import type { ErrorOf } from "../errors.js";

/** The configured UDP port range, handed out to link ends (GNS3's /ports/udp), per compute project. */
export interface UdpPortPool {
  /** The configured range, first and last port. */
  readonly range: { readonly start: number; readonly end: number };
  /**
   * Reserves for the project a free port of the range that can really be bound right now. A bind
   * failure other than "address in use" (no file descriptors left, ...) ends the search at once.
   */
  reserve(projectId: string): Promise<E.Either<ErrorOf<"NoFreeUdpPort" | "UdpPortCheckFailed">, number>>;
  /** Marks a port as in use by a NIO of the project (whether or not it came from reserve). */
  claim(port: number, projectId: string): void;
  release(port: number): void;
  /** Releases every port the project holds (it was closed or deleted), as GNS3's compute does. */
  releaseProject(projectId: string): void;
  reserved(): readonly number[];
}
