import { inject, injectable } from "tsyringe";
import type { ComputeNodeRepository, ComputeProjectRepository } from "../../ports/repositories.js";
import type { DataPlane } from "../../ports/data-plane.js";
import type { SystemInfoProvider } from "../../ports/system.js";
import type { ServerSettings } from "../../ports/server-settings.js";
import type { UdpPortPool } from "../../ports/udp-port-pool.js";
import { TOKENS } from "../../ports/tokens.js";
import { describeComputeNodes } from "./compute-report.js";

/** GET /v2/compute/debug: the text a controller puts in its debug bundle for this compute. */
@injectable()
export class DescribeCompute {
  constructor(
    @inject(TOKENS.ServerSettings) private readonly settings: ServerSettings,
    @inject(TOKENS.SystemInfoProvider) private readonly system: SystemInfoProvider,
    @inject(TOKENS.ComputeProjectRepository) private readonly projects: ComputeProjectRepository,
    @inject(TOKENS.ComputeNodeRepository) private readonly nodes: ComputeNodeRepository,
    @inject(TOKENS.UdpPortPool) private readonly pool: UdpPortPool,
    @inject(TOKENS.DataPlane) private readonly dataPlane: DataPlane,
  ) {}

  async execute(): Promise<string> {
    const info = await this.system.collect();
    const lines = [`Version: ${this.settings.gns3Version} (netemu)`, ...info.lines, "", "Projects:"];
    for (const project of await this.projects.list()) lines.push(`* ${project.name} (${project.projectId})`);
    lines.push("", `UDP ports in use (${this.pool.range.start}-${this.pool.range.end}): ${this.pool.reserved().join(" ") || "none"}`, "", "Nodes:");
    lines.push(...(await describeComputeNodes(await this.nodes.list(), this.dataPlane)));
    return lines.join("\n") + "\n";
  }
}
