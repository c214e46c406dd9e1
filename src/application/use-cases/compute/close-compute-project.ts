import { inject, injectable } from "tsyringe";
import * as E from "fp-ts/lib/Either.js";
import type { ComputeNodeRepository, ComputeProjectRepository } from "../../ports/repositories.js";
import type { UdpPortPool } from "../../ports/udp-port-pool.js";
import { TOKENS } from "../../ports/tokens.js";
import type { ComputeProjectLookupError } from "../../errors.js";
import { ComputeLookup } from "./compute-lookup.js";
import { DeleteComputeNode } from "./delete-compute-node.js";

/** What CloseComputeProject can answer instead of its result. */
export type CloseComputeProjectError = ComputeProjectLookupError;

/**
 * Closing a compute project deletes its switches and hubs, which closes their sockets, releases
 * every UDP port the project reserved, and forgets the project; its files stay on disk, as GNS3's
 * compute does.
 */
@injectable()
export class CloseComputeProject {
  constructor(
    private readonly lookup: ComputeLookup,
    private readonly deleteNode: DeleteComputeNode,
    @inject(TOKENS.ComputeProjectRepository) private readonly projects: ComputeProjectRepository,
    @inject(TOKENS.ComputeNodeRepository) private readonly nodes: ComputeNodeRepository,
    @inject(TOKENS.UdpPortPool) private readonly pool: UdpPortPool,
  ) {}

  async execute({ projectId }: { readonly projectId: string }): Promise<E.Either<CloseComputeProjectError, void>> {
    const project = await this.lookup.project(projectId);
    if (E.isLeft(project)) return project;
    for (const node of await this.nodes.list()) {
      if (node.projectId === projectId) await this.deleteNode.execute({ projectId, nodeId: node.nodeId });
    }
    this.pool.releaseProject(projectId);
    await this.projects.delete(projectId);
    return E.right(undefined);
  }
}
