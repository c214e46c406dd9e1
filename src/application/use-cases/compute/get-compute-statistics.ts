import { inject, injectable } from "tsyringe";
import type { HostMetrics, HostStatistics } from "../../ports/host.js";
import { TOKENS } from "../../ports/tokens.js";

/** The machine's memory, swap, CPU, disk and load, for the controller's GET /v2/statistics. */
@injectable()
export class GetComputeStatistics {
  constructor(@inject(TOKENS.HostMetrics) private readonly metrics: HostMetrics) {}

  execute(): Promise<HostStatistics> {
    return this.metrics.statistics();
  }
}
