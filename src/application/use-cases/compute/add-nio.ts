import { inject, injectable } from "tsyringe";
import * as E from "fp-ts/lib/Either.js";
import { parseNio, type Nio } from "../../../domain/switching/nio.js";
import { carriesFrames, filtersOfNio } from "../../../domain/switching/nio.js";
import { TOKENS } from "../../ports/tokens.js";
import type { Refusal } from "../../errors.js";
import { KeyedLock } from "../../keyed-lock.js";
import { FilterPrograms } from "../../filter-programs.js";
import { ComputeLookup, type PortAddress } from "./compute-lookup.js";
import { type NioRequest, checkNioPrograms } from "./nio-request.js";
import { ATTACH_REFUSALS, NioAttachment } from "./nio-attachment.js";
import { parseArmedSchedule } from "../../schedules/parse-armed-schedule.js";
import type { Clock } from "../../ports/system.js";

/** What AddNio can answer instead of its result. */
export const ADD_NIO_REFUSALS = [...ATTACH_REFUSALS, "InvalidFilterSettings", "InvalidConfiguration", "NioTypeNotSupported"] as const;
export type AddNioError = Refusal<typeof ADD_NIO_REFUSALS>;

/**
 * Attaches a NIO to a switch or hub port: the port must exist and be free, the NIO parse (its
 * filters' expressions compile), and for nio_udp the socket must open. Nothing is recorded unless
 * all of it succeeds.
 */
@injectable()
export class AddNio {
  constructor(
    private readonly lookup: ComputeLookup,
    private readonly attachment: NioAttachment,
    @inject(TOKENS.BpfPrograms) private readonly programs: FilterPrograms,
    @inject(TOKENS.KeyedLock) private readonly lock: KeyedLock,
    @inject(TOKENS.Clock) private readonly clock: Clock,
  ) {}

  execute({ port: at, nio: request }: { readonly port: PortAddress; readonly nio: NioRequest }): Promise<E.Either<AddNioError, Nio>> {
    return this.lock.run(at.nodeId, async () => {
      const found = await this.lookup.nodeAt(at);
      if (E.isLeft(found)) return found;
      const nio = parseNio(request);
      if (E.isLeft(nio)) return nio;
      if (carriesFrames(nio.right)) {
        const compiled = await checkNioPrograms(this.programs, filtersOfNio(nio.right));
        if (E.isLeft(compiled)) return compiled;
      }
      // A UDP NIO's schedules (ADR 0102): parsed and armed now, each instead of its direction's fixed filters.
      let made = nio.right;
      if (request.type === "nio_udp" && made.type === "nio_udp") {
        for (const [raw, fixed, field, key] of [[request.scheduleIn, request.filtersIn, "schedule_in", "scheduleIn"], [request.scheduleOut, request.filtersOut, "schedule_out", "scheduleOut"]] as const) {
          if (raw === undefined) continue;
          const armed = await parseArmedSchedule(raw, field, { given: fixed !== undefined, field: field.replace("schedule", "filters") }, this.programs, this.clock.nowMs());
          if (E.isLeft(armed)) return armed;
          made = Object.freeze({ ...made, [key]: armed.right });
        }
      }
      return this.attachment.addTo(found.right, at, made);
    });
  }
}
