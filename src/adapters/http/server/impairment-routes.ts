import type { UseCases } from "../../../application/use-cases/index.js";
import type { ImpairmentNow } from "../../../application/schedules/schedule-clockwork.js";
import { presentScheduleNow, renderSchedule } from "./schedule-presenters.js";
import { renderFilterSettings } from "../../../domain/filters/filter-settings.js";
import { SET_IMPAIRMENT_REFUSALS } from "../../../application/use-cases/compute/impairment-set.js";
import { CLEAR_IMPAIRMENTS_REFUSALS } from "../../../application/use-cases/compute/impairment-clear.js";
import { LIST_IMPAIRMENTS_REFUSALS } from "../../../application/use-cases/compute/impairment-list.js";
import type { ApiRouter } from "../api-router.js";
import { json, list, route } from "../route.js";
import { ImpairmentBody, ImpairmentSelectionBody } from "./codecs.js";
import { ImpairmentAnswer } from "./answers.js";

/** Where netemu's impairments on GNS3 ports are set, listed and cleared (ADR 0067): netemu's segment of /v2. */
const IMPAIRMENTS_PATH = "/v2/netemu/impairments";

/** An impairment as the routes answer it: the port by ids and by the names the GUI shows, each direction's filters. */
function presentImpairment(i: ImpairmentNow) {
  return {
    ...(i.scheduleIn === undefined ? {} : { schedule_in: renderSchedule(i.scheduleIn.schedule) }),
    ...(i.scheduleOut === undefined ? {} : { schedule_out: renderSchedule(i.scheduleOut.schedule) }),
    ...(i.stateIn === undefined ? {} : { schedule_in_now: presentScheduleNow(i.stateIn) }),
    ...(i.stateOut === undefined ? {} : { schedule_out_now: presentScheduleNow(i.stateOut) }),
    filters_in: renderFilterSettings(i.in),
    filters_out: renderFilterSettings(i.out),
    node_id: i.nodeId,
    node_name: i.nodeName,
    port_name: i.portName,
    port_number: i.portNumber,
    project_id: i.projectId,
    project_name: i.projectName,
  };
}

/**
 * netemu's impairments on a switch or hub port, by the names the GNS3 GUI shows (ADR 0067). A GET's or
 * DELETE's selection may come as query parameters, which the router merges into the body as GNS3 does.
 * `netemu impair` calls these values through route-client.ts.
 */
export const IMPAIRMENT_ROUTES = {
  list: route({
    name: "netemu.impairments.list",
    method: "GET",
    path: IMPAIRMENTS_PATH,
    body: ImpairmentSelectionBody,
    refusals: LIST_IMPAIRMENTS_REFUSALS,
    run: (uc, { body }) => uc.listImpairments.execute(body),
    answer: list(200, ImpairmentAnswer, presentImpairment),
  }),
  set: route({
    name: "netemu.impairments.set",
    method: "PUT",
    path: IMPAIRMENTS_PATH,
    body: ImpairmentBody,
    refusals: SET_IMPAIRMENT_REFUSALS,
    run: (uc, { body }) => uc.setImpairment.execute({ project: body.project, node: body.node, port: body.port, in: body.filters_in, out: body.filters_out, scheduleIn: body.schedule_in, scheduleOut: body.schedule_out }),
    answer: json(200, ImpairmentAnswer, presentImpairment),
  }),
  clear: route({
    name: "netemu.impairments.clear",
    method: "DELETE",
    path: IMPAIRMENTS_PATH,
    body: ImpairmentSelectionBody,
    refusals: CLEAR_IMPAIRMENTS_REFUSALS,
    run: (uc, { body }) => uc.clearImpairments.execute(body),
    answer: list(200, ImpairmentAnswer, presentImpairment),
  }),
};

export function registerImpairmentRoutes(api: ApiRouter, uc: UseCases): void {
  for (const value of [IMPAIRMENT_ROUTES.list, IMPAIRMENT_ROUTES.set, IMPAIRMENT_ROUTES.clear]) api.addRoute(value, uc);
}
