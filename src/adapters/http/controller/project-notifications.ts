import * as E from "fp-ts/lib/Either.js";
import type { UseCases } from "../../../application/use-cases/index.js";
import type { ControllerEvent, ProjectEvent } from "../../../application/ports/project-events.js";
import type { NetemuError } from "../../../application/errors.js";
import type { ApiRouter } from "../api-router.js";
import type { Exchange } from "../exchange.js";
import { type NotificationBacklogs, NotificationFeed } from "../notification-feed.js";
import { serveNotificationStream } from "../notification-stream.js";
import { presentDrawing, presentLink, presentNode, presentProject } from "./presenters.js";

/** GNS3 2.2's project notification websocket, which the web UI opens for the project it shows. */
export const PROJECT_NOTIFICATION_SOCKET = "/v2/projects/{project_id}/notifications/ws";
/** GNS3 2.2's controller notification websocket (projects made, opened, closed, deleted). */
export const CONTROLLER_NOTIFICATION_SOCKET = "/v2/notifications/ws";
const PROJECT_SOCKET_PATTERN = /^\/v2\/projects\/([^/]+)\/notifications\/ws$/;

/** GNS3's controller queues ping every 5 s while nothing else goes out (its NotificationQueue). */
export const CONTROLLER_PING_IDLE_MS = 5000;

/** What a notification websocket path carries: how to start the feed, or nothing for a path that is not the controller's. */
export interface FeedSource {
  /** Whether the feed can be served (its project exists): checked before a websocket is accepted, as GNS3 answers 404 first. */
  readonly available: () => Promise<E.Either<NetemuError, void>>;
  readonly idleMs: number;
  readonly watch: (deliver: (message: Buffer) => void) => Promise<E.Either<NetemuError, () => void>>;
}

/**
 * Each event's frame, made once whoever listens (the hub hands one object to every listener). GNS3's
 * frame is `{"action", "event"}`, the event being what the thing's GET answers; the one place the
 * controller's events get their wire shape (ADR 0091).
 */
const frames = new WeakMap<ProjectEvent | ControllerEvent, Buffer>();

export function encodeControllerFrame(event: ProjectEvent | ControllerEvent, consoleHost: string): Buffer {
  let frame = frames.get(event);
  if (frame === undefined) {
    frame = Buffer.from(JSON.stringify(present(event, consoleHost)));
    frames.set(event, frame);
  }
  return frame;
}

function present(event: ProjectEvent | ControllerEvent, consoleHost: string): { readonly action: string; readonly event: unknown } {
  switch (event.kind) {
    case "node.created":
    case "node.updated":
    case "node.deleted":
      return { action: event.kind, event: presentNode(event.node, consoleHost) };
    case "link.created":
    case "link.updated":
    case "link.deleted":
      return { action: event.kind, event: presentLink(event.link) };
    case "drawing.created":
    case "drawing.deleted":
      return { action: event.kind, event: presentDrawing(event.drawing) };
    case "drawing.updated": {
      // GNS3 leaves the SVG out when it did not change: the map keeps the one it has.
      const { svg, ...rest } = presentDrawing(event.drawing);
      return { action: event.kind, event: event.svgChanged ? { ...rest, svg } : rest };
    }
    case "log":
      return { action: `log.${event.severity}`, event: { message: event.message } };
    case "project.created":
    case "project.updated":
    case "project.opened":
    case "project.closed":
    case "project.deleted":
      return { action: event.kind, event: presentProject(event.project) };
  }
}

/** The feed of a controller notification websocket path, or undefined when the path is not one. */
export function controllerFeedFor(uc: UseCases, consoleHost: string, path: string): FeedSource | undefined {
  if (path === CONTROLLER_NOTIFICATION_SOCKET) return controllerFeed(uc, consoleHost);
  const match = PROJECT_SOCKET_PATTERN.exec(path);
  if (match === null) return undefined;
  return projectFeed(uc, consoleHost, decodeURIComponent(match[1] ?? ""));
}

function projectFeed(uc: UseCases, consoleHost: string, projectId: string): FeedSource {
  return {
    available: async () => E.map(() => undefined)(await uc.getProject.execute({ projectId })),
    idleMs: CONTROLLER_PING_IDLE_MS,
    watch: (deliver) => uc.watchProject.execute({ projectId, listener: (e) => deliver(encodeControllerFrame(e, consoleHost)) }),
  };
}

function controllerFeed(uc: UseCases, consoleHost: string): FeedSource {
  return {
    available: async () => E.right(undefined),
    idleMs: CONTROLLER_PING_IDLE_MS,
    watch: async (deliver) => E.right(uc.watchController.execute({ listener: (e) => deliver(encodeControllerFrame(e, consoleHost)) })),
  };
}

/**
 * The controller's notification routes over plain HTTP: GNS3's JSON-lines streams, and a GET of
 * the websocket paths without an upgrade (the socket itself is served from the server's upgrade event).
 */
export function registerControllerNotificationRoutes(api: ApiRouter, uc: UseCases, consoleHost: string, backlogs: NotificationBacklogs): void {
  const stream = (source: (x: Exchange) => FeedSource) => (x: Exchange) => {
    const { idleMs, watch } = source(x);
    return serveNotificationStream(x, backlogs, (send) => NotificationFeed.open(uc, { idleMs, send, watch }));
  };
  api.add("controller.project.notifications", "GET", "/v2/projects/{project_id}/notifications", stream((x) => projectFeed(uc, consoleHost, x.param("project_id"))));
  api.add("controller.notifications", "GET", "/v2/notifications", stream(() => controllerFeed(uc, consoleHost)));
  const notUpgraded = (x: Exchange) => x.error({ status: 400, message: "This is a websocket: connect with an Upgrade: websocket request" });
  api.add("controller.project.notifications.ws", "GET", PROJECT_NOTIFICATION_SOCKET, notUpgraded);
  api.add("controller.notifications.ws", "GET", CONTROLLER_NOTIFICATION_SOCKET, notUpgraded);
}
