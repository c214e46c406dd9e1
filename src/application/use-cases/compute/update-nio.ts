import { inject, injectable } from "tsyringe";
import * as E from "fp-ts/lib/Either.js";
import { replaceNio } from "../../../domain/switching/compute-node.js";
import { type Nio, directional, withFilters } from "../../../domain/switching/nio.js";
import { type BpfCheck, NO_FILTERS } from "../../../domain/filters/filter-settings.js";
import type { ComputeNodeRepository } from "../../ports/repositories.js";
import type { DataPlane } from "../../ports/data-plane.js";
import { TOKENS } from "../../ports/tokens.js";
import type { Logger } from "../../ports/system.js";
import type { ComputePortLookupError, ErrorOf, SyncError } from "../../errors.js";
import { KeyedLock } from "../../keyed-lock.js";
import { ComputeLookup } from "./compute-lookup.js";
import type { PortAddress } from "./compute-lookup.js";
import { type NioRequest, checkedNioFilters } from "./nio-request.js";
import { nioLogFields } from "./nio-log-fields.js";

/** What UpdateNio can answer instead of its result. */
export type UpdateNioError = ComputePortLookupError | ErrorOf<"PortNotAllocated" | "NioTypeMismatch" | "InvalidFilterSettings"> | SyncError;

/**
 * PUT on a port's NIO (a netemu addition for switches and hubs): replaces its filters and suspend flag,
 * applied from the next frame without reopening the socket.
 */
@injectable()
export class UpdateNio {
  constructor(
    private readonly lookup: ComputeLookup,
    @inject(TOKENS.ComputeNodeRepository) private readonly nodes: ComputeNodeRepository,
    @inject(TOKENS.DataPlane) private readonly dataPlane: DataPlane,
    @inject(TOKENS.KeyedLock) private readonly lock: KeyedLock,
    @inject(TOKENS.BpfCompiler) private readonly bpfCheck: BpfCheck,
    @inject(TOKENS.Logger) private readonly logger: Logger,
  ) {}

  execute({ port: at, nio: request }: { readonly port: PortAddress; readonly nio: NioRequest }): Promise<E.Either<UpdateNioError, Nio>> {
    return this.lock.run(at.nodeId, async () => {
      const found = await this.lookup.nodeAt(at);
      if (E.isLeft(found)) return found;
      const current = found.right.nios.get(at.portNumber);
      if (current === undefined) return E.left({ _tag: "PortNotAllocated", portNumber: at.portNumber });
      if (request.type !== current.type) {
        return E.left({ _tag: "NioTypeMismatch", portNumber: at.portNumber, current: current.type, requested: request.type });
      }
      if (current.type !== "nio_udp" || request.type !== "nio_udp") return E.right(current);
      const filters = checkedNioFilters(request, this.bpfCheck, { filters: current.filters, filtersIn: current.filtersIn ?? NO_FILTERS, filtersOut: current.filtersOut ?? NO_FILTERS });
      if (E.isLeft(filters)) return filters;
      const nio = withFilters(current, filters.right, request.suspend ?? current.suspend);
      const updated = replaceNio(found.right, at.portNumber, nio);
      if (E.isLeft(updated)) return updated;
      const applied = await this.dataPlane.sync(updated.right);
      if (E.isLeft(applied)) return applied;
      await this.nodes.save(updated.right);
      // The filters as they now apply, and what they replaced: the line explains a change in traffic.
      const before = { filters: current.filters, ...directional({ filtersIn: current.filtersIn ?? NO_FILTERS, filtersOut: current.filtersOut ?? NO_FILTERS }), suspend: current.suspend };
      this.logger.info("NIO filters changed", { ...nioLogFields(at, nio), before });
      return E.right(nio);
    });
  }
}
