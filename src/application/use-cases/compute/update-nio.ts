import { inject, injectable } from "tsyringe";
import * as E from "fp-ts/lib/Either.js";
import { type Nio, withFilters } from "../../../domain/switching/nio.js";
import { readBoolean } from "../../../domain/configuration/read.js";
import { TOKENS } from "../../ports/tokens.js";
import type { Refusal } from "../../errors.js";
import { KeyedLock } from "../../keyed-lock.js";
import { FilterPrograms } from "../../filter-programs.js";
import { ComputeLookup, type PortAddress } from "./compute-lookup.js";
import { type NioRequest, checkNioPrograms, requestedFilters } from "./nio-request.js";
import { NioAttachment, REPLACE_REFUSALS } from "./nio-attachment.js";

/** What UpdateNio can answer instead of its result. */
export const UPDATE_NIO_REFUSALS = [...REPLACE_REFUSALS, "NioTypeMismatch", "InvalidFilterSettings", "InvalidConfiguration"] as const;
export type UpdateNioError = Refusal<typeof UPDATE_NIO_REFUSALS>;

/**
 * PUT on a port's NIO (a netemu addition for switches and hubs): replaces the filter sets it gives
 * and its suspend flag, applied from the next frame without reopening the socket; what did not
 * change keeps its live state (ADR 0055).
 */
@injectable()
export class UpdateNio {
  constructor(
    private readonly lookup: ComputeLookup,
    private readonly attachment: NioAttachment,
    @inject(TOKENS.BpfPrograms) private readonly programs: FilterPrograms,
    @inject(TOKENS.KeyedLock) private readonly lock: KeyedLock,
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
      const filters = requestedFilters(request, current);
      if (E.isLeft(filters)) return filters;
      const suspend = request.suspend === undefined ? E.right(current.suspend) : readBoolean(request.suspend, "suspend");
      if (E.isLeft(suspend)) return suspend;
      const compiled = await checkNioPrograms(this.programs, filters.right);
      if (E.isLeft(compiled)) return compiled;
      return this.attachment.replaceOn(found.right, at, current, withFilters(current, filters.right, suspend.right));
    });
  }
}
