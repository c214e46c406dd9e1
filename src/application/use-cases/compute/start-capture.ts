import { inject, injectable } from "tsyringe";
import * as E from "fp-ts/lib/Either.js";
import type { PacketCaptures } from "../../ports/packet-captures.js";
import type { ServerSettings } from "../../ports/server-settings.js";
import { TOKENS } from "../../ports/tokens.js";
import type { Logger } from "../../ports/system.js";
import { COMPUTE_PORT_LOOKUP_REFUSALS, type Refusal } from "../../errors.js";
import { KeyedLock } from "../../keyed-lock.js";
import { ComputeLookup } from "./compute-lookup.js";
import type { PortAddress } from "./compute-lookup.js";
import { capturePath } from "./capture-path.js";

/** What StartCapture can answer instead of its result. */
export const START_CAPTURE_REFUSALS = [...COMPUTE_PORT_LOOKUP_REFUSALS, "DataLinkTypeNotSupported", "PortNotAllocated", "CaptureAlreadyActive", "CaptureFileNameInvalid", "CaptureFileUnwritable", "DataPlaneWorkerDown"] as const;
export type StartCaptureError = Refusal<typeof START_CAPTURE_REFUSALS>;

/** Starts writing a port's frames (both directions, after its filters) to a pcap file. */
@injectable()
export class StartCapture {
  constructor(
    private readonly lookup: ComputeLookup,
    @inject(TOKENS.PacketCaptures) private readonly captures: PacketCaptures,
    @inject(TOKENS.ServerSettings) private readonly settings: ServerSettings,
    @inject(TOKENS.KeyedLock) private readonly lock: KeyedLock,
    @inject(TOKENS.Logger) private readonly logger: Logger,
  ) {}

  execute({ port: at, fileName, dataLinkType }: { readonly port: PortAddress; readonly fileName: string; readonly dataLinkType: string }): Promise<E.Either<StartCaptureError, string>> {
    return this.lock.run(at.nodeId, async () => {
      const sw = await this.lookup.nodeAt(at);
      if (E.isLeft(sw)) return sw;
      if (dataLinkType !== "DLT_EN10MB") {
        return E.left({ _tag: "DataLinkTypeNotSupported", nodeType: sw.right.nodeType, dataLinkType });
      }
      if (!sw.right.nios.has(at.portNumber)) return E.left({ _tag: "PortNotAllocated", portNumber: at.portNumber });
      if ((await this.captures.fileOf(at.nodeId, at.portNumber)) !== undefined) return E.left({ _tag: "CaptureAlreadyActive", portNumber: at.portNumber });
      const path = capturePath(this.settings.projectsPath, at.projectId, fileName);
      if (E.isLeft(path)) return path;
      const started = await this.captures.start(at.nodeId, at.portNumber, path.right);
      if (E.isLeft(started)) return started;
      this.logger.info("capture started", { projectId: at.projectId, nodeId: at.nodeId, adapter: at.adapterNumber, port: at.portNumber, file: path.right });
      return E.right(path.right);
    });
  }
}
