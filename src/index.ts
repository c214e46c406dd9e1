import "reflect-metadata";

/**
 * netemu as a library: build a core with createNetemu(), call its use cases directly, serve its
 * Koa app, or plug your own repositories through the port interfaces.
 */
export { createNetemu } from "./adapters/composition-root.js";
export type { Netemu, NetemuOptions, PortOverrides, ListeningServer } from "./adapters/composition-root.js";
export { createHttpApp } from "./adapters/http/app.js";
export { resolveConfig, ConfigError } from "./adapters/config/server-config.js";

export type { UseCases } from "./application/use-cases/index.js";
export * from "./application/use-cases/index.js";
export type { NetemuError, ErrorTag } from "./application/errors.js";
export { TOKENS } from "./application/ports/tokens.js";
export type * from "./application/ports/repositories.js";
export type * from "./application/ports/data-plane.js";
export type * from "./application/ports/udp-port-pool.js";
export type * from "./application/ports/udp-transport.js";
export type * from "./application/ports/capture-sink.js";
export type * from "./application/ports/settings-store.js";
export type * from "./application/ports/server-settings.js";
export type * from "./application/ports/system.js";
export type * from "./application/ports/host.js";
export type * from "./application/ports/notifications.js";
export type * from "./application/ports/project-files.js";

export * from "./domain/filters/catalogue.js";
export * from "./domain/filters/filter-settings.js";
export * from "./domain/switching/port.js";
export * from "./domain/switching/nio.js";
export * from "./domain/switching/ethernet-switch.js";
export * from "./domain/switching/ethernet-hub.js";
export * from "./domain/switching/compute-node.js";
export * from "./domain/topology/project.js";
export * from "./domain/topology/node.js";
export * from "./domain/topology/link.js";
export * from "./domain/topology/label.js";
export * from "./domain/server/version.js";
export * from "./domain/server/iou-license.js";

export {
  InMemoryProjectRepository,
  InMemoryComputeProjectRepository,
  InMemoryComputeNodeRepository,
  InMemoryNodeRepository,
  InMemoryLinkRepository,
} from "./adapters/persistence/in-memory-repositories.js";
