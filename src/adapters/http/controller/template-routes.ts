import type { UseCases } from "../../../application/use-cases/index.js";
import { type ApiRouter, withBody } from "../api-router.js";
import { TemplateUsageBody } from "./codecs.js";
import { presentNode, presentTemplate } from "./presenters.js";

/** GNS3's templates (the built-in switch and hub, ADR 0062) and the node made from one. */
export function registerControllerTemplateRoutes(api: ApiRouter, uc: UseCases, consoleHost: string): void {
  api.add("controller.template.list", "GET", "/v2/templates", (x) => x.json(200, uc.listTemplates.execute().map(presentTemplate)));

  api.add("controller.template.get", "GET", "/v2/templates/{template_id}", (x) => {
    x.respond(uc.getTemplate.execute({ templateId: x.param("template_id") }), 200, presentTemplate);
  });

  api.add("controller.template.create_node", "POST", "/v2/projects/{project_id}/templates/{template_id}", withBody(TemplateUsageBody, async (x, b) => {
    const created = await uc.createNodeFromTemplate.execute({
      projectId: x.param("project_id"),
      templateId: x.param("template_id"),
      x: b.x,
      y: b.y,
      name: b.name,
      computeId: b.compute_id,
    });
    x.respond(created, 201, (node) => presentNode(node, consoleHost));
  }));
}
