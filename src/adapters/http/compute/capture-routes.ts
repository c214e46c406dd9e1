import type { UseCases } from "../../../application/use-cases/index.js";
import { START_CAPTURE_REFUSALS } from "../../../application/use-cases/compute/start-capture.js";
import { STOP_CAPTURE_REFUSALS } from "../../../application/use-cases/compute/stop-capture.js";
import { type ActiveCapture, LOCATE_CAPTURE_REFUSALS } from "../../../application/use-cases/compute/locate-capture.js";
import { COMPUTE_NODE_TYPES, type ComputeNodeType } from "../../../domain/switching/compute-node.js";
import type { ApiRouter } from "../api-router.js";
import { captureFile, captureStream, PCAP } from "../pcap-stream.js";
import { type AnyRoute, empty, json, raw, route } from "../route.js";
import { CaptureBody } from "./codecs.js";
import { CaptureStartedAnswer } from "./answers.js";
import { portOf, portPath } from "./node-routes.js";

/** A switch's or hub's port captures: start, stop, and the capture file streamed as it grows. */
export function captureRoutes(nodeType: ComputeNodeType): AnyRoute[] {
  const PORT = portPath(nodeType);
  return [
    route({
      name: `compute.${nodeType}.start_capture`,
      method: "POST",
      path: `${PORT}/start_capture`,
      body: CaptureBody,
      refusals: START_CAPTURE_REFUSALS,
      run: (uc, { params, body }) => uc.startCapture.execute({ port: portOf(nodeType, params), fileName: body.capture_file_name, dataLinkType: body.data_link_type }),
      answer: json(200, CaptureStartedAnswer, (path: string) => ({ pcap_file_path: path })),
    }),
    route({
      name: `compute.${nodeType}.stop_capture`,
      method: "POST",
      path: `${PORT}/stop_capture`,
      refusals: STOP_CAPTURE_REFUSALS,
      run: (uc, { params }) => uc.stopCapture.execute({ port: portOf(nodeType, params) }),
      answer: empty(204),
    }),
    route({
      name: `compute.${nodeType}.pcap`,
      method: "GET",
      path: `${PORT}/pcap`,
      refusals: [...LOCATE_CAPTURE_REFUSALS, "FileNotFound"],
      run: async (uc, { params }) => captureFile(await uc.locateCapture.execute({ port: portOf(nodeType, params) })),
      answer: raw(200, PCAP, (capture: ActiveCapture) => captureStream(capture)),
    }),
  ];
}

export function registerCaptureRoutes(api: ApiRouter, uc: UseCases): void {
  for (const nodeType of COMPUTE_NODE_TYPES) for (const r of captureRoutes(nodeType)) api.addRoute(r, uc);
}
