import { inject, injectable } from "tsyringe";
import * as E from "fp-ts/lib/Either.js";
import type { DataPlane, MacTableEntry } from "../../ports/data-plane.js";
import { TOKENS } from "../../ports/tokens.js";
import type { ComputeNodeLookupError } from "../../errors.js";
import { ComputeLookup } from "./compute-lookup.js";

/** What GetMacTable can answer instead of its result. */
export type GetMacTableError = ComputeNodeLookupError;

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
