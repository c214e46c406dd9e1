import type { Drawing } from "../../domain/topology/drawing.js";
import type { Link } from "../../domain/topology/link.js";
import type { Project } from "../../domain/topology/project.js";
import type { ControllerNodeView } from "../use-cases/controller/node-views.js";

/**
 * What netemu's controller tells the clients of a project as it happens (GNS3 2.2's project
 * notifications), as data: the thing that changed, whole, as its GET answers it. The HTTP adapter
 * words each as GNS3's `{"action", "event"}` frame (ADR 0091).
 */
export type ProjectEvent =
  | { readonly kind: "node.created" | "node.updated" | "node.deleted"; readonly projectId: string; readonly node: ControllerNodeView }
  | { readonly kind: "link.created" | "link.updated" | "link.deleted"; readonly projectId: string; readonly link: Link }
  | { readonly kind: "drawing.created" | "drawing.deleted"; readonly projectId: string; readonly drawing: Drawing }
  /** GNS3 leaves the SVG out of drawing.updated when it did not change (it may be large). */
  | { readonly kind: "drawing.updated"; readonly projectId: string; readonly drawing: Drawing; readonly svgChanged: boolean }
  | { readonly kind: "log"; readonly projectId: string; readonly severity: "error" | "warning" | "info"; readonly message: string };

/** What the controller tells every client of the controller-wide stream (GNS3's controller notifications). */
export type ControllerEvent = { readonly kind: "project.created" | "project.updated" | "project.opened" | "project.closed" | "project.deleted"; readonly project: Project };

export interface ProjectEvents {
  /** Hands the event to every listener now; a listener that throws does not stop the others. */
  publish(event: ProjectEvent | ControllerEvent): void;
  /** Listens to one project's events until the returned function is called. */
  subscribeProject(projectId: string, listener: (event: ProjectEvent) => void): () => void;
  /** Listens to the controller's own events (projects made, opened, closed ...) until the returned function is called. */
  subscribeController(listener: (event: ControllerEvent) => void): () => void;
}
