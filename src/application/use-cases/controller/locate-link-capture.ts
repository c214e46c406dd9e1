import { injectable } from "tsyringe";
import * as E from "fp-ts/lib/Either.js";
import type { NetemuError } from "../../errors.js";
import { LocateCapture, type ActiveCapture } from "../compute/locate-capture.js";
import { ControllerLookup } from "./controller-lookup.js";

@injectable()
export class LocateLinkCapture {
  constructor(
    private readonly lookup: ControllerLookup,
    private readonly locateCapture: LocateCapture,
  ) {}

  async execute(projectId: string, linkId: string): Promise<E.Either<NetemuError, ActiveCapture>> {
    const link = await this.lookup.link(projectId, linkId);
    if (E.isLeft(link)) return link;
    const noCapture: NetemuError = { _tag: "LinkNotCapturing" };
    if (link.right.capture === null) return E.left(noCapture);
    const [first] = link.right.nodes;
    const found = await this.locateCapture.execute({ projectId, nodeId: first.nodeId, adapterNumber: first.adapterNumber, portNumber: first.portNumber });
    return E.isLeft(found) ? E.left(noCapture) : found;
  }
}
