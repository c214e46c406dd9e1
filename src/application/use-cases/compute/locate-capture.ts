import { inject, injectable } from "tsyringe";
import * as E from "fp-ts/lib/Either.js";
import type { PacketCaptures } from "../../ports/packet-captures.js";
import { TOKENS } from "../../ports/tokens.js";
import { COMPUTE_PORT_LOOKUP_REFUSALS, type Refusal } from "../../errors.js";
import { ComputeLookup } from "./compute-lookup.js";
import type { PortAddress } from "./compute-lookup.js";

/** What LocateCapture can answer instead of its result. */
export const LOCATE_CAPTURE_REFUSALS = [...COMPUTE_PORT_LOOKUP_REFUSALS, "PortNotAllocated", "NoCaptureToStream"] as const;
export type LocateCaptureError = Refusal<typeof LOCATE_CAPTURE_REFUSALS>;

/** The file a running capture grows, and a way to know when it stops (for GET .../pcap). */
export interface ActiveCapture {
  readonly filePath: string;
  isActive(): Promise<boolean>;
}

@injectable()
export class LocateCapture {
  constructor(
    private readonly lookup: ComputeLookup,
    @inject(TOKENS.PacketCaptures) private readonly captures: PacketCaptures,
  ) {}

  async execute({ port: at }: { readonly port: PortAddress }): Promise<E.Either<LocateCaptureError, ActiveCapture>> {
    const sw = await this.lookup.nodeAt(at);
    if (E.isLeft(sw)) return sw;
    if (!sw.right.nios.has(at.portNumber)) return E.left({ _tag: "PortNotAllocated", portNumber: at.portNumber });
    const filePath = await this.captures.fileOf(at.nodeId, at.portNumber);
    if (filePath === undefined) {
      return E.left({ _tag: "NoCaptureToStream" });
    }
    return E.right({ filePath, isActive: async () => (await this.captures.fileOf(at.nodeId, at.portNumber)) === filePath });
  }
}
