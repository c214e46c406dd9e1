import "reflect-metadata";

/**
 * netemu/http: the Koa adapter. `createNetemu()` (from "netemu") already builds the app and serves it;
 * these are for a host that composes its own server.
 */
export { createHttpApp, type HttpAppOptions } from "./adapters/http/app.js";
export { NotificationSocketServer, NOTIFICATION_SOCKET_PATH, type NotificationSocketOptions } from "./adapters/http/notification-socket.js";
export type { AuthSettings } from "./adapters/http/auth.js";
export type { HttpMetrics, Scrape } from "./adapters/http/server/metrics-route.js";
/** One bound on slow notification clients, to hand to both createHttpApp and NotificationSocketServer (ADR 0059). */
export { NotificationBacklogs, DEFAULT_BACKLOG_LIMITS, type BacklogLimits } from "./adapters/http/notification-feed.js";
