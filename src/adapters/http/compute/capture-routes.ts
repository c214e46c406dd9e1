import type { UseCases } from "../../../application/use-cases/index.js";
import { COMPUTE_NODE_TYPES } from "../../../domain/switching/compute-node.js";
import { type ApiRouter, withBody } from "../api-router.js";
import { streamCapture } from "../pcap-stream.js";
import { CaptureBody } from "./codecs.js";
import { portAddress, portRoute } from "./node-routes.js";

export function registerCaptureRoutes(api: ApiRouter, uc: UseCases): void {
  for (const nodeType of COMPUTE_NODE_TYPES) {
    const PORT = portRoute(nodeType);
    api.add(`compute.${nodeType}.start_capture`, "POST", `${PORT}/start_capture`, withBody(CaptureBody, async (x, body) => {
      const started = await uc.startCapture.execute({ port: portAddress(x, nodeType), fileName: body.capture_file_name, dataLinkType: body.data_link_type });
      x.respond(started, 200, (path) => ({ pcap_file_path: path }));
    }));

    api.add(`compute.${nodeType}.stop_capture`, "POST", `${PORT}/stop_capture`, async (x) => {
      x.respond(await uc.stopCapture.execute({ port: portAddress(x, nodeType) }), 204, () => undefined);
    });

    api.add(`compute.${nodeType}.pcap`, "GET", `${PORT}/pcap`, async (x) => streamCapture(x, await uc.locateCapture.execute({ port: portAddress(x, nodeType) })));
  }

}
