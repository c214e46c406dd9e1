import type { UseCases } from "../../../application/use-cases/index.js";
import type { Impairment } from "../../../domain/switching/impairment-overlay.js";
import { renderFilterSettings } from "../../../domain/filters/filter-settings.js";
import { type ApiRouter, withBody } from "../api-router.js";
import { ImpairmentBody, ImpairmentSelectionBody } from "./codecs.js";

/** Where netemu's impairments on GNS3 ports are set, listed and cleared (ADR 0067): netemu's segment of /v2. */
const IMPAIRMENTS_PATH = "/v2/netemu/impairments";

/** An impairment as the routes answer it: the port by ids and by the names the GUI shows, each direction's filters. */
function presentImpairment(i: Impairment): Record<string, unknown> {
  return {
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

export function registerImpairmentRoutes(api: ApiRouter, uc: UseCases): void {
  api.add(
    "netemu.impairments.list",
    "GET",
    IMPAIRMENTS_PATH,
    withBody(ImpairmentSelectionBody, async (x, selection) => x.respondList(await uc.listImpairments.execute(selection), 200, presentImpairment)),
  );

  api.add(
    "netemu.impairments.set",
    "PUT",
    IMPAIRMENTS_PATH,
    withBody(ImpairmentBody, async (x, body) =>
      x.respond(await uc.setImpairment.execute({ project: body.project, node: body.node, port: body.port, in: body.filters_in, out: body.filters_out }), 200, presentImpairment),
    ),
  );

  api.add(
    "netemu.impairments.clear",
    "DELETE",
    IMPAIRMENTS_PATH,
    withBody(ImpairmentSelectionBody, async (x, selection) => x.respondList(await uc.clearImpairments.execute(selection), 200, presentImpairment)),
  );
}
