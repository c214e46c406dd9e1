import { injectable } from "tsyringe";
import * as E from "fp-ts/lib/Either.js";
import type { NetemuError } from "../../errors.js";
import { ComputeLookup } from "./compute-lookup.js";

/**
 * start, stop and suspend: a switch always runs (GNS3 answers 204 and keeps "started"), so these
 * only check that the switch exists.
 */
@injectable()
export class ChangeSwitchStatus {
  constructor(private readonly lookup: ComputeLookup) {}

  async execute(projectId: string, nodeId: string): Promise<E.Either<NetemuError, void>> {
    const sw = await this.lookup.switchOf(projectId, nodeId);
    return E.isLeft(sw) ? sw : E.right(undefined);
  }
}
