import { inject, injectable } from "tsyringe";
import * as E from "fp-ts/lib/Either.js";
import type { EthernetSwitch } from "../../../domain/switching/ethernet-switch.js";
import type { DataPlane, PortCounters, MacTableEntry } from "../../ports/data-plane.js";
import { TOKENS } from "../../ports/tokens.js";
import type { NetemuError } from "../../errors.js";
import { ComputeLookup } from "./compute-lookup.js";

export interface SwitchView {
  readonly sw: EthernetSwitch;
  readonly counters: ReadonlyMap<number, PortCounters>;
}

@injectable()
export class GetSwitch {
  constructor(
    private readonly lookup: ComputeLookup,
    @inject(TOKENS.DataPlane) private readonly dataPlane: DataPlane,
  ) {}

  async execute(projectId: string, nodeId: string): Promise<E.Either<NetemuError, SwitchView>> {
    const sw = await this.lookup.switchOf(projectId, nodeId);
    if (E.isLeft(sw)) return sw;
    return E.right({ sw: sw.right, counters: this.dataPlane.counters(nodeId) });
  }

  async macTable(projectId: string, nodeId: string): Promise<E.Either<NetemuError, readonly MacTableEntry[]>> {
    const sw = await this.lookup.switchOf(projectId, nodeId);
    if (E.isLeft(sw)) return sw;
    return E.right(this.dataPlane.macTable(nodeId));
  }
}
