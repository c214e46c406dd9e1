import type * as E from "fp-ts/lib/Either.js";
import type { ErrorOf } from "../errors.js";

/** Why a capture did not start: the port, a capture already there, the file, or the thread that runs the node being down (ADR 0073). */
export type CaptureStartRefusal = ErrorOf<"PortNotAllocated" | "CaptureAlreadyActive" | "CaptureFileUnwritable" | "DataPlaneWorkerDown">;

/** Packet captures on the ports of live switches and hubs: classic pcap, after the port's filters. */
export interface PacketCaptures {
  /**
   * Starts writing the port's frames (both directions) to the file, created or truncated. A port that
   * went while the file was being opened (its NIO or node removed, the data plane closed) gets no
   * capture: the file is closed and PortNotAllocated answered (ADR 0074). A node whose worker is down
   * (restarting, or given up after repeated deaths) gets DataPlaneWorkerDown.
   */
  start(nodeId: string, portNumber: number, filePath: string): Promise<E.Either<CaptureStartRefusal, void>>;
  /** Stops the port's capture, if any. */
  stop(nodeId: string, portNumber: number): Promise<void>;
  /** The file the port's running capture writes, if any. */
  fileOf(nodeId: string, portNumber: number): Promise<string | undefined>;
}
