import type { ComputeNode } from "../../domain/switching/compute-node.js";

type LogSeverity = "error" | "warning" | "info";

/**
 * What the compute tells its controller as it happens (GNS3's compute notifications): a node whose
 * answer changed, and events a lab user should see in the GUI's console, as data (the HTTP adapter
 * words them as GNS3's log.warning / log.error). `log` carries a host's own free-text message.
 */
export type ComputeNotification =
  | { readonly kind: "node.updated"; readonly node: ComputeNode }
  /** A NIO's socket reported its peer unreachable (told once, until frames come from the peer again). */
  | { readonly kind: "peer_unreachable"; readonly node: ComputeNode; readonly portNumber: number; readonly peer: string; readonly reason: string }
  /** A nio_tap's or nio_ethernet's device failed after it was opened (ADR 0083). */
  | { readonly kind: "device_failed"; readonly node: ComputeNode; readonly portNumber: number; readonly device: string; readonly reason: string }
  /** A port's capture could not write its file any more and stopped. */
  | { readonly kind: "capture_failed"; readonly node: ComputeNode; readonly portNumber: number; readonly filePath: string; readonly reason: string }
  /** A restarted data-plane worker took the node back (its devices opened again by name, ADR 0087). */
  | { readonly kind: "node.restored"; readonly node: ComputeNode }
  | { readonly kind: "log"; readonly severity: LogSeverity; readonly message: string; readonly projectId?: string };

/** The project a notification belongs to, if any. */
export function projectOf(n: ComputeNotification): string | undefined {
  return n.kind === "log" ? n.projectId : n.node.projectId;
}

export interface Notifications {
  /** Hands the notification to every listener now; a listener that throws does not stop the others. */
  publish(notification: ComputeNotification): void;
  /** Listens until the returned function is called. */
  subscribe(listener: (notification: ComputeNotification) => void): () => void;
}
