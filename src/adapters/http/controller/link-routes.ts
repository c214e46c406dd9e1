import type { UseCases } from "../../../application/use-cases/index.js";
import { CREATE_LINK_REFUSALS } from "../../../application/use-cases/controller/create-link.js";
import { LIST_LINKS_REFUSALS } from "../../../application/use-cases/controller/list-links.js";
import { GET_LINK_REFUSALS } from "../../../application/use-cases/controller/get-link.js";
import { UPDATE_LINK_REFUSALS } from "../../../application/use-cases/controller/update-link.js";
import { DELETE_LINK_REFUSALS } from "../../../application/use-cases/controller/delete-link.js";
import { LIST_AVAILABLE_FILTERS_REFUSALS } from "../../../application/use-cases/controller/list-available-filters.js";
import type { ApiRouter } from "../api-router.js";
import { empty, json, list, route } from "../route.js";
import { LinkCreateBody, LinkUpdateBody } from "./codecs.js";
import { FilterDescriptorAnswer, LinkAnswer } from "./answers.js";
import { presentFilterDescriptor, presentLink, presentLinkView } from "./presenters.js";

const LINKS = "/v2/projects/{project_id}/links";
const LINK = `${LINKS}/{link_id}` as const;

/** The controller's link routes, declared as values (ADR 0076). */
export const CONTROLLER_LINK_ROUTES = {
  create: route({
    name: "controller.link.create",
    method: "POST",
    path: LINKS,
    body: LinkCreateBody,
    refusals: CREATE_LINK_REFUSALS,
    run: (uc, { params, body: b }) =>
      uc.createLink.execute({
        projectId: params.project_id,
        nodes: b.nodes.map((n) => ({ nodeId: n.node_id, adapterNumber: n.adapter_number, portNumber: n.port_number, label: n.label, filters: n.filters, schedule: n.schedule })),
        filters: b.filters,
        suspend: b.suspend,
        linkStyle: b.link_style,
      }),
    answer: json(201, LinkAnswer, presentLink),
  }),
  list: route({
    name: "controller.link.list",
    method: "GET",
    path: LINKS,
    refusals: LIST_LINKS_REFUSALS,
    run: (uc, { params }) => uc.listLinks.execute({ projectId: params.project_id }),
    answer: list(200, LinkAnswer, presentLink),
  }),
  get: route({
    name: "controller.link.get",
    method: "GET",
    path: LINK,
    refusals: GET_LINK_REFUSALS,
    run: (uc, { params }) => uc.getLink.execute({ projectId: params.project_id, linkId: params.link_id }),
    answer: json(200, LinkAnswer, presentLinkView),
  }),
  update: route({
    name: "controller.link.update",
    method: "PUT",
    path: LINK,
    body: LinkUpdateBody,
    refusals: UPDATE_LINK_REFUSALS,
    run: (uc, { params, body: b }) =>
      uc.updateLink.execute({
        projectId: params.project_id,
        linkId: params.link_id,
        filters: b.filters,
        suspend: b.suspend,
        linkStyle: b.link_style,
        nodes: b.nodes?.map((n) => ({ nodeId: n.node_id, label: n.label, filters: n.filters, schedule: n.schedule })),
      }),
    answer: json(201, LinkAnswer, presentLink),
  }),
  delete: route({
    name: "controller.link.delete",
    method: "DELETE",
    path: LINK,
    refusals: DELETE_LINK_REFUSALS,
    run: (uc, { params }) => uc.deleteLink.execute({ projectId: params.project_id, linkId: params.link_id }),
    answer: empty(204),
  }),
  availableFilters: route({
    name: "controller.link.available_filters",
    method: "GET",
    path: `${LINK}/available_filters`,
    refusals: LIST_AVAILABLE_FILTERS_REFUSALS,
    run: (uc, { params }) => uc.listAvailableFilters.execute({ projectId: params.project_id, linkId: params.link_id }),
    answer: list(200, FilterDescriptorAnswer, presentFilterDescriptor),
  }),
};

export function registerControllerLinkRoutes(api: ApiRouter, uc: UseCases): void {
  for (const value of Object.values(CONTROLLER_LINK_ROUTES)) api.addRoute(value, uc);
}
