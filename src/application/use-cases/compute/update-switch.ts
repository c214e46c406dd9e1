import { inject, injectable } from "tsyringe";
import * as E from "fp-ts/lib/Either.js";
import { type EthernetSwitch, type ConsoleType, remapPorts, renameSwitch } from "../../../domain/switching/ethernet-switch.js";
import type { PortMappingEntry } from "../../../domain/switching/port.js";
import type { SwitchRepository } from "../../ports/repositories.js";
import type { DataPlane } from "../../ports/data-plane.js";
import { TOKENS } from "../../ports/tokens.js";
import type { NetemuError } from "../../errors.js";
import { KeyedLock } from "../../keyed-lock.js";
import { ComputeLookup } from "./compute-lookup.js";

export interface UpdateSwitchInput {
  readonly name?: string | undefined;
  readonly consoleType?: ConsoleType | undefined;
  readonly portsMapping?: readonly PortMappingEntry[] | undefined;
}

/** PUT on a switch: rename, new ports_mapping (applied to live ports at once), console type. */
@injectable()
export class UpdateSwitch {
  constructor(
    private readonly lookup: ComputeLookup,
    @inject(TOKENS.SwitchRepository) private readonly switches: SwitchRepository,
    @inject(TOKENS.DataPlane) private readonly dataPlane: DataPlane,
    @inject(TOKENS.KeyedLock) private readonly lock: KeyedLock,
  ) {}

  execute(projectId: string, nodeId: string, input: UpdateSwitchInput): Promise<E.Either<NetemuError, EthernetSwitch>> {
    return this.lock.run(nodeId, async () => {
      const found = await this.lookup.switchOf(projectId, nodeId);
      if (E.isLeft(found)) return found;
      let sw = found.right;
      if (input.portsMapping !== undefined) {
        const remapped = remapPorts(sw, input.portsMapping);
        if (E.isLeft(remapped)) return remapped;
        sw = remapped.right;
      }
      if (input.name !== undefined) sw = renameSwitch(sw, input.name);
      if (input.consoleType !== undefined) sw = { ...sw, consoleType: input.consoleType };
      await this.switches.save(sw);
      if (sw.portsMapping !== found.right.portsMapping) this.dataPlane.remap(sw);
      return E.right(sw);
    });
  }
}
