import { inject, injectable } from "tsyringe";
import * as E from "fp-ts/lib/Either.js";
import type { ComputeNodeRepository, ComputeProjectRepository } from "../../ports/repositories.js";
import type { UdpPortPool } from "../../ports/udp-port-pool.js";
import { TOKENS } from "../../ports/tokens.js";
import type { ComputeProjectLookupError } from "../../errors.js";
import { KeyedLock } from "../../keyed-lock.js";
import { inPool, NODES_AT_ONCE } from "../../bounded-pool.js";
import { ComputeLookup } from "./compute-lookup.js";
import { DeleteComputeNode } from "./delete-compute-node.js";

/** The lock key of a compute project's life: taken before any node's (ADR 0039). */
export const computeProjectKey = (projectId: string): string => `compute-project:${projectId}`;

/**
 * What closing and deleting a compute project share, under the project's lock: its switches and
 * hubs deleted (sockets closed), every UDP port it reserved released, the project forgotten.
 */
@injectable()
export class ComputeProjectClosing {
  constructor(
    private readonly lookup: ComputeLookup,
    private readonly deleteNode: DeleteComputeNode,
    @inject(TOKENS.ComputeProjectRepository) private readonly projects: ComputeProjectRepository,
    @inject(TOKENS.ComputeNodeRepository) private readonly nodes: ComputeNodeRepository,
    @inject(TOKENS.UdpPortPool) private readonly pool: UdpPortPool,
    @inject(TOKENS.KeyedLock) private readonly lock: KeyedLock,
  ) {}

  /** Closes the project, then runs `afterwards` (still under the lock) if it was there to close. */
  close(projectId: string, afterwards: () => Promise<void> = async () => undefined): Promise<E.Either<ComputeProjectLookupError, void>> {
    return this.lock.run(computeProjectKey(projectId), async () => {
      const project = await this.lookup.project(projectId);
      if (E.isLeft(project)) return project;
      // A few nodes at a time (GNS3's pool): a host's process may take its stop grace to end.
      const ours = (await this.nodes.list()).filter((node) => node.projectId === projectId);
      await inPool(ours, NODES_AT_ONCE, (node) => this.deleteNode.execute({ projectId, nodeId: node.nodeId, closing: true }));
      this.pool.releaseProject(projectId);
      await this.projects.delete(projectId);
      await afterwards();
      return E.right(undefined);
    });
  }
}
