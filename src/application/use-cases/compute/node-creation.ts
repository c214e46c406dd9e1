import { inject, injectable } from "tsyringe";
import * as E from "fp-ts/lib/Either.js";
import type { ComputeNodeType } from "../../../domain/switching/compute-node.js";
import type { ComputeNodeRepository } from "../../ports/repositories.js";
import type { IdGenerator } from "../../ports/system.js";
import { TOKENS } from "../../ports/tokens.js";
import type { ComputeProjectLookupError, ErrorOf } from "../../errors.js";
import { KeyedLock } from "../../keyed-lock.js";
import { CONFIGURATION_LIMITS } from "../../../domain/configuration/limits.js";
import { ComputeLookup, type NodeOfType } from "./compute-lookup.js";
import { computeProjectKey } from "./compute-project-closing.js";

/** What every host kind's create takes besides its own settings: its name, the id a client may choose, and its directory. */
export interface HostCreationInput {
  readonly name: string;
  readonly nodeId?: string | undefined;
  /**
   * Its working directory, when the in-process controller keeps it in its own project's directory (as
   * GNS3 does); the compute API's nodes are under the compute's projects (ADR 0060).
   */
  readonly directory?: string | undefined;
}

/**
 * How a switch or hub comes to be, the same for both: under the project's lock, then the node's
 * (ADR 0039), in a project that exists; an id already known answers that node when it is of the
 * type asked for (as GNS3 does), and is refused when it is of the other.
 */
@injectable()
export class NodeCreation {
  constructor(
    private readonly lookup: ComputeLookup,
    @inject(TOKENS.ComputeNodeRepository) private readonly nodes: ComputeNodeRepository,
    @inject(TOKENS.IdGenerator) private readonly ids: IdGenerator,
    @inject(TOKENS.KeyedLock) private readonly lock: KeyedLock,
  ) {}

  create<T extends ComputeNodeType>(
    projectId: string,
    wantedId: string | undefined,
    nodeType: T,
    build: (nodeId: string) => NodeOfType<T>,
  ): Promise<E.Either<ComputeProjectLookupError | ErrorOf<"NodeIdInUse" | "ProjectFull">, NodeOfType<T>>> {
    return this.lock.run(computeProjectKey(projectId), async () => {
      const project = await this.lookup.project(projectId);
      if (E.isLeft(project)) return project;
      const nodeId = wantedId ?? this.ids.uuid();
      return this.lock.run(nodeId, async () => {
        const existing = await this.nodes.get(nodeId);
        if (existing?.nodeType === nodeType) return E.right(existing as NodeOfType<T>);
        if (existing !== undefined) return E.left({ _tag: "NodeIdInUse", nodeId, nodeType: existing.nodeType });
        const limit = CONFIGURATION_LIMITS.nodesPerProject;
        let inProject = 0;
        for (const n of await this.nodes.list()) if (n.projectId === projectId) inProject++;
        if (inProject >= limit) return E.left({ _tag: "ProjectFull", what: "nodes", limit });
        const node = build(nodeId);
        await this.nodes.save(node);
        return E.right(node);
      });
    });
  }
}
