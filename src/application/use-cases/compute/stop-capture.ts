import { inject, injectable } from "tsyringe";
import * as E from "fp-ts/lib/Either.js";
import type { PacketCaptures } from "../../ports/packet-captures.js";
import { TOKENS } from "../../ports/tokens.js";
import type { Logger } from "../../ports/system.js";
import { COMPUTE_PORT_LOOKUP_REFUSALS, type Refusal } from "../../errors.js";
import { KeyedLock } from "../../keyed-lock.js";
import { ComputeLookup } from "./compute-lookup.js";
import type { PortAddress } from "./compute-lookup.js";

/** What StopCapture can answer instead of its result. */
export const STOP_CAPTURE_REFUSALS = [...COMPUTE_PORT_LOOKUP_REFUSALS, "PortNotAllocated"] as const;
export type StopCaptureError = Refusal<typeof STOP_CAPTURE_REFUSALS>;

/** Stops a port's capture; stopping when none runs is a no-op, as in GNS3. */
@injectable()
export class StopCapture {
  constructor(
    private readonly lookup: ComputeLookup,
    @inject(TOKENS.PacketCaptures) private readonly captures: PacketCaptures,
    @inject(TOKENS.KeyedLock) private readonly lock: KeyedLock,
    @inject(TOKENS.Logger) private readonly logger: Logger,
  ) {}

  execute({ port: at }: { readonly port: PortAddress }): Promise<E.Either<StopCaptureError, void>> {
    return this.lock.run(at.nodeId, async () => {
      const sw = await this.lookup.nodeAt(at);
      if (E.isLeft(sw)) return sw;
      if (!sw.right.nios.has(at.portNumber)) return E.left({ _tag: "PortNotAllocated", portNumber: at.portNumber });
      const file = await this.captures.fileOf(at.nodeId, at.portNumber);
      await this.captures.stop(at.nodeId, at.portNumber);
      // Stopping when none runs is a no-op, and says nothing.
      if (file !== undefined) this.logger.info("capture stopped", { projectId: at.projectId, nodeId: at.nodeId, adapter: at.adapterNumber, port: at.portNumber, file });
      return E.right(undefined);
    });
  }
}
