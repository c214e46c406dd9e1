import { inject, injectable } from "tsyringe";
import * as E from "fp-ts/lib/Either.js";
import { type EthernetSwitch, type ConsoleType, remapPorts } from "../../../domain/switching/ethernet-switch.js";
import { parseNodeName, renameNode } from "../../../domain/switching/compute-node.js";
import { type PortMappingEntry, parseSwitchPorts } from "../../../domain/switching/port.js";
import { readChoice } from "../../../domain/configuration/read.js";
import { TOKENS } from "../../ports/tokens.js";
import { COMPUTE_NODE_LOOKUP_REFUSALS, type Refusal, SYNC_REFUSALS } from "../../errors.js";
import { KeyedLock } from "../../keyed-lock.js";
import { ComputeLookup } from "./compute-lookup.js";
import { NodeChanges } from "./node-changes.js";

/** What UpdateSwitch can answer instead of its result. */
export const UPDATE_SWITCH_REFUSALS = [...COMPUTE_NODE_LOOKUP_REFUSALS, "NodeAlreadyConnected", "InvalidConfiguration", ...SYNC_REFUSALS] as const;
export type UpdateSwitchError = Refusal<typeof UPDATE_SWITCH_REFUSALS>;

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
    private readonly changes: NodeChanges,
    @inject(TOKENS.KeyedLock) private readonly lock: KeyedLock,
  ) {}

  execute({ projectId, nodeId, ...input }: UpdateSwitchInput & { readonly projectId: string; readonly nodeId: string }): Promise<E.Either<UpdateSwitchError, EthernetSwitch>> {
    return this.lock.run(nodeId, async () => {
      const found = await this.lookup.nodeOf(projectId, nodeId, "ethernet_switch");
      if (E.isLeft(found)) return found;
      let sw = found.right;
      if (input.portsMapping !== undefined) {
        const ports = parseSwitchPorts(input.portsMapping);
        if (E.isLeft(ports)) return ports;
        const remapped = remapPorts(sw, ports.right);
        if (E.isLeft(remapped)) return remapped;
        sw = remapped.right;
      }
      if (input.name !== undefined) {
        const name = parseNodeName(input.name);
        if (E.isLeft(name)) return name;
        sw = renameNode(sw, name.right);
      }
      if (input.consoleType !== undefined) {
        const consoleType = readChoice(input.consoleType, "console_type", ["telnet", "none"] as const);
        if (E.isLeft(consoleType)) return consoleType;
        sw = { ...sw, consoleType: consoleType.right };
      }
      const applied = await this.changes.apply(found.right, sw);
      return E.isLeft(applied) ? applied : E.right(sw);
    });
  }
}
