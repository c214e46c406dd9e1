import { inject, injectable } from "tsyringe";
import * as E from "fp-ts/lib/Either.js";
import { type Nio, withFilters } from "../../../domain/switching/nio.js";
import type { LinkFilters } from "../../../domain/filters/filter-settings.js";
import { TOKENS } from "../../ports/tokens.js";
import type { ErrorOf } from "../../errors.js";
import { KeyedLock } from "../../keyed-lock.js";
import { FilterPrograms } from "../../filter-programs.js";
import { ComputeLookup, type PortAddress } from "./compute-lookup.js";
import { checkNioPrograms, requestedFilters } from "./nio-request.js";
import { NioAttachment, type ReplaceError } from "./nio-attachment.js";

/** Which filter sets of a port's NIO to replace; a set left out stays as it is. */
export interface UpdateNioFiltersInput {
  readonly port: PortAddress;
  /** Both directions (GNS3's `filters`). */
  readonly filters?: LinkFilters | undefined;
  /** Frames in from the peer, frames out to it (ADR 0051). */
  readonly filtersIn?: LinkFilters | undefined;
  readonly filtersOut?: LinkFilters | undefined;
}

/** What UpdateNioFilters can answer instead of its result; NioTypeMismatch: the port's NIO is not a nio_udp. */
export type UpdateNioFiltersError = ReplaceError | ErrorOf<"NioTypeMismatch" | "InvalidFilterSettings">;

/**
 * Changes only the filters of a port's UDP NIO, for an embedder that does not want to restate the
 * socket (UpdateNio takes the whole NIO, as the HTTP PUT does). The socket, the suspend flag and the
 * state of every filter set that did not change carry over (ADR 0055).
 */
@injectable()
export class UpdateNioFilters {
  constructor(
    private readonly lookup: ComputeLookup,
    private readonly attachment: NioAttachment,
    @inject(TOKENS.BpfPrograms) private readonly programs: FilterPrograms,
    @inject(TOKENS.KeyedLock) private readonly lock: KeyedLock,
  ) {}

  execute({ port: at, ...request }: UpdateNioFiltersInput): Promise<E.Either<UpdateNioFiltersError, Nio>> {
    return this.lock.run(at.nodeId, async () => {
      const found = await this.lookup.nodeAt(at);
      if (E.isLeft(found)) return found;
      const current = found.right.nios.get(at.portNumber);
      if (current === undefined) return E.left({ _tag: "PortNotAllocated", portNumber: at.portNumber });
      if (current.type !== "nio_udp") return E.left({ _tag: "NioTypeMismatch", portNumber: at.portNumber, current: current.type, requested: "nio_udp" });
      const filters = requestedFilters(request, current);
      if (E.isLeft(filters)) return filters;
      const compiled = await checkNioPrograms(this.programs, filters.right);
      if (E.isLeft(compiled)) return compiled;
      return this.attachment.replaceOn(found.right, at, current, withFilters(current, filters.right, current.suspend));
    });
  }
}
