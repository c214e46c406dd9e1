import { inject, injectable } from "tsyringe";
import * as E from "fp-ts/lib/Either.js";
import { detachNio } from "../../../domain/switching/compute-node.js";
import type { ComputeNodeRepository } from "../../ports/repositories.js";
import type { DataPlane } from "../../ports/data-plane.js";
import type { UdpPortPool } from "../../ports/udp-port-pool.js";
import { TOKENS } from "../../ports/tokens.js";
import type { Logger } from "../../ports/system.js";
import type { ComputePortLookupError, ErrorOf, SyncError } from "../../errors.js";
import { KeyedLock } from "../../keyed-lock.js";
import { ComputeLookup } from "./compute-lookup.js";
import type { PortAddress } from "./compute-lookup.js";
import { nioLogFields } from "./nio-log-fields.js";

/** What RemoveNio can answer instead of its result. */
export type RemoveNioError = ComputePortLookupError | ErrorOf<"PortNotAllocated"> | SyncError;

/** Detaches a port's NIO: stops its capture, closes its socket, frees its UDP port. */
@injectable()
export class RemoveNio {
  constructor(
    private readonly lookup: ComputeLookup,
    @inject(TOKENS.ComputeNodeRepository) private readonly nodes: ComputeNodeRepository,
    @inject(TOKENS.DataPlane) private readonly dataPlane: DataPlane,
    @inject(TOKENS.UdpPortPool) private readonly pool: UdpPortPool,
    @inject(TOKENS.KeyedLock) private readonly lock: KeyedLock,
    @inject(TOKENS.Logger) private readonly logger: Logger,
  ) {}

  execute({ port: at }: { readonly port: PortAddress }): Promise<E.Either<RemoveNioError, void>> {
    return this.lock.run(at.nodeId, async () => {
      const found = await this.lookup.nodeAt(at);
      if (E.isLeft(found)) return found;
      const nio = found.right.nios.get(at.portNumber);
      const updated = detachNio(found.right, at.portNumber);
      if (E.isLeft(updated)) return updated;
      const synced = await this.dataPlane.sync(updated.right);
      if (E.isLeft(synced)) return synced;
      if (nio?.type === "nio_udp") this.pool.release(nio.lport);
      await this.nodes.save(updated.right);
      this.logger.info("NIO removed", nioLogFields(at, nio));
      return E.right(undefined);
    });
  }
}
