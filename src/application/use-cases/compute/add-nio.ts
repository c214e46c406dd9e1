import { inject, injectable } from "tsyringe";
import * as E from "fp-ts/lib/Either.js";
import { attachNio } from "../../../domain/switching/compute-node.js";
import type { Nio } from "../../../domain/switching/nio.js";
import type { BpfCheck } from "../../../domain/filters/filter-settings.js";
import type { ComputeNodeRepository } from "../../ports/repositories.js";
import type { DataPlane } from "../../ports/data-plane.js";
import type { UdpPortPool } from "../../ports/udp-port-pool.js";
import { TOKENS } from "../../ports/tokens.js";
import type { Logger } from "../../ports/system.js";
import type { ComputePortLookupError, ErrorOf, SyncError } from "../../errors.js";
import { KeyedLock } from "../../keyed-lock.js";
import { ComputeLookup, type PortAddress } from "./compute-lookup.js";
import { type NioRequest, nioFromRequest } from "./nio-request.js";
import { nioLogFields } from "./nio-log-fields.js";

/** What AddNio can answer instead of its result. */
export type AddNioError = ComputePortLookupError | ErrorOf<"PortNotFound" | "PortNotFree" | "InvalidFilterSettings" | "NioTypeNotSupported"> | SyncError;

/**
 * Attaches a NIO to a switch or hub port: the port must exist and be free, the filters valid, and for
 * nio_udp the socket must open. Nothing is recorded unless all of it succeeds.
 */
@injectable()
export class AddNio {
  constructor(
    private readonly lookup: ComputeLookup,
    @inject(TOKENS.ComputeNodeRepository) private readonly nodes: ComputeNodeRepository,
    @inject(TOKENS.DataPlane) private readonly dataPlane: DataPlane,
    @inject(TOKENS.UdpPortPool) private readonly pool: UdpPortPool,
    @inject(TOKENS.KeyedLock) private readonly lock: KeyedLock,
    @inject(TOKENS.BpfCompiler) private readonly bpfCheck: BpfCheck,
    @inject(TOKENS.Logger) private readonly logger: Logger,
  ) {}

  execute({ port: at, nio: request }: { readonly port: PortAddress; readonly nio: NioRequest }): Promise<E.Either<AddNioError, Nio>> {
    return this.lock.run(at.nodeId, async () => {
      const found = await this.lookup.nodeAt(at);
      if (E.isLeft(found)) return found;
      const nio = nioFromRequest(request, this.bpfCheck);
      if (E.isLeft(nio)) return nio;
      const updated = attachNio(found.right, at.portNumber, nio.right);
      if (E.isLeft(updated)) return updated;
      const synced = await this.dataPlane.sync(updated.right);
      if (E.isLeft(synced)) return synced;
      if (nio.right.type === "nio_udp") this.pool.claim(nio.right.lport, at.projectId);
      await this.nodes.save(updated.right);
      this.logger.info("NIO added", nioLogFields(at, nio.right));
      return E.right(nio.right);
    });
  }
}
