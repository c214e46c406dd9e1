import type { TraceProblem } from "../domain/traces/trace.js";
import type { ComputeNodeType, NodeRuleViolation } from "../domain/switching/compute-node.js";
import type { VersionMismatch } from "../domain/server/version.js";
import type { InvalidFilterSettings } from "../domain/filters/filter-settings.js";
import type { InvalidConfiguration } from "../domain/configuration/invalid-configuration.js";
import type { NioTypeNotSupported } from "../domain/switching/nio.js";
import type { HostDeviceProblem } from "./ports/host-devices.js";
import type { HostProblem } from "./ports/namespace-hosts.js";

/**
 * Every expected failure of a use case, as a closed tagged union. The HTTP adapter maps it to a
 * status and GNS3's message in one function (adapters/http/error-mapping.ts).
 */
export type NetemuError =
  | { readonly _tag: "ProjectNotFound"; readonly projectId: string }
  | { readonly _tag: "ProjectNotOpened"; readonly projectId: string }
  | { readonly _tag: "ProjectNameTaken"; readonly name: string }
  /** Opening a project whose file (written by GNS3) has nodes of types netemu does not run. */
  | { readonly _tag: "ProjectHasUnsupportedNodes"; readonly projectName: string; readonly nodeTypes: readonly string[] }
  | { readonly _tag: "NodeNotFound"; readonly nodeId: string }
  | { readonly _tag: "LinkNotFound"; readonly linkId: string }
  | { readonly _tag: "DrawingNotFound"; readonly drawingId: string }
  /** DELETE of a drawing the user locked on the map (GNS3 refuses it too). */
  | { readonly _tag: "DrawingLocked"; readonly drawingId: string }
  | { readonly _tag: "InvalidUuid"; readonly what: "Project" | "Node"; readonly id: string }
  | { readonly _tag: "NodeNotInProject"; readonly projectId: string; readonly nodeName: string }
  | { readonly _tag: "AdapterNotFound"; readonly adapterNumber: number; readonly nodeName: string; readonly nodeType: ComputeNodeType }
  /** A link end on a port the node does not have: `ports` are the ones it has, for the message. */
  | { readonly _tag: "LinkPortNotFound"; readonly adapterNumber: number; readonly portNumber: number; readonly nodeName: string; readonly ports: readonly NamedPort[] }
  | { readonly _tag: "CannotConnectToItself" }
  /** A link end on a port another link holds: the port and its node, the link and its other end, by the names the user gave. */
  | { readonly _tag: "PortAlreadyUsed"; readonly port: NamedLinkEnd; readonly linkId: string; readonly peer: NamedLinkEnd }
  | { readonly _tag: "NodeTypeNotSupported"; readonly nodeType: string }
  /** A create with the id of a node of another type (the compute's node ids are shared by switches and hubs). */
  | { readonly _tag: "NodeIdInUse"; readonly nodeId: string; readonly nodeType: ComputeNodeType }
  | { readonly _tag: "ComputeNotFound"; readonly computeId: string }
  | { readonly _tag: "UdpConnectionFailed"; readonly rhost: string; readonly rport: number; readonly reason: string }
  /** A nio_tap or nio_ethernet whose device could not be opened (ADR 0083): which device, and why. */
  | { readonly _tag: "NioDeviceFailed"; readonly nioType: "nio_tap" | "nio_ethernet"; readonly device: string; readonly problem: HostDeviceProblem }
  | { readonly _tag: "NoFreeUdpPort"; readonly start: number; readonly end: number }
  /** Binding a port to check it failed for a reason of the host's (EMFILE, ...), not because it was taken. */
  | { readonly _tag: "UdpPortCheckFailed"; readonly port: number; readonly address: string; readonly code: string; readonly detail: string }
  /** The settings file (gns3_controller.conf) could not be read or written: `code` and `detail` are the OS's. */
  | { readonly _tag: "SettingsFileFailed"; readonly path: string; readonly operation: "read" | "write"; readonly code: string; readonly detail: string }
  /** The debug bundle directory (<config dir>/debug) could not be written. */
  | { readonly _tag: "DebugBundleUnwritable"; readonly path: string; readonly code: string; readonly detail: string }
  | { readonly _tag: "NotLocalServer"; readonly action: "debug" | "stop" | "load" }
  /** POST /v2/projects/load of a `.gns3` file that cannot be read or is refused (GNS3's "Could not load topology"). */
  | { readonly _tag: "TopologyNotLoaded"; readonly path: string; readonly reason: string }
  /** A controller node id given twice in one project. */
  | { readonly _tag: "NodeAlreadyExists"; readonly nodeId: string }
  /** A link with other than two ends. */
  | { readonly _tag: "LinkEndCount"; readonly count: number }
  /** A capture asked in a link type a switch or hub port does not carry. */
  | { readonly _tag: "DataLinkTypeNotSupported"; readonly nodeType: ComputeNodeType; readonly dataLinkType: string }
  /** A capture file name with a directory part, "..", or control characters. */
  | { readonly _tag: "CaptureFileNameInvalid"; readonly fileName: string }
  /** A PUT of a NIO of another kind than the port's. */
  | { readonly _tag: "NioTypeMismatch"; readonly portNumber: number; readonly current: string; readonly requested: string }
  /** GET .../pcap of a port that is not capturing. */
  | { readonly _tag: "NoCaptureToStream" }
  /** GET .../pcap of a link that is not capturing. */
  | { readonly _tag: "LinkNotCapturing" }
  | { readonly _tag: "CaptureAlreadyActive"; readonly portNumber: number }
  | { readonly _tag: "FileNotFound" }
  | { readonly _tag: "CaptureFileUnwritable"; readonly filePath: string; readonly reason: string }
  /** A project file path that leaves the project's directory (GNS3 answers 403). */
  | { readonly _tag: "PathOutsideProject"; readonly path: string }
  | { readonly _tag: "ProjectFileUnwritable"; readonly path: string; readonly reason: string }
  /** A project that already holds as many nodes or links as netemu allows (CONFIGURATION_LIMITS). */
  | { readonly _tag: "ProjectFull"; readonly what: "nodes" | "links" | "drawings"; readonly limit: number }
  /** An uploaded file's name (one path component), or its whole path, longer than the file system allows (ADR 0060). */
  | { readonly _tag: "ProjectFileNameTooLong"; readonly what: "name" | "path"; readonly name: string; readonly limit: number }
  /** An upload over its cap, or one that would take its compute project's files over theirs (ADR 0060). */
  | { readonly _tag: "PayloadTooLarge"; readonly what: "upload" | "project"; readonly limit: number }
  /** A template id that is not one of the built-in templates (ADR 0062); `use` says whether it was read or used for a node. */
  | { readonly _tag: "TemplateNotFound"; readonly templateId: string; readonly use: "read" | "node" }
  /** An impairment's project, node or port, by the name (or id) given, is not on this compute (ADR 0067). */
  | { readonly _tag: "ImpairmentTargetNotFound"; readonly what: "project" | "node" | "port"; readonly name: string; readonly within?: string }
  /** More than one project (or node of the project) has the name given: the id tells them apart. */
  | { readonly _tag: "ImpairmentTargetAmbiguous"; readonly what: "project" | "node"; readonly name: string; readonly count: number }
  /** An impairment set with neither an `in` nor an `out` direction. */
  | { readonly _tag: "ImpairmentDirectionMissing" }
  /** An impairment change the store could not make durable (its file could not be written, or would be too large to read back): nothing changed (ADR 0071). */
  | { readonly _tag: "DataPlaneWorkerDown"; readonly worker: number; readonly state: "restarting" | "given_up" }
  | { readonly _tag: "ImpairmentsUnwritable"; readonly path: string; readonly code: string; readonly detail: string }
  /**
   * netemu began to shut down while a project-wide action ran (start all, stop all): it took no further
   * node. `acted` nodes were acted on of `total`; the shutdown stops every started one (ADR 0090).
   */
  | { readonly _tag: "ShuttingDown"; readonly action: string; readonly acted: number; readonly total: number }
  /** A host node's program cannot be used: missing, not runnable, too old (`reason` says which, naming the program). */
  | { readonly _tag: "HostProgramUnusable"; readonly nodeName: string; readonly program: string; readonly reason: string }
  /** A host node's process could not be started, or died as it started: the OS's reason and what it wrote. */
  | { readonly _tag: "HostStartFailed"; readonly nodeName: string; readonly program: string; readonly reason: string }
  /** A Linux host's namespace or TAPs could not be made, wired or used (ADR 0087): nothing was left half made. */
  | { readonly _tag: "LinuxHostFailed"; readonly nodeName: string; readonly problem: HostProblem }
  /** A command asked to run inside a node that has no place for one (only Linux hosts run programs). */
  | { readonly _tag: "ExecNotSupported"; readonly nodeName: string; readonly nodeType: ComputeNodeType }
  /** What needs a running node (a command run inside a Linux host) asked of a stopped one. */
  | { readonly _tag: "NodeNotStarted"; readonly nodeName: string; readonly nodeType: ComputeNodeType }
  /** A change only a stopped node takes (a Linux host's interfaces or gateway) asked of a running one. */
  /** A node whose console is not a telnet one (none, vnc, ...) has nothing a web console can relay (ADR 0095). */
  | { readonly _tag: "ConsoleNotTelnet"; readonly nodeName: string; readonly consoleType: string }
  /** A console reset that could not drop the console's clients (the kernel refused, ADR 0099): which node, and why. */
  | { readonly _tag: "ConsoleClientsNotDropped"; readonly nodeName: string; readonly reason: string }
  /** A console reset asked through the controller of a kind whose compute has no console route (GNS3 relays its compute's 404). */
  | { readonly _tag: "ConsoleResetNotServed"; readonly projectId: string; readonly nodeType: ComputeNodeType; readonly nodeId: string }
  | { readonly _tag: "NodeNotStopped"; readonly nodeName: string; readonly change: string }
  /** No console port of the range could be bound, or the one asked for is taken. */
  | { readonly _tag: "ConsolePortUnavailable"; readonly port?: number; readonly start: number; readonly end: number }
  /** A cloud UDP tunnel port whose lport another NIO or cloud port of this compute holds (ADR 0082). */
  | { readonly _tag: "CloudLportInUse"; readonly nodeName: string; readonly portName: string; readonly lport: number }
  /** A cloud port's inside end (its tunnel, TAP or interface) could not be opened when it was linked: which node and port, and why. */
  | { readonly _tag: "CloudPortFailed"; readonly nodeName: string; readonly portName: string; readonly cause: ErrorOf<"UdpConnectionFailed" | "NioDeviceFailed"> }
  /** A trace name that is not a safe file name (ADR 0103). */
  | { readonly _tag: "InvalidTraceName"; readonly name: string }
  /** An uploaded trace that does not read: which line, and what is wrong (ADR 0103). */
  | { readonly _tag: "InvalidTrace"; readonly name: string; readonly problem: TraceProblem }
  | { readonly _tag: "TraceNotFound"; readonly name: string }
  /** A trace a filter names cannot be deleted or replaced: the users say where (`node Ethernetswitch-1 port 0`). */
  | { readonly _tag: "TraceInUse"; readonly name: string; readonly users: readonly string[] }
  | NodeRuleViolation
  | VersionMismatch
  | InvalidFilterSettings
  | InvalidConfiguration
  | NioTypeNotSupported;

export type ErrorTag = NetemuError["_tag"];

/** A port of a controller node as a user knows it: adapter/port numbers and its name (`Ethernet3`). */
export interface NamedPort {
  readonly adapterNumber: number;
  readonly portNumber: number;
  readonly name: string;
}

/** One end of a link as a user knows it: the node's name and the port. */
export interface NamedLinkEnd extends NamedPort {
  readonly nodeName: string;
}


/** One or more variants of the union, by tag. */
export type ErrorOf<T extends ErrorTag> = Extract<NetemuError, { readonly _tag: T }>;

/**
 * A use case's refusals as a value: the tags it can answer instead of its result. Its error union is
 * derived from the list (`Refusal<typeof LIST>`), so the list cannot miss a tag, and the HTTP adapter
 * reads from it what a route may answer (ADR 0076).
 */
export type Refusal<L extends readonly ErrorTag[]> = ErrorOf<L[number]>;

/** What the compute's lookups can answer, in GNS3's order of checks. */
export const COMPUTE_PROJECT_LOOKUP_REFUSALS = ["InvalidUuid", "ProjectNotFound"] as const;
export const COMPUTE_NODE_LOOKUP_REFUSALS = [...COMPUTE_PROJECT_LOOKUP_REFUSALS, "NodeNotFound", "NodeNotInProject"] as const;
export const COMPUTE_PORT_LOOKUP_REFUSALS = [...COMPUTE_NODE_LOOKUP_REFUSALS, "AdapterNotFound"] as const;
export type ComputeProjectLookupError = Refusal<typeof COMPUTE_PROJECT_LOOKUP_REFUSALS>;
export type ComputeNodeLookupError = Refusal<typeof COMPUTE_NODE_LOOKUP_REFUSALS>;
export type ComputePortLookupError = Refusal<typeof COMPUTE_PORT_LOOKUP_REFUSALS>;

/** What the controller's lookups can answer: an opened project, a node or a link in it. */
export const CONTROLLER_PROJECT_LOOKUP_REFUSALS = ["ProjectNotFound", "ProjectNotOpened"] as const;
export const CONTROLLER_NODE_LOOKUP_REFUSALS = [...CONTROLLER_PROJECT_LOOKUP_REFUSALS, "NodeNotFound"] as const;
export const CONTROLLER_LINK_LOOKUP_REFUSALS = [...CONTROLLER_PROJECT_LOOKUP_REFUSALS, "LinkNotFound"] as const;
export type ControllerProjectLookupError = Refusal<typeof CONTROLLER_PROJECT_LOOKUP_REFUSALS>;
export type ControllerNodeLookupError = Refusal<typeof CONTROLLER_NODE_LOOKUP_REFUSALS>;
export type ControllerLinkLookupError = Refusal<typeof CONTROLLER_LINK_LOOKUP_REFUSALS>;

/**
 * Why the data plane could not make a live node match its record: nothing changed. InvalidConfiguration
 * is a record that does not parse where the data plane receives it (a worker's door, ADR 0053).
 */
export const SYNC_REFUSALS = ["UdpConnectionFailed", "NioDeviceFailed", "InvalidFilterSettings", "PortNotFound", "InvalidConfiguration"] as const;
export type SyncError = Refusal<typeof SYNC_REFUSALS>;
