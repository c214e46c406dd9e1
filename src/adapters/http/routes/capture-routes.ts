import { access } from "node:fs/promises";
import * as E from "fp-ts/lib/Either.js";
import type { UseCases } from "../../../application/use-cases/index.js";
import type { ActiveCapture } from "../../../application/use-cases/compute/locate-capture.js";
import type { NetemuError } from "../../../application/errors.js";
import { type ApiRouter, withBody } from "../api-router.js";
import type { Exchange } from "../exchange.js";
import { CaptureBody } from "../codecs/compute.js";
import { LinkCaptureBody } from "../codecs/controller.js";
import { followFile } from "../follow-file.js";
import { presentLink } from "../presenters.js";
import { portAddress, portRoute } from "./compute-node-routes.js";
import { COMPUTE_NODE_TYPES } from "../../../domain/switching/compute-node.js";

const LINK = "/v2/projects/{project_id}/links/{link_id}";

/** Streams the capture file as it grows (`application/vnd.tcpdump.pcap`), until the capture stops. */
async function streamCapture(x: Exchange, found: E.Either<NetemuError, ActiveCapture>): Promise<void> {
  if (E.isLeft(found)) return x.fail(found.left);
  try {
    await access(found.right.filePath);
  } catch {
    return x.fail({ _tag: "FileNotFound" });
  }
  x.ctx.status = 200;
  x.ctx.set("Content-Type", "application/vnd.tcpdump.pcap");
  x.ctx.body = followFile(found.right.filePath, found.right.isActive);
}

export function registerCaptureRoutes(api: ApiRouter, uc: UseCases): void {
  for (const nodeType of COMPUTE_NODE_TYPES) {
    const PORT = portRoute(nodeType);
    api.add("POST", `${PORT}/start_capture`, withBody(CaptureBody, async (x, body) => {
      const started = await uc.startCapture.execute({ port: portAddress(x, nodeType), fileName: body.capture_file_name, dataLinkType: body.data_link_type });
      x.respond(started, 200, (path) => ({ pcap_file_path: path }));
    }));

    api.add("POST", `${PORT}/stop_capture`, async (x) => {
      x.respond(await uc.stopCapture.execute({ port: portAddress(x, nodeType) }), 204, () => undefined);
    });

    api.add("GET", `${PORT}/pcap`, async (x) => streamCapture(x, await uc.locateCapture.execute({ port: portAddress(x, nodeType) })));
  }

  api.add("POST", `${LINK}/start_capture`, withBody(LinkCaptureBody, async (x, body) => {
    const started = await uc.startLinkCapture.execute({ projectId: x.param("project_id"), linkId: x.param("link_id"), fileName: body.capture_file_name, dataLinkType: body.data_link_type });
    x.respond(started, 201, presentLink);
  }));

  api.add("POST", `${LINK}/stop_capture`, async (x) => {
    x.respond(await uc.stopLinkCapture.execute({ projectId: x.param("project_id"), linkId: x.param("link_id") }), 201, presentLink);
  });

  api.add("GET", `${LINK}/pcap`, async (x) => streamCapture(x, await uc.locateLinkCapture.execute({ projectId: x.param("project_id"), linkId: x.param("link_id") })));
}
