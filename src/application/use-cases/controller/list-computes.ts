import { inject, injectable } from "tsyringe";
import type { ServerSettings } from "../../ports/server-settings.js";
import type { HostFacts, HostMetrics } from "../../ports/host.js";
import { TOKENS } from "../../ports/tokens.js";
import { type Capabilities, GetCapabilities } from "../compute/get-capabilities.js";

/** The controller's view of a compute, as GNS3's `/v2/computes` has it. */
export interface ComputeView {
  readonly computeId: string;
  readonly name: string;
  readonly protocol: "http";
  readonly host: string;
  readonly port: number;
  readonly user: string | null;
  readonly connected: boolean;
  readonly cpuUsagePercent: number;
  readonly memoryUsagePercent: number;
  readonly capabilities: Capabilities;
}

export const LOCAL_COMPUTE_ID = "local";

/**
 * GET /v2/computes: netemu's controller has one compute, itself ("local"), always connected; it
 * runs every node in process (ADR 0062).
 */
@injectable()
export class ListComputes {
  constructor(
    private readonly capabilities: GetCapabilities,
    @inject(TOKENS.ServerSettings) private readonly settings: ServerSettings,
    @inject(TOKENS.HostFacts) private readonly host: HostFacts,
    @inject(TOKENS.HostMetrics) private readonly metrics: HostMetrics,
  ) {}

  execute(): readonly ComputeView[] {
    const load = this.metrics.load();
    return [
      {
        computeId: LOCAL_COMPUTE_ID,
        name: this.host.hostname,
        protocol: "http",
        host: this.settings.host,
        port: this.settings.port,
        user: this.settings.auth.enabled ? this.settings.auth.user : null,
        connected: true,
        cpuUsagePercent: load.cpuUsagePercent,
        memoryUsagePercent: load.memoryUsagePercent,
        capabilities: this.capabilities.execute(),
      },
    ];
  }
}
