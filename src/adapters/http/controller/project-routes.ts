import * as E from "fp-ts/lib/Either.js";
import type { UseCases } from "../../../application/use-cases/index.js";
import type { SkippedTopologyFile } from "../../../application/ports/topology-files.js";
import { CREATE_PROJECT_REFUSALS } from "../../../application/use-cases/controller/create-project.js";
import { GET_PROJECT_REFUSALS } from "../../../application/use-cases/controller/get-project.js";
import { DELETE_PROJECT_REFUSALS } from "../../../application/use-cases/controller/delete-project.js";
import { OPEN_PROJECT_REFUSALS } from "../../../application/use-cases/controller/open-project.js";
import { CLOSE_PROJECT_REFUSALS } from "../../../application/use-cases/controller/close-project.js";
import { GET_PROJECT_STATS_REFUSALS } from "../../../application/use-cases/controller/get-project-stats.js";
import { LOAD_PROJECT_REFUSALS } from "../../../application/use-cases/controller/load-project.js";
import type { ApiRouter } from "../api-router.js";
import { empty, json, list, route } from "../route.js";
import { ProjectCreateBody, ProjectLoadBody } from "./codecs.js";
import { ProjectAnswer, ProjectStatsAnswer, SkippedTopologyAnswer } from "./answers.js";
import { presentProject, presentProjectStats } from "./presenters.js";

const PROJECT = "/v2/projects/{project_id}";

/** The controller's project routes, declared as values (ADR 0076). */
export const CONTROLLER_PROJECT_ROUTES = {
  create: route({
    name: "controller.project.create",
    method: "POST",
    path: "/v2/projects",
    body: ProjectCreateBody,
    refusals: CREATE_PROJECT_REFUSALS,
    run: (uc, { body: b }) =>
      uc.createProject.execute({
        name: b.name,
        projectId: b.project_id,
        path: b.path,
        options: {
          ...(b.auto_close !== undefined && { autoClose: b.auto_close }),
          ...(b.auto_open !== undefined && { autoOpen: b.auto_open }),
          ...(b.auto_start !== undefined && { autoStart: b.auto_start }),
          ...(b.scene_height !== undefined && { sceneHeight: b.scene_height }),
          ...(b.scene_width !== undefined && { sceneWidth: b.scene_width }),
          ...(b.zoom !== undefined && { zoom: b.zoom }),
          ...(b.show_layers !== undefined && { showLayers: b.show_layers }),
          ...(b.snap_to_grid !== undefined && { snapToGrid: b.snap_to_grid }),
          ...(b.show_grid !== undefined && { showGrid: b.show_grid }),
          ...(b.grid_size !== undefined && { gridSize: b.grid_size }),
          ...(b.drawing_grid_size !== undefined && { drawingGridSize: b.drawing_grid_size }),
          ...(b.show_interface_labels !== undefined && { showInterfaceLabels: b.show_interface_labels }),
          ...(b.supplier !== undefined && { supplier: b.supplier }),
          ...(b.variables !== undefined && { variables: b.variables }),
        },
      }),
    answer: json(201, ProjectAnswer, presentProject),
  }),
  list: route({
    name: "controller.project.list",
    method: "GET",
    path: "/v2/projects",
    refusals: [],
    run: async (uc) => E.right(await uc.listProjects.execute()),
    answer: list(200, ProjectAnswer, presentProject),
  }),
  get: route({
    name: "controller.project.get",
    method: "GET",
    path: PROJECT,
    refusals: GET_PROJECT_REFUSALS,
    run: (uc, { params }) => uc.getProject.execute({ projectId: params.project_id }),
    answer: json(200, ProjectAnswer, presentProject),
  }),
  delete: route({
    name: "controller.project.delete",
    method: "DELETE",
    path: PROJECT,
    refusals: DELETE_PROJECT_REFUSALS,
    run: (uc, { params }) => uc.deleteProject.execute({ projectId: params.project_id }),
    answer: empty(204),
  }),
  open: route({
    name: "controller.project.open",
    method: "POST",
    path: `${PROJECT}/open` as const,
    refusals: OPEN_PROJECT_REFUSALS,
    run: (uc, { params }) => uc.openProject.execute({ projectId: params.project_id }),
    answer: json(201, ProjectAnswer, presentProject),
  }),
  // 204 without a body, as GNS3 2.2.59 answers: gns3fy sets `status` to "closed" on a 204 only.
  close: route({
    name: "controller.project.close",
    method: "POST",
    path: `${PROJECT}/close` as const,
    refusals: CLOSE_PROJECT_REFUSALS,
    run: (uc, { params }) => uc.closeProject.execute({ projectId: params.project_id }),
    answer: empty(204),
  }),
  // GNS3 2.2: a local server opens the .gns3 file at a path of its own file system (ADR 0085).
  load: route({
    name: "controller.project.load",
    method: "POST",
    path: "/v2/projects/load",
    body: ProjectLoadBody,
    refusals: LOAD_PROJECT_REFUSALS,
    run: (uc, { body }) => uc.loadProject.execute({ path: body.path }),
    answer: json(201, ProjectAnswer, presentProject),
  }),
  // netemu's own: the .gns3 files read at start and left out, with why (ADR 0085).
  skipped: route({
    name: "netemu.projects.skipped",
    method: "GET",
    path: "/v2/netemu/projects/skipped",
    refusals: [],
    run: async (uc) => E.right(await uc.listSkippedTopologies.execute()),
    answer: list(200, SkippedTopologyAnswer, (s: SkippedTopologyFile) => ({ path: s.path, reason: s.reason })),
  }),
  stats: route({
    name: "controller.project.stats",
    method: "GET",
    path: `${PROJECT}/stats` as const,
    refusals: GET_PROJECT_STATS_REFUSALS,
    run: (uc, { params }) => uc.getProjectStats.execute({ projectId: params.project_id }),
    answer: json(200, ProjectStatsAnswer, presentProjectStats),
  }),
};

export function registerControllerProjectRoutes(api: ApiRouter, uc: UseCases): void {
  for (const value of Object.values(CONTROLLER_PROJECT_ROUTES)) api.addRoute(value, uc);
}
