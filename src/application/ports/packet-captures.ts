import type * as E from "fp-ts/lib/Either.js";
import type { ErrorOf } from "../errors.js";

/** Packet captures on the ports of live switches and hubs: classic pcap, after the port's filters. */
export interface PacketCaptures {
  /**
   * Starts writing the port's frames (both directions) to the file, created or truncated. A port that
   * went while the file was being opened (its NIO or node removed, the data plane closed) gets no
   * capture: the file is closed and PortNotAllocated answered (ADR 0074).
   */
  start(nodeId: string, portNumber: number, filePath: string): Promise<E.Either<ErrorOf<"PortNotAllocated" | "CaptureAlreadyActive" | "CaptureFileUnwritable">, void>>;
  /** Stops the port's capture, if any. */
  stop(nodeId: string, portNumber: number): Promise<void>;
  /** The file the port's running capture writes, if any. */
  fileOf(nodeId: string, portNumber: number): Promise<string | undefined>;
}
