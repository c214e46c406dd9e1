import type { UseCases } from "../../../application/use-cases/index.js";
import { GET_COMPUTE_REFUSALS } from "../../../application/use-cases/controller/get-compute.js";
import * as E from "fp-ts/lib/Either.js";
import type { ApiRouter } from "../api-router.js";
import { json, route } from "../route.js";
import { jsonArray } from "../schema.js";
import { ComputeAnswer } from "./answers.js";
import { presentCompute } from "./presenters.js";
import type { ComputeView } from "../../../application/use-cases/controller/list-computes.js";

/** The controller's computes: netemu itself, as "local". */
export const CONTROLLER_COMPUTE_ROUTES = {
  list: route({
    name: "controller.compute.list",
    method: "GET",
    path: "/v2/computes",
    refusals: [],
    run: async (uc) => E.right(uc.listComputes.execute()),
    answer: json(200, jsonArray(ComputeAnswer), (computes: readonly ComputeView[]) => computes.map(presentCompute)),
  }),
  get: route({
    name: "controller.compute.get",
    method: "GET",
    path: "/v2/computes/{compute_id}",
    refusals: GET_COMPUTE_REFUSALS,
    run: async (uc, { params }) => uc.getCompute.execute({ computeId: params.compute_id }),
    answer: json(200, ComputeAnswer, presentCompute),
  }),
};

export function registerControllerComputeRoutes(api: ApiRouter, uc: UseCases): void {
  for (const value of Object.values(CONTROLLER_COMPUTE_ROUTES)) api.addRoute(value, uc);
}
