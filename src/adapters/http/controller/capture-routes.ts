import type { UseCases } from "../../../application/use-cases/index.js";
import { START_LINK_CAPTURE_REFUSALS } from "../../../application/use-cases/controller/start-link-capture.js";
import { STOP_LINK_CAPTURE_REFUSALS } from "../../../application/use-cases/controller/stop-link-capture.js";
import { LOCATE_LINK_CAPTURE_REFUSALS } from "../../../application/use-cases/controller/locate-link-capture.js";
import type { ActiveCapture } from "../../../application/use-cases/compute/locate-capture.js";
import type { ApiRouter } from "../api-router.js";
import { captureFile, captureStream, PCAP } from "../pcap-stream.js";
import { json, raw, route } from "../route.js";
import { LinkCaptureBody } from "./codecs.js";
import { LinkAnswer } from "./answers.js";
import { presentLink } from "./presenters.js";

const LINK = "/v2/projects/{project_id}/links/{link_id}";

/** Captures on a link: run on the link's first end, streamed from its file (ADR 0076's values). */
export const LINK_CAPTURE_ROUTES = {
  start: route({
    name: "controller.link.start_capture",
    method: "POST",
    path: `${LINK}/start_capture`,
    body: LinkCaptureBody,
    refusals: START_LINK_CAPTURE_REFUSALS,
    run: (uc, { params, body }) => uc.startLinkCapture.execute({ projectId: params.project_id, linkId: params.link_id, fileName: body.capture_file_name, dataLinkType: body.data_link_type }),
    answer: json(201, LinkAnswer, presentLink),
  }),
  stop: route({
    name: "controller.link.stop_capture",
    method: "POST",
    path: `${LINK}/stop_capture`,
    refusals: STOP_LINK_CAPTURE_REFUSALS,
    run: (uc, { params }) => uc.stopLinkCapture.execute({ projectId: params.project_id, linkId: params.link_id }),
    answer: json(201, LinkAnswer, presentLink),
  }),
  pcap: route({
    name: "controller.link.pcap",
    method: "GET",
    path: `${LINK}/pcap`,
    refusals: [...LOCATE_LINK_CAPTURE_REFUSALS, "FileNotFound"],
    run: async (uc, { params }) => captureFile(await uc.locateLinkCapture.execute({ projectId: params.project_id, linkId: params.link_id })),
    answer: raw(200, PCAP, (capture: ActiveCapture) => captureStream(capture)),
  }),
};

export function registerLinkCaptureRoutes(api: ApiRouter, uc: UseCases): void {
  for (const value of Object.values(LINK_CAPTURE_ROUTES)) api.addRoute(value, uc);
}
