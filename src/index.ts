import "reflect-metadata";

/**
 * netemu as a library: build a core with createNetemu(), call its use cases directly, serve its
 * Koa app, or plug your own repositories and ports through `overrides`. The Koa adapter is
 * `netemu/http`; the pcap-filter compiler is `netemu/pcap-filter`.
 */
export { createNetemu, DEFAULT_HTTP_TIMEOUTS } from "./adapters/composition-root.js";
export type { Netemu, NetemuOptions, PortOverrides, ListeningServer, HttpTimeouts, DatagramPath } from "./adapters/composition-root.js";
export { resolveConfig, ConfigError, type NetemuConfig } from "./adapters/config/server-config.js";
export { ProjectsPathLocked, ProjectsPathUnusable, type LockHolder } from "./adapters/persistence/projects-path-lock.js";
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
export type { MetricsSnapshot, NodeFigures } from "./application/use-cases/server/take-metrics-snapshot.js";
export type { CreateProjectInput } from "./application/use-cases/controller/create-project.js";
export type { CreateNodeInput } from "./application/use-cases/controller/create-node.js";
export type { NodeSettingsInput, UpdateNodeInput } from "./application/use-cases/controller/update-node.js";
export type { ControllerNodeView, ControllerNodeDetail } from "./application/use-cases/controller/node-views.js";
export type { LinkView } from "./application/use-cases/controller/get-link.js";
export type { NodeAction } from "./application/use-cases/controller/control-node.js";
export type { CreateLinkInput, LinkEndRequest } from "./application/use-cases/controller/create-link.js";
export type { UpdateLinkInput } from "./application/use-cases/controller/update-link.js";
// Host nodes (ADR 0081): the VPCS use cases' inputs and refusals, and what runs their processes.
export type { CreateVpcsInput, CreateVpcsError } from "./application/use-cases/compute/create-vpcs.js";
export type { UpdateVpcsInput, UpdateVpcsError } from "./application/use-cases/compute/update-vpcs.js";
// GNS3's Cloud (ADR 0082): its use cases' inputs and refusals, and the node.
export type { CreateCloudInput, CreateCloudError } from "./application/use-cases/compute/create-cloud.js";
export type { UpdateCloudInput, UpdateCloudError } from "./application/use-cases/compute/update-cloud.js";
export type { CloudNode, CloudPort } from "./domain/switching/cloud-node.js";
// netemu's Linux hosts (ADR 0087): their use cases' inputs and refusals, the node, and its template's id.
export type { CreateLinuxHostInput, CreateLinuxHostError } from "./application/use-cases/compute/create-linux-host.js";
export type { UpdateLinuxHostInput, UpdateLinuxHostError } from "./application/use-cases/compute/update-linux-host.js";
export type { ExecInLinuxHostError } from "./application/use-cases/compute/exec-in-linux-host.js";
export type { LinuxHostStartError } from "./application/use-cases/compute/linux-host-runtime.js";
export type { ExecInNodeError } from "./application/use-cases/controller/exec-in-node.js";
export type { NetemuHostNode, HostInterfaceSettings } from "./domain/switching/netemu-host-node.js";
export { LINUX_HOST_TEMPLATE_ID } from "./domain/topology/templates.js";
export type { HostStartError } from "./application/use-cases/compute/host-runtime.js";
export type { HostProcesses, ProcessSpec, ProcessExit, ConsolePortPool } from "./application/ports/host-processes.js";
export type {
  NetemuError,
  ErrorTag,
  ErrorOf,
  ComputeProjectLookupError,
  ComputeNodeLookupError,
  ComputePortLookupError,
  ControllerProjectLookupError,
  ControllerNodeLookupError,
  ControllerLinkLookupError,
  SyncError,
} from "./application/errors.js";
// What each use case can answer instead of its result.
export type { AddNioError } from "./application/use-cases/compute/add-nio.js";
export type { ChangeNodeStatusError } from "./application/use-cases/compute/change-node-status.js";
export type { CloseComputeProjectError } from "./application/use-cases/compute/close-compute-project.js";
export type { CreateComputeProjectError } from "./application/use-cases/compute/create-compute-project.js";
export type { CreateHubError } from "./application/use-cases/compute/create-hub.js";
export type { CreateSwitchError } from "./application/use-cases/compute/create-switch.js";
export type { DeleteComputeNodeError } from "./application/use-cases/compute/delete-compute-node.js";
export type { DeleteComputeProjectError } from "./application/use-cases/compute/delete-compute-project.js";
export type { DuplicateComputeNodeError } from "./application/use-cases/compute/duplicate-compute-node.js";
export type { GetComputeNodeError } from "./application/use-cases/compute/get-compute-node.js";
export type { GetComputeProjectError } from "./application/use-cases/compute/get-compute-project.js";
export type { GetMacTableError } from "./application/use-cases/compute/get-mac-table.js";
export type { ListProjectFilesError } from "./application/use-cases/compute/list-project-files.js";
export type { LocateCaptureError } from "./application/use-cases/compute/locate-capture.js";
export type { ReadProjectFileError } from "./application/use-cases/compute/read-project-file.js";
export type { RemoveNioError } from "./application/use-cases/compute/remove-nio.js";
export type { ReserveUdpPortError } from "./application/use-cases/compute/reserve-udp-port.js";
export type { StartCaptureError } from "./application/use-cases/compute/start-capture.js";
export type { StopCaptureError } from "./application/use-cases/compute/stop-capture.js";
export type { UpdateComputeProjectError } from "./application/use-cases/compute/update-compute-project.js";
export type { UpdateHubError } from "./application/use-cases/compute/update-hub.js";
export type { UpdateNioError } from "./application/use-cases/compute/update-nio.js";
export type { UpdateNioFiltersInput, UpdateNioFiltersError } from "./application/use-cases/compute/update-nio-filters.js";
export type { UpdateSwitchError } from "./application/use-cases/compute/update-switch.js";
export type { WatchNotificationsError } from "./application/use-cases/compute/watch-notifications.js";
export type { WriteProjectFileError } from "./application/use-cases/compute/write-project-file.js";
export type { CloseProjectError } from "./application/use-cases/controller/close-project.js";
export type { ComputeNodeCreateError, ComputeNodeUpdateError } from "./application/use-cases/controller/compute-node-commands.js";
export type { ControlAllNodesError } from "./application/use-cases/controller/control-all-nodes.js";
export type { ControlNodeError } from "./application/use-cases/controller/control-node.js";
export type { CreateLinkError } from "./application/use-cases/controller/create-link.js";
export type { CreateNodeError } from "./application/use-cases/controller/create-node.js";
export type { CreateNodeFromTemplateError, CreateNodeFromTemplateInput } from "./application/use-cases/controller/create-node-from-template.js";
export type { GetComputeError } from "./application/use-cases/controller/get-compute.js";
export type { GetProjectStatsError } from "./application/use-cases/controller/get-project-stats.js";
export type { ListDrawingsError } from "./application/use-cases/controller/list-drawings.js";
export type { GetDrawingError } from "./application/use-cases/controller/get-drawing.js";
export type { CreateDrawingError, CreateDrawingInput } from "./application/use-cases/controller/create-drawing.js";
export type { UpdateDrawingError } from "./application/use-cases/controller/update-drawing.js";
export type { DeleteDrawingError } from "./application/use-cases/controller/delete-drawing.js";
export type { WatchProjectError } from "./application/use-cases/controller/watch-project.js";
export type { GetTemplateError } from "./application/use-cases/controller/get-template.js";
export type { ListNodeLinksError } from "./application/use-cases/controller/list-node-links.js";
export type { CreateProjectError } from "./application/use-cases/controller/create-project.js";
export type { DeleteLinkError } from "./application/use-cases/controller/delete-link.js";
export type { DeleteNodeError } from "./application/use-cases/controller/delete-node.js";
export type { DeleteProjectError } from "./application/use-cases/controller/delete-project.js";
export type { GetLinkError } from "./application/use-cases/controller/get-link.js";
export type { GetNodeError } from "./application/use-cases/controller/get-node.js";
export type { GetProjectError } from "./application/use-cases/controller/get-project.js";
export type { WiringError } from "./application/use-cases/controller/link-wiring.js";
export type { ListAvailableFiltersError } from "./application/use-cases/controller/list-available-filters.js";
export type { ListLinksError } from "./application/use-cases/controller/list-links.js";
export type { ListNodesError } from "./application/use-cases/controller/list-nodes.js";
export type { LocateLinkCaptureError } from "./application/use-cases/controller/locate-link-capture.js";
export type { OpenProjectError } from "./application/use-cases/controller/open-project.js";
export type { StartLinkCaptureError } from "./application/use-cases/controller/start-link-capture.js";
export type { StopLinkCaptureError } from "./application/use-cases/controller/stop-link-capture.js";
export type { UpdateLinkError } from "./application/use-cases/controller/update-link.js";
export type { UpdateNodeError } from "./application/use-cases/controller/update-node.js";
export type { CheckClientVersionError } from "./application/use-cases/server/check-client-version.js";
export type { ShutdownServerError } from "./application/use-cases/server/shutdown-server.js";
export type { GetIouLicenseError } from "./application/use-cases/server/get-iou-license.js";
export type { UpdateIouLicenseError } from "./application/use-cases/server/update-iou-license.js";
export type { WriteDebugBundleError } from "./application/use-cases/server/write-debug-bundle.js";

// Ports: what an embedding host may implement and pass in `overrides`.
export { TOKENS } from "./application/ports/tokens.js";
export type * from "./application/ports/repositories.js";
export type * from "./application/ports/data-plane.js";
export type * from "./application/ports/packet-captures.js";
export type * from "./application/ports/udp-port-pool.js";
export type * from "./application/ports/udp-transport.js";
export type * from "./application/ports/host-devices.js";
export type * from "./application/ports/namespace-hosts.js";
export type * from "./application/ports/capture-sink.js";
export type * from "./application/ports/settings-store.js";
export type * from "./application/ports/server-settings.js";
export type * from "./application/ports/system.js";
export type * from "./application/ports/timers.js";
export type * from "./application/ports/host.js";
export type * from "./application/ports/notifications.js";
export type * from "./application/ports/project-events.js";
export type * from "./application/ports/project-files.js";
export type * from "./application/ports/impairment-store.js";
export type * from "./application/ports/data-plane-health.js";
export { NO_DATA_PLANE_WORKERS } from "./application/ports/data-plane-health.js";
export { InMemoryImpairmentStore } from "./adapters/persistence/in-memory-impairment-store.js";
export { InMemoryTraceStore } from "./adapters/persistence/file-trace-store.js";
export { NotificationHub } from "./application/notification-hub.js";
export { ProjectEventHub } from "./application/project-event-hub.js";
export {
  InMemoryProjectRepository,
  InMemoryComputeProjectRepository,
  InMemoryComputeNodeRepository,
  InMemoryNodeRepository,
  InMemoryLinkRepository,
} from "./adapters/persistence/in-memory-repositories.js";

// The domain values use cases take and answer.
export { FILTER_KINDS, FILTER_CATALOGUE, NETEMU_FILTER_CATALOGUE, type FilterKind, type FilterDescriptor, type FilterParameter, type IntParameter, type TextParameter } from "./domain/filters/catalogue.js";
export {
  NO_FILTERS,
  parseFilterSettings,
  renderFilterSettings,
  filterSettingsEqual,
  type FilterSettings,
  type FilterValues,
  type LinkFilters,
  type RawFilterSettings,
  type InvalidFilterSettings,
  type FilterProblem,
  type TextLinesKind,
  type BpfLineError,
} from "./domain/filters/filter-settings.js";
// Schedules (ADR 0102): a direction's impairments as a function of time, the one parse and which step is active at t.
export {
  parseSchedule,
  activeStep,
  renderSchedule,
  scheduleEqual,
  SCHEDULE_LIMITS,
  type Schedule,
  type ScheduleStart,
  type ScheduleForm,
  type ScheduleStep,
  type ScheduleWindow,
  type ActiveStep,
  type ArmedSchedule,
} from "./domain/filters/schedule.js";
// Configuration as values (ADR 0053): the one parse of each value, which every door calls, its limits and its refusals.
export { CONFIGURATION_LIMITS } from "./domain/configuration/limits.js";
export type { InvalidConfiguration, ConfigurationRule, ScheduleRule } from "./domain/configuration/invalid-configuration.js";
export type { RandomSource } from "./domain/filters/random.js";
export {
  defaultPortsMapping,
  parseSwitchPorts,
  portsMappingEqual,
  MIN_VLAN,
  MAX_VLAN,
  ETHERTYPE_CHOICES,
  type PortMappingEntry,
  type PortMode,
  type PortType,
  type EthertypeChoice,
  type QinqEthertype,
  type NumberedPort,
} from "./domain/switching/port.js";
export { parseNio, nioEqual, type Nio, type UdpNio, type TapNio, type EthernetNio, type FrameNio, type NullNio, type UnsupportedNioType, type NioTypeNotSupported, type NioProblem } from "./domain/switching/nio.js";
export type { EthernetSwitch, ConsoleType } from "./domain/switching/ethernet-switch.js";
export { defaultHubPorts, parseHubPorts, type EthernetHub, type HubPortEntry } from "./domain/switching/ethernet-hub.js";
export { COMPUTE_NODE_TYPES, parseNodeName, parseComputeNode, type ComputeNode, type ComputeNodeType, type NodeStatus, type NodeRuleViolation } from "./domain/switching/compute-node.js";
export { NODE_KINDS, type NodeKind, type NodeFabric } from "./domain/switching/node-kind.js";
export type { HostNode, VpcsNode } from "./domain/switching/host-node.js";
export type { Project, ProjectStatus, ProjectOptions, ProjectVariable, ComputeProject } from "./domain/topology/project.js";
export type { Drawing, DrawingSettings } from "./domain/topology/drawing.js";
export type { ControllerNode, NodeType, NodePortEntry } from "./domain/topology/node.js";
export type { Link, LinkEnd, LinkCapture, LinkEndpoint, LinkRuleViolation, LinkStyle } from "./domain/topology/link.js";
export type { Label } from "./domain/topology/label.js";
export type { VersionMismatch } from "./domain/server/version.js";
export type { IouLicense } from "./domain/server/iou-license.js";
// netemu's impairments on ports a GNS3 controller placed here (ADR 0067).
export type { SetImpairmentInput, SetImpairmentError } from "./application/use-cases/compute/impairment-set.js";
export type { ImpairmentSelection } from "./application/use-cases/compute/impairment-list.js";
export type { PortByName, PortByNameError } from "./application/use-cases/compute/impairment-target.js";
export type { Impairment, ImpairmentTarget } from "./domain/switching/impairment-overlay.js";
