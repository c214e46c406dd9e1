import { inject, injectable } from "tsyringe";
import type { SkippedTopologyFile, TopologyFiles } from "../../ports/topology-files.js";
import { TOKENS } from "../../ports/tokens.js";

/** The `.gns3` files (and directories) left out at start, with why, so that a user sees them without reading the log. */
@injectable()
export class ListSkippedTopologies {
  constructor(@inject(TOKENS.TopologyFiles) private readonly files: TopologyFiles) {}

  execute(): Promise<readonly SkippedTopologyFile[]> {
    return this.files.skipped();
  }
}
