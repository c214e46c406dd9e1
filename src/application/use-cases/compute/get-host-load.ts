import { inject, injectable } from "tsyringe";
import type { HostLoad, HostMetrics } from "../../ports/host.js";
import { TOKENS } from "../../ports/tokens.js";

/** CPU and memory use, as the compute's ping notification carries them. */
@injectable()
export class GetHostLoad {
  constructor(@inject(TOKENS.HostMetrics) private readonly metrics: HostMetrics) {}

  execute(): HostLoad {
    return this.metrics.load();
  }
}
