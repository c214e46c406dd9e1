import { injectable } from "tsyringe";
import * as E from "fp-ts/lib/Either.js";
import type { EthernetSwitch } from "../../../domain/switching/ethernet-switch.js";
import type { NetemuError } from "../../errors.js";
import { ComputeLookup } from "./compute-lookup.js";

/**
 * GNS3's duplicate copies a node's working directory to the destination node, which the
 * controller created beforehand with the same properties. A switch has no working directory,
 * so both must exist and the destination is answered unchanged.
 */
@injectable()
export class DuplicateSwitch {
  constructor(private readonly lookup: ComputeLookup) {}

  async execute(projectId: string, nodeId: string, destinationNodeId: string): Promise<E.Either<NetemuError, EthernetSwitch>> {
    const source = await this.lookup.switchOf(projectId, nodeId);
    if (E.isLeft(source)) return source;
    return this.lookup.switchOf(projectId, destinationNodeId);
  }
}
