import type { UseCases } from "../../../application/use-cases/index.js";
import type { ApiRouter } from "../api-router.js";
import { presentCompute } from "./presenters.js";

/** The controller's computes: netemu itself, as "local". */
export function registerControllerComputeRoutes(api: ApiRouter, uc: UseCases): void {
  api.add("controller.compute.list", "GET", "/v2/computes", (x) => x.json(200, uc.listComputes.execute().map(presentCompute)));

  api.add("controller.compute.get", "GET", "/v2/computes/{compute_id}", (x) => {
    x.respond(uc.getCompute.execute({ computeId: x.param("compute_id") }), 200, presentCompute);
  });
}
