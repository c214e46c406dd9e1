import { GetServerVersion } from "./server/get-server-version.js";
import { UploadTrace } from "./compute/trace-upload.js";
import { GetTrace, ListTraces } from "./compute/trace-list.js";
import { DeleteTrace } from "./compute/trace-delete.js";
import { ListLabs } from "./compute/list-labs.js";
import { ReadLabCounters } from "./compute/read-lab-counters.js";
import { CheckClientVersion } from "./server/check-client-version.js";
import { GetIouLicense } from "./server/get-iou-license.js";
import { UpdateIouLicense } from "./server/update-iou-license.js";
import { WriteDebugBundle } from "./server/write-debug-bundle.js";
import { ShutdownServer } from "./server/shutdown-server.js";
import { TakeMetricsSnapshot } from "./server/take-metrics-snapshot.js";
import { CreateComputeProject } from "./compute/create-compute-project.js";
import { GetComputeProject } from "./compute/get-compute-project.js";
import { CloseComputeProject } from "./compute/close-compute-project.js";
import { DeleteComputeProject } from "./compute/delete-compute-project.js";
import { UpdateComputeProject } from "./compute/update-compute-project.js";
import { ListComputeProjects } from "./compute/list-compute-projects.js";
import { ListProjectFiles } from "./compute/list-project-files.js";
import { ReadProjectFile } from "./compute/read-project-file.js";
import { WriteProjectFile } from "./compute/write-project-file.js";
import { ReserveUdpPort } from "./compute/reserve-udp-port.js";
import { CreateSwitch } from "./compute/create-switch.js";
import { CreateHub } from "./compute/create-hub.js";
import { GetComputeNode } from "./compute/get-compute-node.js";
import { GetMacTable } from "./compute/get-mac-table.js";
import { UpdateSwitch } from "./compute/update-switch.js";
import { UpdateHub } from "./compute/update-hub.js";
import { CreateVpcs } from "./compute/create-vpcs.js";
import { UpdateVpcs } from "./compute/update-vpcs.js";
import { CreateCloud } from "./compute/create-cloud.js";
import { UpdateCloud } from "./compute/update-cloud.js";
import { DeleteComputeNode } from "./compute/delete-compute-node.js";
import { DuplicateComputeNode } from "./compute/duplicate-compute-node.js";
import { ChangeNodeStatus } from "./compute/change-node-status.js";
import { CreateLinuxHost } from "./compute/create-linux-host.js";
import { UpdateLinuxHost } from "./compute/update-linux-host.js";
import { ExecInLinuxHost } from "./compute/exec-in-linux-host.js";
import { ExecInNode } from "./controller/exec-in-node.js";
import { OpenNodeConsole } from "./compute/open-node-console.js";
import { OpenControllerNodeConsole } from "./controller/open-controller-node-console.js";
import { ResetNodeConsole } from "./compute/reset-node-console.js";
import { ResetControllerNodeConsole } from "./controller/reset-controller-node-console.js";
import { ResetProjectConsoles } from "./controller/reset-project-consoles.js";
import { GetCapabilities } from "./compute/get-capabilities.js";
import { GetComputeStatistics } from "./compute/get-compute-statistics.js";
import { GetHostLoad } from "./compute/get-host-load.js";
import { ListNetworkInterfaces } from "./compute/list-network-interfaces.js";
import { ListNetworkPorts } from "./compute/list-network-ports.js";
import { DescribeCompute } from "./compute/describe-compute.js";
import { WatchNotifications } from "./compute/watch-notifications.js";
import { AddNio } from "./compute/add-nio.js";
import { RemoveNio } from "./compute/remove-nio.js";
import { UpdateNio } from "./compute/update-nio.js";
import { StartCapture } from "./compute/start-capture.js";
import { StopCapture } from "./compute/stop-capture.js";
import { LocateCapture } from "./compute/locate-capture.js";
import { CreateProject } from "./controller/create-project.js";
import { GetProject } from "./controller/get-project.js";
import { ListProjects } from "./controller/list-projects.js";
import { DeleteProject } from "./controller/delete-project.js";
import { OpenProject } from "./controller/open-project.js";
import { OpenAutoOpenProjects } from "./controller/open-auto-open-projects.js";
import { LoadProject } from "./controller/load-project.js";
import { ListSkippedTopologies } from "./controller/list-skipped-topologies.js";
import { CloseProject } from "./controller/close-project.js";
import { CreateNode } from "./controller/create-node.js";
import { GetNode } from "./controller/get-node.js";
import { ListNodes } from "./controller/list-nodes.js";
import { UpdateNode } from "./controller/update-node.js";
import { DeleteNode } from "./controller/delete-node.js";
import { ControlNode } from "./controller/control-node.js";
import { ControlAllNodes } from "./controller/control-all-nodes.js";
import { CreateLink } from "./controller/create-link.js";
import { GetLink } from "./controller/get-link.js";
import { ListLinks } from "./controller/list-links.js";
import { UpdateLink } from "./controller/update-link.js";
import { DeleteLink } from "./controller/delete-link.js";
import { ListAvailableFilters } from "./controller/list-available-filters.js";
import { StartLinkCapture } from "./controller/start-link-capture.js";
import { StopLinkCapture } from "./controller/stop-link-capture.js";
import { LocateLinkCapture } from "./controller/locate-link-capture.js";
import { CheckReadiness } from "./server/check-readiness.js";
import { BringBackDataPlane } from "./server/bring-back-data-plane.js";
import { UpdateNioFilters } from "./compute/update-nio-filters.js";
import { ListTemplates } from "./controller/list-templates.js";
import { GetTemplate } from "./controller/get-template.js";
import { CreateNodeFromTemplate } from "./controller/create-node-from-template.js";
import { GetProjectStats } from "./controller/get-project-stats.js";
import { ListDrawings } from "./controller/list-drawings.js";
import { GetDrawing } from "./controller/get-drawing.js";
import { CreateDrawing } from "./controller/create-drawing.js";
import { UpdateDrawing } from "./controller/update-drawing.js";
import { DeleteDrawing } from "./controller/delete-drawing.js";
import { WatchController, WatchProject } from "./controller/watch-project.js";
import { ListNodeLinks } from "./controller/list-node-links.js";
import { ListComputes } from "./controller/list-computes.js";
import { GetCompute } from "./controller/get-compute.js";
import { SetImpairment } from "./compute/impairment-set.js";
import { ListImpairments } from "./compute/impairment-list.js";
import { ClearImpairments } from "./compute/impairment-clear.js";

/** Every use case class, by the name the library exposes it under. */
export const USE_CASES = {
  getServerVersion: GetServerVersion,
  checkClientVersion: CheckClientVersion,
  getIouLicense: GetIouLicense,
  updateIouLicense: UpdateIouLicense,
  writeDebugBundle: WriteDebugBundle,
  shutdownServer: ShutdownServer,
  takeMetricsSnapshot: TakeMetricsSnapshot,
  createComputeProject: CreateComputeProject,
  getComputeProject: GetComputeProject,
  closeComputeProject: CloseComputeProject,
  deleteComputeProject: DeleteComputeProject,
  updateComputeProject: UpdateComputeProject,
  listComputeProjects: ListComputeProjects,
  listProjectFiles: ListProjectFiles,
  readProjectFile: ReadProjectFile,
  writeProjectFile: WriteProjectFile,
  reserveUdpPort: ReserveUdpPort,
  createSwitch: CreateSwitch,
  createHub: CreateHub,
  getComputeNode: GetComputeNode,
  getMacTable: GetMacTable,
  updateSwitch: UpdateSwitch,
  updateHub: UpdateHub,
  createVpcs: CreateVpcs,
  updateVpcs: UpdateVpcs,
  createLinuxHost: CreateLinuxHost,
  updateLinuxHost: UpdateLinuxHost,
  execInLinuxHost: ExecInLinuxHost,
  execInNode: ExecInNode,
  openNodeConsole: OpenNodeConsole,
  openControllerNodeConsole: OpenControllerNodeConsole,
  resetNodeConsole: ResetNodeConsole,
  resetControllerNodeConsole: ResetControllerNodeConsole,
  resetProjectConsoles: ResetProjectConsoles,
  createCloud: CreateCloud,
  updateCloud: UpdateCloud,
  deleteComputeNode: DeleteComputeNode,
  duplicateComputeNode: DuplicateComputeNode,
  changeNodeStatus: ChangeNodeStatus,
  getCapabilities: GetCapabilities,
  getComputeStatistics: GetComputeStatistics,
  getHostLoad: GetHostLoad,
  listNetworkInterfaces: ListNetworkInterfaces,
  listNetworkPorts: ListNetworkPorts,
  describeCompute: DescribeCompute,
  watchNotifications: WatchNotifications,
  addNio: AddNio,
  removeNio: RemoveNio,
  updateNio: UpdateNio,
  startCapture: StartCapture,
  stopCapture: StopCapture,
  locateCapture: LocateCapture,
  createProject: CreateProject,
  getProject: GetProject,
  listProjects: ListProjects,
  deleteProject: DeleteProject,
  openProject: OpenProject,
  openAutoOpenProjects: OpenAutoOpenProjects,
  // GNS3's POST /v2/projects/load, and the .gns3 files left out at start (issue 27, ADR 0085).
  loadProject: LoadProject,
  listSkippedTopologies: ListSkippedTopologies,
  closeProject: CloseProject,
  createNode: CreateNode,
  getNode: GetNode,
  listNodes: ListNodes,
  updateNode: UpdateNode,
  deleteNode: DeleteNode,
  controlNode: ControlNode,
  controlAllNodes: ControlAllNodes,
  createLink: CreateLink,
  getLink: GetLink,
  listLinks: ListLinks,
  updateLink: UpdateLink,
  deleteLink: DeleteLink,
  listAvailableFilters: ListAvailableFilters,
  startLinkCapture: StartLinkCapture,
  stopLinkCapture: StopLinkCapture,
  locateLinkCapture: LocateLinkCapture,
  checkReadiness: CheckReadiness,
  // The way back for nodes a data-plane worker that kept dying left dark (ADR 0073).
  bringBackDataPlane: BringBackDataPlane,
  updateNioFilters: UpdateNioFilters,
  // What gns3fy and GNS3 scripts reach beyond projects, nodes and links (issue 18, ADR 0062).
  listTemplates: ListTemplates,
  getTemplate: GetTemplate,
  createNodeFromTemplate: CreateNodeFromTemplate,
  getProjectStats: GetProjectStats,
  listDrawings: ListDrawings,
  getDrawing: GetDrawing,
  createDrawing: CreateDrawing,
  updateDrawing: UpdateDrawing,
  deleteDrawing: DeleteDrawing,
  watchProject: WatchProject,
  watchController: WatchController,
  listNodeLinks: ListNodeLinks,
  listComputes: ListComputes,
  getCompute: GetCompute,
  // netemu's impairments on ports a GNS3 controller placed here (ADR 0067).
  setImpairment: SetImpairment,
  listImpairments: ListImpairments,
  clearImpairments: ClearImpairments,
  // What netemu's page reads: every lab, and a lab's counters in one reading (ADR 0094).
  listLabs: ListLabs,
  readLabCounters: ReadLabCounters,
  // Traces links replay (ADR 0103).
  uploadTrace: UploadTrace,
  listTraces: ListTraces,
  getTrace: GetTrace,
  deleteTrace: DeleteTrace,
} as const;

export type UseCases = { readonly [K in keyof typeof USE_CASES]: InstanceType<(typeof USE_CASES)[K]> };

export { CheckReadiness, BringBackDataPlane, UpdateNioFilters };
export { CreateLinuxHost, UpdateLinuxHost, ExecInLinuxHost, ExecInNode };
export { LoadProject, ListSkippedTopologies };
export { SetImpairment, ListImpairments, ClearImpairments };
export { ListLabs, ReadLabCounters };
export { UploadTrace, ListTraces, GetTrace, DeleteTrace };
export { ListTemplates, GetTemplate, CreateNodeFromTemplate, GetProjectStats, ListNodeLinks, ListComputes, GetCompute };
export {
  GetServerVersion, CheckClientVersion, GetIouLicense, UpdateIouLicense, WriteDebugBundle, ShutdownServer, TakeMetricsSnapshot,
  CreateComputeProject, GetComputeProject, CloseComputeProject, DeleteComputeProject, UpdateComputeProject, ListComputeProjects,
  ListProjectFiles, ReadProjectFile, WriteProjectFile, ReserveUdpPort, CreateSwitch, CreateHub, GetComputeNode, GetMacTable,
  UpdateSwitch, UpdateHub, CreateVpcs, UpdateVpcs, CreateCloud, UpdateCloud, DeleteComputeNode, DuplicateComputeNode, ChangeNodeStatus, AddNio, RemoveNio, UpdateNio,
  StartCapture, StopCapture, LocateCapture, GetCapabilities, GetComputeStatistics, GetHostLoad, ListNetworkInterfaces,
  ListNetworkPorts, DescribeCompute, WatchNotifications,
  CreateProject, GetProject, ListProjects, DeleteProject, OpenProject, CloseProject, CreateNode, GetNode,
  ListNodes, UpdateNode, DeleteNode, ControlNode, ControlAllNodes, CreateLink, GetLink, ListLinks, UpdateLink, DeleteLink, ListAvailableFilters,
  StartLinkCapture, StopLinkCapture, LocateLinkCapture,
};
