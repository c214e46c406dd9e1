import * as E from "fp-ts/lib/Either.js";
import type { UseCases } from "../../../application/use-cases/index.js";
import { GET_TEMPLATE_REFUSALS } from "../../../application/use-cases/controller/get-template.js";
import { CREATE_NODE_FROM_TEMPLATE_REFUSALS } from "../../../application/use-cases/controller/create-node-from-template.js";
import type { ControllerNodeView } from "../../../application/use-cases/controller/node-views.js";
import type { ApiRouter } from "../api-router.js";
import { type AnyRoute, json, list, route } from "../route.js";
import { TemplateUsageBody } from "./codecs.js";
import { NodeAnswer, TemplateAnswer } from "./answers.js";
import { presentNode, presentTemplate } from "./presenters.js";

/**
 * GNS3's templates (the built-in switch and hub, ADR 0062) and the node made from one, declared as
 * values (ADR 0076); `consoleHost` as for the node routes.
 */
export function controllerTemplateRoutes(consoleHost: string): readonly AnyRoute[] {
  const routes = [
    route({
      name: "controller.template.list",
      method: "GET",
      path: "/v2/templates",
      refusals: [],
      run: async (uc) => E.right(uc.listTemplates.execute()),
      answer: list(200, TemplateAnswer, presentTemplate),
    }),
    route({
      name: "controller.template.get",
      method: "GET",
      path: "/v2/templates/{template_id}",
      refusals: GET_TEMPLATE_REFUSALS,
      run: async (uc, { params }) => uc.getTemplate.execute({ templateId: params.template_id }),
      answer: json(200, TemplateAnswer, presentTemplate),
    }),
    route({
      name: "controller.template.create_node",
      method: "POST",
      path: "/v2/projects/{project_id}/templates/{template_id}",
      body: TemplateUsageBody,
      refusals: CREATE_NODE_FROM_TEMPLATE_REFUSALS,
      run: (uc, { params, body }) =>
        uc.createNodeFromTemplate.execute({ projectId: params.project_id, templateId: params.template_id, x: body.x, y: body.y, name: body.name, computeId: body.compute_id }),
      answer: json(201, NodeAnswer, (view: ControllerNodeView) => presentNode(view, consoleHost)),
    }),
  ];
  return routes;
}

export function registerControllerTemplateRoutes(api: ApiRouter, uc: UseCases, consoleHost: string): void {
  for (const value of controllerTemplateRoutes(consoleHost)) api.addRoute(value, uc);
}
