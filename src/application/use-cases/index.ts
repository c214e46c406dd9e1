import { GetServerVersion } from "./server/get-server-version.js";
import { CheckClientVersion } from "./server/check-client-version.js";
import { GetIouLicense } from "./server/get-iou-license.js";
import { UpdateIouLicense } from "./server/update-iou-license.js";
import { WriteDebugBundle } from "./server/write-debug-bundle.js";
import { ShutdownServer } from "./server/shutdown-server.js";
import { CreateComputeProject } from "./compute/create-compute-project.js";
import { GetComputeProject } from "./compute/get-compute-project.js";
import { CloseComputeProject } from "./compute/close-compute-project.js";
import { ReserveUdpPort } from "./compute/reserve-udp-port.js";
import { CreateSwitch } from "./compute/create-switch.js";
import { GetSwitch } from "./compute/get-switch.js";
import { UpdateSwitch } from "./compute/update-switch.js";
import { DeleteSwitch } from "./compute/delete-switch.js";
import { DuplicateSwitch } from "./compute/duplicate-switch.js";
import { ChangeSwitchStatus } from "./compute/change-switch-status.js";
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
import { CloseProject } from "./controller/close-project.js";
import { CreateNode } from "./controller/create-node.js";
import { GetNode } from "./controller/get-node.js";
import { ListNodes } from "./controller/list-nodes.js";
import { UpdateNode } from "./controller/update-node.js";
import { DeleteNode } from "./controller/delete-node.js";
import { CreateLink } from "./controller/create-link.js";
import { GetLink } from "./controller/get-link.js";
import { ListLinks } from "./controller/list-links.js";
import { UpdateLink } from "./controller/update-link.js";
import { DeleteLink } from "./controller/delete-link.js";
import { ListAvailableFilters } from "./controller/list-available-filters.js";
import { StartLinkCapture } from "./controller/start-link-capture.js";
import { StopLinkCapture } from "./controller/stop-link-capture.js";
import { LocateLinkCapture } from "./controller/locate-link-capture.js";

/** Every use case class, by the name the library exposes it under. */
export const USE_CASES = {
  getServerVersion: GetServerVersion,
  checkClientVersion: CheckClientVersion,
  getIouLicense: GetIouLicense,
  updateIouLicense: UpdateIouLicense,
  writeDebugBundle: WriteDebugBundle,
  shutdownServer: ShutdownServer,
  createComputeProject: CreateComputeProject,
  getComputeProject: GetComputeProject,
  closeComputeProject: CloseComputeProject,
  reserveUdpPort: ReserveUdpPort,
  createSwitch: CreateSwitch,
  getSwitch: GetSwitch,
  updateSwitch: UpdateSwitch,
  deleteSwitch: DeleteSwitch,
  duplicateSwitch: DuplicateSwitch,
  changeSwitchStatus: ChangeSwitchStatus,
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
  closeProject: CloseProject,
  createNode: CreateNode,
  getNode: GetNode,
  listNodes: ListNodes,
  updateNode: UpdateNode,
  deleteNode: DeleteNode,
  createLink: CreateLink,
  getLink: GetLink,
  listLinks: ListLinks,
  updateLink: UpdateLink,
  deleteLink: DeleteLink,
  listAvailableFilters: ListAvailableFilters,
  startLinkCapture: StartLinkCapture,
  stopLinkCapture: StopLinkCapture,
  locateLinkCapture: LocateLinkCapture,
} as const;

export type UseCases = { readonly [K in keyof typeof USE_CASES]: InstanceType<(typeof USE_CASES)[K]> };

export {
  GetServerVersion, CheckClientVersion, GetIouLicense, UpdateIouLicense, WriteDebugBundle, ShutdownServer,
  CreateComputeProject, GetComputeProject, CloseComputeProject, ReserveUdpPort, CreateSwitch, GetSwitch,
  UpdateSwitch, DeleteSwitch, DuplicateSwitch, ChangeSwitchStatus, AddNio, RemoveNio, UpdateNio, StartCapture, StopCapture, LocateCapture,
  CreateProject, GetProject, ListProjects, DeleteProject, OpenProject, CloseProject, CreateNode, GetNode,
  ListNodes, UpdateNode, DeleteNode, CreateLink, GetLink, ListLinks, UpdateLink, DeleteLink, ListAvailableFilters,
  StartLinkCapture, StopLinkCapture, LocateLinkCapture,
};
