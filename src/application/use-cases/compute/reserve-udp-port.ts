import { inject, injectable } from "tsyringe";
import * as E from "fp-ts/lib/Either.js";
import type { UdpPortPool } from "../../ports/udp-port-pool.js";
import { TOKENS } from "../../ports/tokens.js";
import { COMPUTE_PROJECT_LOOKUP_REFUSALS, type Refusal } from "../../errors.js";
import { ComputeLookup } from "./compute-lookup.js";
import { computeProjectKey } from "./compute-project-closing.js";
import { KeyedLock } from "../../keyed-lock.js";

/** What ReserveUdpPort can answer instead of its result. */
export const RESERVE_UDP_PORT_REFUSALS = [...COMPUTE_PROJECT_LOOKUP_REFUSALS, "NoFreeUdpPort", "UdpPortCheckFailed"] as const;
export type ReserveUdpPortError = Refusal<typeof RESERVE_UDP_PORT_REFUSALS>;

/** POST /ports/udp: a free port of the configured range, held until a NIO using it goes. */
@injectable()
export class ReserveUdpPort {
  constructor(
    private readonly lookup: ComputeLookup,
    @inject(TOKENS.UdpPortPool) private readonly pool: UdpPortPool,
    @inject(TOKENS.KeyedLock) private readonly lock: KeyedLock,
  ) {}

  execute({ projectId }: { readonly projectId: string }): Promise<E.Either<ReserveUdpPortError, number>> {
    // Under the project's lock: a port reserved while the project closes would be held for ever.
    return this.lock.run(computeProjectKey(projectId), async () => {
      const project = await this.lookup.project(projectId);
      if (E.isLeft(project)) return project;
      return this.pool.reserve(projectId);
    });
  }
}
