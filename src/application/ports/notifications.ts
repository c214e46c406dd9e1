import type { ComputeNode } from "../../domain/switching/compute-node.js";

export type LogSeverity = "error" | "warning" | "info";

/**
 * What the compute tells its controller as it happens (GNS3's compute notifications): a node whose
 * answer changed, and events a lab user should see in the GUI's console.
 */
export type ComputeNotification =
  | { readonly kind: "node.updated"; readonly node: ComputeNode }
  | { readonly kind: "log"; readonly severity: LogSeverity; readonly message: string; readonly projectId?: string };

export interface Notifications {
  /** Hands the notification to every listener now; a listener that throws does not stop the others. */
  publish(notification: ComputeNotification): void;
  /** Listens until the returned function is called. */
  subscribe(listener: (notification: ComputeNotification) => void): () => void;
}
