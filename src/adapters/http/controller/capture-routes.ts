import type { UseCases } from "../../../application/use-cases/index.js";
import { type ApiRouter, withBody } from "../api-router.js";
import { streamCapture } from "../pcap-stream.js";
import { LinkCaptureBody } from "./codecs.js";
import { presentLink } from "./presenters.js";

const LINK = "/v2/projects/{project_id}/links/{link_id}";

/** Captures on a link: run on the link's first end, streamed from its file. */
export function registerLinkCaptureRoutes(api: ApiRouter, uc: UseCases): void {
  api.add("controller.link.start_capture", "POST", `${LINK}/start_capture`, withBody(LinkCaptureBody, async (x, body) => {
    const started = await uc.startLinkCapture.execute({ projectId: x.param("project_id"), linkId: x.param("link_id"), fileName: body.capture_file_name, dataLinkType: body.data_link_type });
    x.respond(started, 201, presentLink);
  }));

  api.add("controller.link.stop_capture", "POST", `${LINK}/stop_capture`, async (x) => {
    x.respond(await uc.stopLinkCapture.execute({ projectId: x.param("project_id"), linkId: x.param("link_id") }), 201, presentLink);
  });

  api.add("controller.link.pcap", "GET", `${LINK}/pcap`, async (x) => streamCapture(x, await uc.locateLinkCapture.execute({ projectId: x.param("project_id"), linkId: x.param("link_id") })));
}
