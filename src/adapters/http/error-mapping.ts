import type { ErrorOf, ErrorTag, NamedLinkEnd, NamedPort, NetemuError } from "../../application/errors.js";
import { COMPUTE_NODE_TYPES, type HeldNio, nodeKindName } from "../../domain/switching/compute-node.js";
import { filterProblemMessage, traceProblemMessage } from "../shared/filter-messages.js";
import { configurationMessage } from "../shared/configuration-messages.js";
import { osReason } from "./os-reasons.js";
import type { HostProblem } from "../../application/ports/namespace-hosts.js";

export interface HttpError {
  readonly status: number;
  readonly message: string;
  /** GNS3's compute adds the exception class for node errors, e.g. "DynamipsError". */
  readonly exception?: string;
}

/** How one refusal is answered: its status for every value of the tag, GNS3's message from the value. */
interface Answered<T extends ErrorTag> {
  readonly status: number;
  /** GNS3's compute adds the exception class for node errors, e.g. "DynamipsError". */
  readonly exception?: string;
  readonly message: (error: ErrorOf<T>) => string;
}

/**
 * The one place where an expected failure becomes an HTTP status and GNS3's message: one entry per
 * tag, its status fixed by the tag alone, so that what a route may answer follows from the tags its
 * use case can refuse with (`refusalStatus`, read by the OpenAPI document, ADR 0076).
 */
const ANSWERS: { readonly [T in ErrorTag]: Answered<T> } = {
  ProjectNotFound: { status: 404, message: (error) => `Project ID ${error.projectId} doesn't exist` },
  ProjectNotOpened: { status: 403, message: (_error) => "The project is not opened" },
  ProjectNameTaken: { status: 409, message: (error) => `Project "${error.name}" already exists` },
  ProjectHasUnsupportedNodes: { status: 409, message: (error) => `Project "${error.projectName}" cannot be opened here: it has nodes of types netemu does not run (${error.nodeTypes.join(", ")}); netemu runs ${COMPUTE_NODE_TYPES.join(", ")} nodes only` },
  NodeNotFound: { status: 404, message: (error) => `Node ID ${error.nodeId} doesn't exist` },
  LinkNotFound: { status: 404, message: (error) => `Link ID ${error.linkId} doesn't exist` },
  DrawingNotFound: { status: 404, message: (error) => `Drawing ID ${error.drawingId} doesn't exist` },
  DrawingLocked: { status: 409, message: (error) => `Drawing ID ${error.drawingId} cannot be deleted because it is locked` },
  InvalidUuid: { status: 400, message: (error) => `${error.what} ID ${error.id} is not a valid UUID` },
  NodeNotInProject: { status: 404, message: (error) => `Project ID ${error.projectId} doesn't belong to node ${error.nodeName}` },
  AdapterNotFound: { status: 404, message: (error) => `Adapter ${error.adapterNumber} doesn't exist on ${nodeKindName(error.nodeType)} ${error.nodeName}: its ports are all on adapter 0` },
  PortNotFound: { status: 404, message: (error) => `Port ${error.portNumber} doesn't exist on ${nodeKindName(error.nodeType)} ${error.nodeName}: it is not in ports_mapping` },
  // GNS3's sentence first (clients and forum posts know it), then what the user can pick instead (ADR 0085).
  LinkPortNotFound: { status: 404, message: (error) => `Port ${error.adapterNumber}/${error.portNumber} for ${error.nodeName} not found: ${portChoices(error.nodeName, error.ports)}` },
  NioTypeNotSupported: { status: 409, message: (error) => `NIO of type ${error.nioType} is not supported` },
  NodeTypeNotSupported: { status: 409, message: (error) => `Node type ${error.nodeType} is not supported: netemu runs ${COMPUTE_NODE_TYPES.join(", ")} nodes only` },
  NodeIdInUse: { status: 409, message: (error) => `Node ID ${error.nodeId} is already used by an ${nodeKindName(error.nodeType)}` },
  // GNS3's two wordings: its template handler's for GET, its project's for a node from a template.
  TemplateNotFound: { status: 404, message: (error) => error.use === "read" ? `Template ID ${error.templateId} doesn't exist` : `Template ${error.templateId} doesn't exist` },
  ComputeNotFound: { status: 404, message: (error) => `Compute ID ${error.computeId} doesn't exist` },
  UdpConnectionFailed: { status: 409, exception: "NodeError", message: (error) => `Could not create an UDP connection to ${error.rhost}:${error.rport}: ${error.reason}` },
  // 409 as GNS3's "TAP interface tap0 is down": the host, not the request, lacks what the NIO needs.
  NioDeviceFailed: { status: 409, message: (error) => nioDeviceMessage(error) },
  CloudLportInUse: { status: 409, exception: "NodeError", message: (error) => `Cloud ${error.nodeName}: port ${error.portName} cannot use local UDP port ${error.lport}, another port or link of this compute holds it` },
  CloudPortFailed: { status: 409, exception: "NodeError", message: (error) => `Cloud ${error.nodeName}: port ${error.portName} cannot be used: ${error.cause._tag === "NioDeviceFailed" ? nioDeviceMessage(error.cause) : `could not create an UDP connection to ${error.cause.rhost}:${error.cause.rport}: ${error.cause.reason}`}` },
  NoFreeUdpPort: { status: 409, message: (error) => `Could not find a free port between ${error.start} and ${error.end}` },
  // Failures of the host, not of the request: 500 with the cause, as GNS3 answers its own
  // (HTTPInternalServerError "Could not create project directory: ..."). ADR 0047.
  UdpPortCheckFailed: { status: 500, message: (error) => `Could not reserve a UDP port: binding ${error.address}:${error.port} failed with ${osReason(error.code, error.detail)}; no other port was tried, they would all fail alike` },
  SettingsFileFailed: { status: 500, message: (error) => `Could not ${error.operation} the settings file ${error.path}: ${osReason(error.code, error.detail)}` },
  DebugBundleUnwritable: { status: 500, message: (error) => `Could not write the debug bundle in ${error.path}: ${osReason(error.code, error.detail)}` },
  NotLocalServer: { status: 403, message: (error) => (error.action === "load" ? "You can only load a project file on a local server (netemu serve --local)" : `You can only ${error.action} a local server`) },
  // GNS3's 409 and wording for a .gns3 file it cannot read (its load_topology).
  TopologyNotLoaded: { status: 409, message: (error) => `Could not load topology ${error.path}: ${error.reason}` },
  NodeAlreadyExists: { status: 400, message: (error) => `Node ID ${error.nodeId} already exists in this project` },
  LinkEndCount: { status: 400, message: (error) => `A link joins exactly 2 nodes, got ${error.count}` },
  DataLinkTypeNotSupported: { status: 400, message: (error) => `An ${nodeKindName(error.nodeType)} port captures DLT_EN10MB frames only, not ${error.dataLinkType}` },
  CaptureFileNameInvalid: { status: 400, message: (error) => `capture_file_name must be a plain file name, got "${error.fileName}"` },
  NioTypeMismatch: { status: 400, message: (error) => `Port ${error.portNumber} has a NIO of type ${error.current}, not ${error.requested}` },
  InvalidFilterSettings: { status: 400, message: (error) => error.field === undefined ? filterProblemMessage(error.problem) : `${error.field}: ${filterProblemMessage(error.problem)}` },
  InvalidConfiguration: { status: 400, message: (error) => configurationMessage(error) },
  ProjectFull: { status: 409, message: (error) => `The project already has ${error.limit} ${error.what}, the most netemu allows in one project` },
  NoCaptureToStream: { status: 409, message: (_error) => "Nothing to stream because there is no packet capture active" },
  LinkNotCapturing: { status: 409, message: (_error) => "This link has no active packet capture" },
  CaptureAlreadyActive: { status: 409, exception: "NodeError", message: (error) => `Port ${error.portNumber} has already a filter applied` },
  FileNotFound: { status: 404, message: (_error) => "404: Not Found" },
  PortNotFree: { status: 409, exception: "NodeError", message: (error) => `Port ${error.portNumber} isn't free: ${nodeKindName(error.nodeType)} ${error.nodeName} already has ${heldNio(error.held)} on it; delete that NIO first (DELETE .../adapters/0/ports/${error.portNumber}/nio)` },
  PortNotAllocated: { status: 409, exception: "NodeError", message: (error) => `Port ${error.portNumber} is not allocated` },
  NodeAlreadyConnected: { status: 409, exception: "NodeError", message: (error) => error.nodeType === "cloud" ? "Cannot modify a cloud that is already connected." : `Can't modify a ${error.nodeType === "ethernet_switch" ? "switch" : "hub"} already connected.` },
  // Not the request's fault and not for ever: 503, as for a server that cannot serve it now (ADR 0073).
  DataPlaneWorkerDown: {
    status: 503,
    message: (error) =>
      error.state === "given_up"
        ? `The data plane worker ${error.worker} that runs this node was given up after dying repeatedly; POST /v2/netemu/data-plane/restart brings it back (GET /v2/netemu/ready says why)`
        : `The data plane worker ${error.worker} that runs this node is down and restarting; try again in a moment`,
  },
  // Not the request's fault: the server is going away, and says how far the action got (ADR 0090).
  ShuttingDown: {
    status: 503,
    message: (error) =>
      `netemu is shutting down: ${error.action} all stopped after ${error.acted} of ${error.total} nodes and acted on no other; the shutdown stops every node that started`,
  },
  CaptureFileUnwritable: { status: 409, message: (error) => `Cannot write the capture file ${error.filePath}: ${error.reason}` },
  // GNS3 answers its VPCSError with 409 and the exception's name; netemu's messages name the node and program.
  HostProgramUnusable: { status: 409, exception: "VPCSError", message: (error) => `Cannot start ${error.nodeName}: ${error.reason} (the program is set with --vpcs-path or [VPCS] vpcs_path)` },
  HostStartFailed: { status: 409, exception: "VPCSError", message: (error) => `Could not start ${error.nodeName} with ${error.program}: ${error.reason}` },
  LinuxHostFailed: { status: 409, message: (error) => linuxHostMessage(error.nodeName, error.problem) },
  ExecNotSupported: {
    status: 409,
    message: (error) =>
      `${error.nodeName} is a node of type ${error.nodeType}: commands run inside Linux hosts (netemu_host) only${error.nodeType === "vpcs" ? " (a VPCS takes commands on its console: netemu lab exec types them there)" : ""}`,
  },
  NodeNotStarted: { status: 409, message: (error) => `${nodeKindName(error.nodeType)} ${error.nodeName} is not started: start it first` },
  // GNS3's words (base_node.start_websocket_console), a NodeError: 409.
  ConsoleNotTelnet: { status: 409, message: (error) => `Node ${error.nodeName} console type is not telnet` },
  ConsoleClientsNotDropped: { status: 409, message: (error) => `Could not reset the console of node ${error.nodeName}: ${error.reason}` },
  // GNS3 2.2.59's controller relays its compute's answer: no such route for a switch, hub or cloud.
  ConsoleResetNotServed: { status: 404, message: (error) => `POST /projects/${error.projectId}/${error.nodeType}/nodes/${error.nodeId}/console/reset not found` },
  NodeNotStopped: { status: 409, message: (error) => `${error.nodeName} is running: stop it to change its ${error.change}` },
  ConsolePortUnavailable: { status: 409, message: (error) => error.port === undefined ? `Could not find a free console port between ${error.start} and ${error.end}` : `Console port ${error.port} is already used by another node` },
  PathOutsideProject: { status: 403, message: (error) => `Path ${error.path} is outside the project directory` },
  ProjectFileUnwritable: { status: 409, message: (error) => `Cannot write the project file ${error.path}: ${error.reason}` },
  ProjectFileNameTooLong: { status: 400, message: (error) => `${error.what === "name" ? "File name" : "Path"} "${error.name.length > 40 ? `${error.name.slice(0, 40)}...` : error.name}" is longer than ${error.limit} bytes, the most the file system allows${error.what === "path" ? " in this project's directory" : ""}` },
  InvalidTraceName: { status: 400, message: (error) => `Invalid trace name ${JSON.stringify(error.name)}: letters, digits, '.', '_' or '-', at most 128, not starting with '.'` },
  InvalidTrace: { status: 400, message: (error) => `Trace ${JSON.stringify(error.name)} does not read: ${traceProblemMessage(error.problem)}` },
  TraceNotFound: { status: 404, message: (error) => `Trace ${JSON.stringify(error.name)} not found` },
  TraceInUse: { status: 409, message: (error) => `Trace ${JSON.stringify(error.name)} is in use (${error.users.slice(0, 5).join("; ")}${error.users.length > 5 ? `; and ${error.users.length - 5} more` : ""}): take it out of those filters first` },
  PayloadTooLarge: { status: 413, message: (error) => error.what === "upload" ? `The file is larger than ${error.limit} bytes, the most one upload may be` : `The project's files would be larger than ${error.limit} bytes, the most one project may hold` },
  CannotConnectToItself: { status: 409, message: (_error) => "Cannot connect to itself" },
  PortAlreadyUsed: { status: 409, message: (error) => `Port is already used: ${namedEnd(error.port)} is an end of link ${error.linkId} to ${namedEnd(error.peer)}; delete that link first, or pick a free port` },
  ImpairmentTargetNotFound: { status: 404, message: (error) => `${error.what === "project" ? "Project" : error.what === "node" ? "Node" : "Port"} "${error.name}" not found${error.within === undefined ? " on this compute" : ` ${error.what === "port" ? "on" : "in"} ${error.within}`}` },
  ImpairmentTargetAmbiguous: { status: 409, message: (error) => `${error.count} ${error.what === "project" ? "projects" : "nodes"} are named "${error.name}": name the ${error.what} by its id` },
  ImpairmentsUnwritable: { status: 500, message: (error) => `Could not record the impairment change in ${error.path}: ${osReason(error.code, error.detail)}; nothing was changed` },
  ImpairmentDirectionMissing: { status: 400, message: (_error) => "An impairment needs at least one direction: in (frames from the port's peer) or out (frames to it)" },
  VersionMismatch: { status: 409, message: (error) => `Client version ${error.clientVersion} is not the same as server version ${error.serverVersion}` },
};

/** A link end as the user named it: `SW1 port 0/3 (Ethernet3)`. */
function namedEnd(end: NamedLinkEnd): string {
  return `${end.nodeName} port ${end.adapterNumber}/${end.portNumber} (${end.name})`;
}

/** The ports a node has, for a message: all of them when few, else the first and last few and the count. */
function portChoices(nodeName: string, ports: readonly NamedPort[]): string {
  if (ports.length === 0) return `${nodeName} has no ports`;
  const one = (p: NamedPort) => `${p.adapterNumber}/${p.portNumber} (${p.name})`;
  const shown = ports.length <= 8 ? ports.map(one).join(", ") : `${ports.slice(0, 4).map(one).join(", ")}, ... ${ports.slice(-2).map(one).join(", ")}`;
  return `${nodeName} has ${ports.length === 1 ? "1 port" : `${ports.length} ports`}: ${shown}`;
}

/** A port's NIO, for a message: `a nio_udp (local UDP port 20001, to 127.0.0.1:10001)`. */
function heldNio(nio: HeldNio): string {
  if (nio.type === "nio_udp") return `a nio_udp (local UDP port ${nio.lport}, to ${nio.rhost}:${nio.rport})`;
  return nio.type === "nio_null" ? "a nio_null" : `a ${nio.type} (${nio.device})`;
}

/** The status a refusal is answered with, by its tag alone. */
export function refusalStatus(tag: ErrorTag): number {
  return ANSWERS[tag].status;
}

export function toHttpError(error: NetemuError): HttpError {
  const answered = ANSWERS[error._tag] as Answered<ErrorTag>;
  const message = answered.message(error);
  return answered.exception === undefined ? { status: answered.status, message } : { status: answered.status, exception: answered.exception, message };
}

/** What a nio_tap or nio_ethernet refusal says: the device, what is wrong, and what to do (ADR 0083). */
function nioDeviceMessage(error: ErrorOf<"NioDeviceFailed">): string {
  const what = error.nioType === "nio_tap" ? `TAP interface ${error.device}` : `Ethernet interface ${error.device}`;
  const p = error.problem;
  switch (p.problem) {
    case "not_found":
      return `${what} does not exist`;
    case "missing_capability":
      return `${what} cannot be opened: netemu runs without ${p.capability} (run it as root, or grant the capability: setcap cap_net_admin,cap_net_raw+ep on its node binary)`;
    case "busy":
      return `${what} is already in use by another program or port`;
    case "not_a_tap":
      return `${what} exists and is not a TAP device netemu can attach to (a TAP made with IFF_TAP|IFF_NO_PI, or no interface of that name)`;
    case "unsupported":
      return `${what} cannot be opened: ${p.reason}`;
    case "os_error":
      return `${what} cannot be opened: ${osReason(p.code, p.detail)}`;
  }
}

/** Why a Linux host could not be made or used, naming the host and what is missing (ADR 0087). */
function linuxHostMessage(nodeName: string, problem: HostProblem): string {
  switch (problem.problem) {
    case "not_root":
      return `Cannot start Linux host ${nodeName}: netemu does not run as root, and a Linux host needs root (CAP_SYS_ADMIN for its network namespace, CAP_NET_ADMIN for its TAP devices); run netemu as root`;
    case "exists":
      return `Cannot start Linux host ${nodeName}: the ${problem.what} it needs exists already`;
    case "not_found":
      return `Linux host ${nodeName} has no network namespace (it is not running)`;
    case "invalid_name":
      return `Cannot start Linux host ${nodeName}: ${JSON.stringify(problem.name)} cannot name a network namespace or interface`;
    case "command_failed":
      return `Linux host ${nodeName}: ${problem.command} failed: ${problem.detail}`;
  }
}
