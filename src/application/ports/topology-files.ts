import * as E from "fp-ts/lib/Either.js";
import type { Project } from "../../domain/topology/project.js";
import type { ErrorOf } from "../errors.js";

/** A `.gns3` file (or a directory of them) left out at start, and why: listed in the API, not only logged. */
export interface SkippedTopologyFile {
  /** The file's path, or the directory's when the directory could not be read. */
  readonly path: string;
  readonly reason: string;
}

/**
 * The controller's `.gns3` files (GNS3 calls them topologies): what was left out when they were read
 * at start, and one file read on request (`POST /v2/projects/load`, as GNS3 2.2 serves it).
 */
export interface TopologyFiles {
  /** The files and directories skipped at start, in the order they were met; a file loaded since is no longer listed. */
  skipped(): Promise<readonly SkippedTopologyFile[]>;
  /**
   * Reads the `.gns3` file at `path` and lists its project, closed, kept in that file's directory.
   * A project already listed under the file's project id is answered as it is, as GNS3 does.
   */
  read(path: string): Promise<E.Either<ErrorOf<"TopologyNotLoaded">, Project>>;
}

/** Projects kept in memory only (the embedding default): no file was skipped, and none is read. */
export const NO_TOPOLOGY_FILES: TopologyFiles = {
  skipped: async () => [],
  read: async (path) => E.left({ _tag: "TopologyNotLoaded", path, reason: "this netemu keeps its projects in memory only and reads no project files (embedded without persistProjects)" }),
};
