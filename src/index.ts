import "reflect-metadata";

/**
 * netemu as a library: build a core with createNetemu(), call its use cases directly, serve its
 * Koa app, or plug your own repositories and ports through `overrides`. The Koa adapter is
 * `netemu/http`; the pcap-filter compiler is `netemu/pcap-filter`.
 */
export { createNetemu, DEFAULT_HTTP_TIMEOUTS } from "./adapters/composition-root.js";
export type { Netemu, NetemuOptions, PortOverrides, ListeningServer, HttpTimeouts } from "./adapters/composition-root.js";
export { resolveConfig, ConfigError, type NetemuConfig } from "./adapters/config/server-config.js";
export type { LogLevel } from "./application/ports/system.js";
export type { DataPlaneOptions } from "./application/dataplane/switch-data-plane.js";

// Use cases: one class each; `netemu.useCases` holds one instance of every one.
export * from "./application/use-cases/index.js";
export type { Capabilities } from "./application/use-cases/compute/get-capabilities.js";
export type { CreateComputeProjectInput } from "./application/use-cases/compute/create-compute-project.js";
export type { CreateSwitchInput } from "./application/use-cases/compute/create-switch.js";
export type { UpdateSwitchInput } from "./application/use-cases/compute/update-switch.js";
export type { CreateHubInput } from "./application/use-cases/compute/create-hub.js";
export type { UpdateHubInput } from "./application/use-cases/compute/update-hub.js";
export type { NioRequest } from "./application/use-cases/compute/nio-request.js";
export type { PortAddress } from "./application/use-cases/compute/compute-lookup.js";
export type { ActiveCapture } from "./application/use-cases/compute/locate-capture.js";
export type { ComputeNodeView } from "./application/use-cases/compute/get-compute-node.js";
export type { NetworkPorts } from "./application/use-cases/compute/list-network-ports.js";
export type { WatchNotificationsInput } from "./application/use-cases/compute/watch-notifications.js";
export type { ServerVersion } from "./application/use-cases/server/get-server-version.js";
export type { CreateProjectInput } from "./application/use-cases/controller/create-project.js";
export type { CreateNodeInput } from "./application/use-cases/controller/create-node.js";
export type { NodeSettingsInput, UpdateNodeInput } from "./application/use-cases/controller/update-node.js";
export type { ControllerNodeView } from "./application/use-cases/controller/node-views.js";
export type { NodeAction } from "./application/use-cases/controller/control-node.js";
export type { CreateLinkInput, LinkEndRequest } from "./application/use-cases/controller/create-link.js";
export type { UpdateLinkInput } from "./application/use-cases/controller/update-link.js";
export type { NetemuError, ErrorTag } from "./application/errors.js";

// Ports: what an embedding host may implement and pass in `overrides`.
export { TOKENS } from "./application/ports/tokens.js";
export type * from "./application/ports/repositories.js";
export type * from "./application/ports/data-plane.js";
export type * from "./application/ports/packet-captures.js";
export type * from "./application/ports/udp-port-pool.js";
export type * from "./application/ports/udp-transport.js";
export type * from "./application/ports/capture-sink.js";
export type * from "./application/ports/settings-store.js";
export type * from "./application/ports/server-settings.js";
export type * from "./application/ports/system.js";
export type * from "./application/ports/timers.js";
export type * from "./application/ports/host.js";
export type * from "./application/ports/notifications.js";
export type * from "./application/ports/project-files.js";
export { NotificationHub } from "./application/notification-hub.js";
export {
  InMemoryProjectRepository,
  InMemoryComputeProjectRepository,
  InMemoryComputeNodeRepository,
  InMemoryNodeRepository,
  InMemoryLinkRepository,
} from "./adapters/persistence/in-memory-repositories.js";

// The domain values use cases take and answer.
export { FILTER_KINDS, FILTER_CATALOGUE, type FilterKind, type FilterDescriptor, type FilterParameter, type IntParameter, type TextParameter } from "./domain/filters/catalogue.js";
export { NO_FILTERS, type FilterSettings, type InvalidFilterSettings } from "./domain/filters/filter-settings.js";
export type { RandomSource } from "./domain/filters/random.js";
export {
  defaultPortsMapping,
  MIN_VLAN,
  MAX_VLAN,
  ETHERTYPE_CHOICES,
  type PortMappingEntry,
  type PortMode,
  type PortType,
  type EthertypeChoice,
  type QinqEthertype,
} from "./domain/switching/port.js";
export type { Nio, UdpNio, NullNio, UnsupportedNioType } from "./domain/switching/nio.js";
export type { EthernetSwitch, ConsoleType } from "./domain/switching/ethernet-switch.js";
export { defaultHubPorts, type EthernetHub, type HubPortEntry } from "./domain/switching/ethernet-hub.js";
export { COMPUTE_NODE_TYPES, type ComputeNode, type ComputeNodeType, type NodeStatus, type NodeRuleViolation } from "./domain/switching/compute-node.js";
export type { Project, ProjectStatus, ProjectOptions, ProjectVariable, ComputeProject } from "./domain/topology/project.js";
export type { ControllerNode, NodeType, NodePortEntry } from "./domain/topology/node.js";
export type { Link, LinkEnd, LinkCapture, LinkEndpoint, LinkRuleViolation } from "./domain/topology/link.js";
export type { Label } from "./domain/topology/label.js";
export type { VersionMismatch } from "./domain/server/version.js";
export type { IouLicense } from "./domain/server/iou-license.js";
