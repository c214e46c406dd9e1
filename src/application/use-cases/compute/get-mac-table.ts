import { inject, injectable } from "tsyringe";
import * as E from "fp-ts/lib/Either.js";
import type { DataPlane, MacTableEntry } from "../../ports/data-plane.js";
import { TOKENS } from "../../ports/tokens.js";
import { COMPUTE_NODE_LOOKUP_REFUSALS, type Refusal } from "../../errors.js";
import { ComputeLookup } from "./compute-lookup.js";

/** What GetMacTable can answer instead of its result. */
export const GET_MAC_TABLE_REFUSALS = COMPUTE_NODE_LOOKUP_REFUSALS;
export type GetMacTableError = Refusal<typeof GET_MAC_TABLE_REFUSALS>;

/** The addresses a switch has learned (a netemu extension; a hub learns none). */
@injectable()
export class GetMacTable {
  constructor(
    private readonly lookup: ComputeLookup,
    @inject(TOKENS.DataPlane) private readonly dataPlane: DataPlane,
  ) {}

  async execute({ projectId, nodeId }: { readonly projectId: string; readonly nodeId: string }): Promise<E.Either<GetMacTableError, readonly MacTableEntry[]>> {
    const sw = await this.lookup.nodeOf(projectId, nodeId, "ethernet_switch");
    if (E.isLeft(sw)) return sw;
    return E.right(await this.dataPlane.macTable(nodeId));
  }
}
