import { inject, injectable } from "tsyringe";
import * as E from "fp-ts/lib/Either.js";
import type { Link } from "../../../domain/topology/link.js";
import type { LinkRepository, NodeRepository } from "../../ports/repositories.js";
import { TOKENS } from "../../ports/tokens.js";
import type { ProjectEvents } from "../../ports/project-events.js";
import { CONTROLLER_LINK_LOOKUP_REFUSALS, type Refusal } from "../../errors.js";
import { KeyedLock } from "../../keyed-lock.js";
import { START_CAPTURE_REFUSALS, StartCapture } from "../compute/start-capture.js";
import { ControllerLookup } from "./controller-lookup.js";

/** What StartLinkCapture can answer instead of its result. */
export const START_LINK_CAPTURE_REFUSALS = [...CONTROLLER_LINK_LOOKUP_REFUSALS, "CaptureAlreadyActive", ...START_CAPTURE_REFUSALS] as const;
export type StartLinkCaptureError = Refusal<typeof START_LINK_CAPTURE_REFUSALS>;

/** GNS3's default capture name: `<node>_<a>-<p>_to_<node>_<a>-<p>.pcap`, names kept to safe characters. */
function defaultCaptureName(ends: readonly { name: string; adapterNumber: number; portNumber: number }[]): string {
  const part = (e: { name: string; adapterNumber: number; portNumber: number }) =>
    `${e.name.replace(/[^A-Za-z0-9_-]/g, "")}_${e.adapterNumber}-${e.portNumber}`;
  return `${ends.map(part).join("_to_")}.pcap`;
}

/** Starts a capture on the link's first end (GNS3 prefers the switch end; here both ends are switches). */
@injectable()
export class StartLinkCapture {
  constructor(
    private readonly lookup: ControllerLookup,
    private readonly startCapture: StartCapture,
    @inject(TOKENS.NodeRepository) private readonly nodes: NodeRepository,
    @inject(TOKENS.LinkRepository) private readonly links: LinkRepository,
    @inject(TOKENS.KeyedLock) private readonly lock: KeyedLock,
    @inject(TOKENS.ProjectEvents) private readonly events: ProjectEvents,
  ) {}

  execute({ projectId, linkId, fileName, dataLinkType = "DLT_EN10MB" }: { readonly projectId: string; readonly linkId: string; readonly fileName?: string | undefined; readonly dataLinkType?: string | undefined }): Promise<E.Either<StartLinkCaptureError, Link>> {
    return this.lock.run(`project:${projectId}`, async () => {
      const link = await this.lookup.link(projectId, linkId);
      if (E.isLeft(link)) return link;
      const [first] = link.right.nodes;
      if (link.right.capture !== null) return E.left({ _tag: "CaptureAlreadyActive", portNumber: first.portNumber });
      const named = [];
      for (const end of link.right.nodes) {
        const node = await this.nodes.get(projectId, end.nodeId);
        named.push({ name: node?.name ?? end.nodeId, adapterNumber: end.adapterNumber, portNumber: end.portNumber });
      }
      const name = fileName ?? defaultCaptureName(named);
      const at = { projectId, nodeId: first.nodeId, adapterNumber: first.adapterNumber, portNumber: first.portNumber };
      const started = await this.startCapture.execute({ port: at, fileName: name, dataLinkType });
      if (E.isLeft(started)) return started;
      const capturing: Link = { ...link.right, capture: { fileName: name, filePath: started.right } };
      await this.links.save(capturing);
      this.events.publish({ kind: "link.updated", projectId, link: capturing });
      return E.right(capturing);
    });
  }
}
