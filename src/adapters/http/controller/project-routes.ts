import type { UseCases } from "../../../application/use-cases/index.js";
import { type ApiRouter, withBody } from "../api-router.js";
import { ProjectCreateBody } from "./codecs.js";
import { presentProject, presentProjectStats } from "./presenters.js";

const PROJECT = "/v2/projects/{project_id}";

export function registerControllerProjectRoutes(api: ApiRouter, uc: UseCases): void {
  api.add("controller.project.create", "POST", "/v2/projects", withBody(ProjectCreateBody, async (x, b) => {
    const created = await uc.createProject.execute({
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
    });
    x.respond(created, 201, presentProject);
  }));

  api.add("controller.project.list", "GET", "/v2/projects", async (x) => x.jsonList(200, await uc.listProjects.execute(), presentProject));

  api.add("controller.project.get", "GET", PROJECT, async (x) => {
    x.respond(await uc.getProject.execute({ projectId: x.param("project_id") }), 200, presentProject);
  });

  api.add("controller.project.delete", "DELETE", PROJECT, async (x) => {
    x.respond(await uc.deleteProject.execute({ projectId: x.param("project_id") }), 204, () => undefined);
  });

  api.add("controller.project.open", "POST", `${PROJECT}/open`, async (x) => {
    x.respond(await uc.openProject.execute({ projectId: x.param("project_id") }), 201, presentProject);
  });

  // 204 without a body, as GNS3 2.2.59 answers: gns3fy sets `status` to "closed" on a 204 only.
  api.add("controller.project.close", "POST", `${PROJECT}/close`, async (x) => {
    x.respond(await uc.closeProject.execute({ projectId: x.param("project_id") }), 204, () => undefined);
  });

  api.add("controller.project.stats", "GET", `${PROJECT}/stats`, async (x) => {
    x.respond(await uc.getProjectStats.execute({ projectId: x.param("project_id") }), 200, presentProjectStats);
  });
}
