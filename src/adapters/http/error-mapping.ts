import type { NetemuError } from "../../application/errors.js";
import { nodeKindName } from "../../domain/switching/compute-node.js";
import { filterProblemMessage } from "../shared/filter-messages.js";
import { configurationMessage } from "../shared/configuration-messages.js";
import { osReason } from "./os-reasons.js";

export interface HttpError {
  readonly status: number;
  readonly message: string;
  /** GNS3's compute adds the exception class for node errors, e.g. "DynamipsError". */
  readonly exception?: string;
}

/** The one place where an expected failure becomes an HTTP status and GNS3's message. */
export function toHttpError(error: NetemuError): HttpError {
  switch (error._tag) {
    case "ProjectNotFound":
      return { status: 404, message: `Project ID ${error.projectId} doesn't exist` };
    case "ProjectNotOpened":
      return { status: 403, message: "The project is not opened" };
    case "ProjectNameTaken":
      return { status: 409, message: `Project "${error.name}" already exists` };
    case "ProjectHasUnsupportedNodes":
      return {
        status: 409,
        message: `Project "${error.projectName}" cannot be opened here: it has nodes of types netemu does not run (${error.nodeTypes.join(", ")}); netemu runs ethernet_switch and ethernet_hub nodes only`,
      };
    case "NodeNotFound":
      return { status: 404, message: `Node ID ${error.nodeId} doesn't exist` };
    case "LinkNotFound":
      return { status: 404, message: `Link ID ${error.linkId} doesn't exist` };
    case "InvalidUuid":
      return { status: 400, message: `${error.what} ID ${error.id} is not a valid UUID` };
    case "NodeNotInProject":
      return { status: 404, message: `Project ID ${error.projectId} doesn't belong to node ${error.nodeName}` };
    case "AdapterNotFound":
      return {
        status: 404,
        message: `Adapter ${error.adapterNumber} doesn't exist on ${nodeKindName(error.nodeType)} ${error.nodeName}: its ports are all on adapter 0`,
      };
    case "PortNotFound":
      return { status: 404, message: `Port ${error.portNumber} doesn't exist on ${nodeKindName(error.nodeType)} ${error.nodeName}: it is not in ports_mapping` };
    case "LinkPortNotFound":
      return { status: 404, message: `Port ${error.adapterNumber}/${error.portNumber} for ${error.nodeName} not found` };
    case "NioTypeNotSupported":
      return { status: 409, message: `NIO of type ${error.nioType} is not supported` };
    case "NodeTypeNotSupported":
      return { status: 409, message: `Node type ${error.nodeType} is not supported: netemu runs ethernet_switch and ethernet_hub nodes only` };
    case "NodeIdInUse":
      return { status: 409, message: `Node ID ${error.nodeId} is already used by an ${nodeKindName(error.nodeType)}` };
    // GNS3's two wordings: its template handler's for GET, its project's for a node from a template.
    case "TemplateNotFound":
      return { status: 404, message: error.use === "read" ? `Template ID ${error.templateId} doesn't exist` : `Template ${error.templateId} doesn't exist` };
    case "ComputeNotFound":
      return { status: 404, message: `Compute ID ${error.computeId} doesn't exist` };
    case "UdpConnectionFailed":
      return {
        status: 409,
        exception: "DynamipsError",
        message: `Could not create an UDP connection to ${error.rhost}:${error.rport}: ${error.reason}`,
      };
    case "NoFreeUdpPort":
      return { status: 409, message: `Could not find a free port between ${error.start} and ${error.end}` };
    // Failures of the host, not of the request: 500 with the cause, as GNS3 answers its own
    // (HTTPInternalServerError "Could not create project directory: ..."). ADR 0047.
    case "UdpPortCheckFailed":
      return {
        status: 500,
        message: `Could not reserve a UDP port: binding ${error.address}:${error.port} failed with ${osReason(error.code, error.detail)}; no other port was tried, they would all fail alike`,
      };
    case "SettingsFileFailed":
      return { status: 500, message: `Could not ${error.operation} the settings file ${error.path}: ${osReason(error.code, error.detail)}` };
    case "DebugBundleUnwritable":
      return { status: 500, message: `Could not write the debug bundle in ${error.path}: ${osReason(error.code, error.detail)}` };
    case "NotLocalServer":
      return { status: 403, message: `You can only ${error.action} a local server` };
    case "NodeAlreadyExists":
      return { status: 400, message: `Node ID ${error.nodeId} already exists in this project` };
    case "LinkEndCount":
      return { status: 400, message: `A link joins exactly 2 nodes, got ${error.count}` };
    case "DataLinkTypeNotSupported":
      return { status: 400, message: `An ${nodeKindName(error.nodeType)} port captures DLT_EN10MB frames only, not ${error.dataLinkType}` };
    case "CaptureFileNameInvalid":
      return { status: 400, message: `capture_file_name must be a plain file name, got "${error.fileName}"` };
    case "NioTypeMismatch":
      return { status: 400, message: `Port ${error.portNumber} has a NIO of type ${error.current}, not ${error.requested}` };
    case "InvalidFilterSettings":
      return { status: 400, message: error.field === undefined ? filterProblemMessage(error.problem) : `${error.field}: ${filterProblemMessage(error.problem)}` };
    case "InvalidConfiguration":
      return { status: 400, message: configurationMessage(error) };
    case "ProjectFull":
      return { status: 409, message: `The project already has ${error.limit} ${error.what}, the most netemu allows in one project` };
    case "NoCaptureToStream":
      return { status: 409, message: "Nothing to stream because there is no packet capture active" };
    case "LinkNotCapturing":
      return { status: 409, message: "This link has no active packet capture" };
    case "CaptureAlreadyActive":
      return { status: 409, exception: "DynamipsError", message: `Port ${error.portNumber} has already a filter applied` };
    case "FileNotFound":
      return { status: 404, message: "404: Not Found" };
    case "PortNotFree":
      return { status: 409, exception: "DynamipsError", message: `Port ${error.portNumber} isn't free` };
    case "PortNotAllocated":
      return { status: 409, exception: "DynamipsError", message: `Port ${error.portNumber} is not allocated` };
    case "NodeAlreadyConnected":
      return { status: 409, exception: "NodeError", message: `Can't modify a ${error.nodeType === "ethernet_switch" ? "switch" : "hub"} already connected.` };
    // Not the request's fault and not for ever: 503, as for a server that cannot serve it now (ADR 0073).
    case "DataPlaneWorkerDown":
      return {
        status: 503,
        message:
          error.state === "given_up"
            ? `The data plane worker ${error.worker} that runs this node was given up after dying repeatedly; POST /v2/netemu/data-plane/restart brings it back (GET /v2/netemu/ready says why)`
            : `The data plane worker ${error.worker} that runs this node is down and restarting; try again in a moment`,
      };
    case "CaptureFileUnwritable":
      return { status: 409, message: `Cannot write the capture file ${error.filePath}: ${error.reason}` };
    case "PathOutsideProject":
      return { status: 403, message: `Path ${error.path} is outside the project directory` };
    case "ProjectFileUnwritable":
      return { status: 409, message: `Cannot write the project file ${error.path}: ${error.reason}` };
    case "ProjectFileNameTooLong":
      return {
        status: 400,
        message: `${error.what === "name" ? "File name" : "Path"} "${error.name.length > 40 ? `${error.name.slice(0, 40)}...` : error.name}" is longer than ${error.limit} bytes, the most the file system allows${error.what === "path" ? " in this project's directory" : ""}`,
      };
    case "PayloadTooLarge":
      return {
        status: 413,
        message: error.what === "upload" ? `The file is larger than ${error.limit} bytes, the most one upload may be` : `The project's files would be larger than ${error.limit} bytes, the most one project may hold`,
      };
    case "CannotConnectToItself":
      return { status: 409, message: "Cannot connect to itself" };
    case "PortAlreadyUsed":
      return { status: 409, message: "Port is already used" };
    case "ImpairmentTargetNotFound":
      return { status: 404, message: `${error.what === "project" ? "Project" : error.what === "node" ? "Node" : "Port"} "${error.name}" not found${error.within === undefined ? " on this compute" : ` ${error.what === "port" ? "on" : "in"} ${error.within}`}` };
    case "ImpairmentTargetAmbiguous":
      return { status: 409, message: `${error.count} ${error.what === "project" ? "projects" : "nodes"} are named "${error.name}": name the ${error.what} by its id` };
    case "ImpairmentsUnwritable":
      return { status: 500, message: `Could not record the impairment change in ${error.path}: ${osReason(error.code, error.detail)}; nothing was changed` };
    case "ImpairmentDirectionMissing":
      return { status: 400, message: "An impairment needs at least one direction: in (frames from the port's peer) or out (frames to it)" };
    case "VersionMismatch":
      return { status: 409, message: `Client version ${error.clientVersion} is not the same as server version ${error.serverVersion}` };
  }
}
