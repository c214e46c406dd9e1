import { inject, injectable } from "tsyringe";
import * as E from "fp-ts/lib/Either.js";
import type { Link } from "../../../domain/topology/link.js";
import type { LinkRepository } from "../../ports/repositories.js";
import { TOKENS } from "../../ports/tokens.js";
import type { ProjectEvents } from "../../ports/project-events.js";
import { CONTROLLER_LINK_LOOKUP_REFUSALS, type Refusal } from "../../errors.js";
import { KeyedLock } from "../../keyed-lock.js";
import { StopCapture } from "../compute/stop-capture.js";
import { ControllerLookup } from "./controller-lookup.js";

/** What StopLinkCapture can answer instead of its result. */
export const STOP_LINK_CAPTURE_REFUSALS = CONTROLLER_LINK_LOOKUP_REFUSALS;
export type StopLinkCaptureError = Refusal<typeof STOP_LINK_CAPTURE_REFUSALS>;

@injectable()
export class StopLinkCapture {
  constructor(
    private readonly lookup: ControllerLookup,
    private readonly stopCapture: StopCapture,
    @inject(TOKENS.LinkRepository) private readonly links: LinkRepository,
    @inject(TOKENS.KeyedLock) private readonly lock: KeyedLock,
    @inject(TOKENS.ProjectEvents) private readonly events: ProjectEvents,
  ) {}

  execute({ projectId, linkId }: { readonly projectId: string; readonly linkId: string }): Promise<E.Either<StopLinkCaptureError, Link>> {
    return this.lock.run(`project:${projectId}`, async () => {
      const link = await this.lookup.link(projectId, linkId);
      if (E.isLeft(link)) return link;
      if (link.right.capture === null) return link;
      const [first] = link.right.nodes;
      await this.stopCapture.execute({ port: { projectId, nodeId: first.nodeId, adapterNumber: first.adapterNumber, portNumber: first.portNumber } });
      const stopped: Link = { ...link.right, capture: null };
      await this.links.save(stopped);
      this.events.publish({ kind: "link.updated", projectId, link: stopped });
      return E.right(stopped);
    });
  }
}
