import { injectable } from "tsyringe";
import * as E from "fp-ts/lib/Either.js";
import { CONTROLLER_LINK_LOOKUP_REFUSALS, type ErrorOf, type Refusal } from "../../errors.js";
import { LocateCapture, type ActiveCapture } from "../compute/locate-capture.js";
import { ControllerLookup } from "./controller-lookup.js";

/** What LocateLinkCapture can answer instead of its result: a capture its compute has lost is one the link no longer has. */
export const LOCATE_LINK_CAPTURE_REFUSALS = [...CONTROLLER_LINK_LOOKUP_REFUSALS, "LinkNotCapturing"] as const;
export type LocateLinkCaptureError = Refusal<typeof LOCATE_LINK_CAPTURE_REFUSALS>;

@injectable()
export class LocateLinkCapture {
  constructor(
    private readonly lookup: ControllerLookup,
    private readonly locateCapture: LocateCapture,
  ) {}

  async execute({ projectId, linkId }: { readonly projectId: string; readonly linkId: string }): Promise<E.Either<LocateLinkCaptureError, ActiveCapture>> {
    const link = await this.lookup.link(projectId, linkId);
    if (E.isLeft(link)) return link;
    const noCapture: ErrorOf<"LinkNotCapturing"> = { _tag: "LinkNotCapturing" };
    if (link.right.capture === null) return E.left(noCapture);
    const [first] = link.right.nodes;
    const found = await this.locateCapture.execute({ port: { projectId, nodeId: first.nodeId, adapterNumber: first.adapterNumber, portNumber: first.portNumber } });
    return E.isLeft(found) ? E.left(noCapture) : found;
  }
}
