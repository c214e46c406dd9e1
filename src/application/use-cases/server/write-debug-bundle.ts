import { inject, injectable } from "tsyringe";
import * as E from "fp-ts/lib/Either.js";
import type { ProjectRepository, ComputeNodeRepository, LinkRepository } from "../../ports/repositories.js";
import type { DataPlane } from "../../ports/data-plane.js";
import type { DebugBundleWriter, SystemInfoProvider } from "../../ports/system.js";
import type { ServerSettings } from "../../ports/server-settings.js";
import { TOKENS } from "../../ports/tokens.js";
import { describeComputeNodes } from "../compute/compute-report.js";
import type { Refusal } from "../../errors.js";

/** What WriteDebugBundle can answer instead of its result. */
export const WRITE_DEBUG_BUNDLE_REFUSALS = ["NotLocalServer", "DebugBundleUnwritable"] as const;
export type WriteDebugBundleError = Refusal<typeof WRITE_DEBUG_BUNDLE_REFUSALS>;

/**
 * POST /v2/debug: writes what a bug report needs into <config dir>/debug — versions, host facts,
 * projects, every switch and hub with its ports, NIOs, filters and counters, every link. Credentials are
 * never written.
 */
@injectable()
export class WriteDebugBundle {
  constructor(
    @inject(TOKENS.ServerSettings) private readonly settings: ServerSettings,
    @inject(TOKENS.SystemInfoProvider) private readonly system: SystemInfoProvider,
    @inject(TOKENS.DebugBundleWriter) private readonly writer: DebugBundleWriter,
    @inject(TOKENS.ProjectRepository) private readonly projects: ProjectRepository,
    @inject(TOKENS.ComputeNodeRepository) private readonly nodes: ComputeNodeRepository,
    @inject(TOKENS.LinkRepository) private readonly links: LinkRepository,
    @inject(TOKENS.DataPlane) private readonly dataPlane: DataPlane,
  ) {}

  async execute(): Promise<E.Either<WriteDebugBundleError, string>> {
    if (!this.settings.local) return E.left({ _tag: "NotLocalServer", action: "debug" });
    const info = await this.system.collect();
    const controller = [`Version: GNS3 ${this.settings.gns3Version} (netemu)`, ...info.lines, "", "Projects"];
    for (const project of await this.projects.list()) {
      controller.push(`Project name: ${project.name}`, `Project ID: ${project.projectId}`, `Status: ${project.status}`);
      for (const link of await this.links.listByProject(project.projectId)) {
        const ends = link.nodes.map((n) => `${n.nodeId} ${n.adapterNumber}/${n.portNumber} udp ${n.udpPort}`).join(" <-> ");
        controller.push(`Link ${link.linkId}: ${ends} filters=${JSON.stringify(link.filters)} suspend=${link.suspend}`);
      }
    }
    const compute = [`Compute ID: local`, `Version: ${this.settings.gns3Version}`, ...info.lines, "", "Switches and hubs"];
    compute.push(...(await describeComputeNodes(await this.nodes.list(), this.dataPlane)));
    return this.writer.write([
      { name: "controller.txt", content: controller.join("\n") + "\n" },
      { name: "compute_local.txt", content: compute.join("\n") + "\n" },
    ]);
  }
}
