import { inject, injectable } from "tsyringe";
import { type ComputeNodeType, GNS3_NODE_TYPES } from "../../../domain/switching/compute-node.js";
import { type ServerSettings, V3_DEFAULTS } from "../../ports/server-settings.js";
import type { HostCapacity, HostFacts } from "../../ports/host.js";
import { TOKENS } from "../../ports/tokens.js";

export interface Capabilities {
  readonly nodeTypes: readonly ComputeNodeType[];
  readonly platform: string;
  /** The GNS3 version netemu reports: a release controller demands exactly its own. */
  readonly version: string;
  /** The GNS3 version /v3/compute reports (ADR 0066). */
  readonly v3Version: string;
  /** The machine's size, which a 3.x compute adds (zeros when unknown). */
  readonly capacity: HostCapacity;
}

/** What a GNS3 controller asks first of a compute it is told to add (its only probe). */
@injectable()
export class GetCapabilities {
  constructor(
    @inject(TOKENS.ServerSettings) private readonly settings: ServerSettings,
    @inject(TOKENS.HostFacts) private readonly host: HostFacts,
  ) {}

  execute(): Capabilities {
    return {
      // Only the kinds GNS3 knows: a GNS3 controller refuses a compute whose list names another (ADR 0087).
      nodeTypes: GNS3_NODE_TYPES,
      platform: this.host.platform,
      version: this.settings.gns3Version,
      v3Version: (this.settings.v3 ?? V3_DEFAULTS).gns3Version,
      capacity: this.host.capacity ?? { cpus: 0, memoryBytes: 0, diskBytes: 0 },
    };
  }
}
