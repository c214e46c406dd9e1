import type { UseCases } from "../../../application/use-cases/index.js";
import { type ApiRouter, withBody } from "../api-router.js";
import { LinkCreateBody, LinkUpdateBody } from "./codecs.js";
import { presentLink, presentLinkView } from "./presenters.js";
import { constantBody } from "../../shared/gns3-json.js";
import { FILTER_CATALOGUE } from "../../../domain/filters/catalogue.js";

const LINKS = "/v2/projects/{project_id}/links";
const LINK = `${LINKS}/{link_id}`;

export function registerControllerLinkRoutes(api: ApiRouter, uc: UseCases): void {
  constantBody(FILTER_CATALOGUE);
  api.add("controller.link.create", "POST", LINKS, withBody(LinkCreateBody, async (x, b) => {
    const created = await uc.createLink.execute({
      projectId: x.param("project_id"),
      nodes: b.nodes.map((n) => ({ nodeId: n.node_id, adapterNumber: n.adapter_number, portNumber: n.port_number, label: n.label, filters: n.filters })),
      filters: b.filters,
      suspend: b.suspend,
      linkStyle: b.link_style,
    });
    x.respond(created, 201, presentLink);
  }));

  api.add("controller.link.list", "GET", LINKS, async (x) => {
    x.respondList(await uc.listLinks.execute({ projectId: x.param("project_id") }), 200, presentLink);
  });

  api.add("controller.link.get", "GET", LINK, async (x) => {
    x.respond(await uc.getLink.execute({ projectId: x.param("project_id"), linkId: x.param("link_id") }), 200, presentLinkView);
  });

  api.add("controller.link.update", "PUT", LINK, withBody(LinkUpdateBody, async (x, b) => {
    const updated = await uc.updateLink.execute({
      projectId: x.param("project_id"),
      linkId: x.param("link_id"),
      filters: b.filters,
      suspend: b.suspend,
      linkStyle: b.link_style,
      nodes: b.nodes?.map((n) => ({ nodeId: n.node_id, label: n.label, filters: n.filters })),
    });
    x.respond(updated, 201, presentLink);
  }));

  api.add("controller.link.delete", "DELETE", LINK, async (x) => {
    x.respond(await uc.deleteLink.execute({ projectId: x.param("project_id"), linkId: x.param("link_id") }), 204, () => undefined);
  });

  api.add("controller.link.available_filters", "GET", `${LINK}/available_filters`, async (x) => {
    x.respond(await uc.listAvailableFilters.execute({ projectId: x.param("project_id"), linkId: x.param("link_id") }), 200, (filters) => filters);
  });
}
