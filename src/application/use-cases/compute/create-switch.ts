import { injectable } from "tsyringe";
import type * as E from "fp-ts/lib/Either.js";
import { type EthernetSwitch, type ConsoleType, createEthernetSwitch } from "../../../domain/switching/ethernet-switch.js";
import { type PortMappingEntry, defaultPortsMapping } from "../../../domain/switching/port.js";
import type { ComputeProjectLookupError, ErrorOf } from "../../errors.js";
import { NodeCreation } from "./node-creation.js";

/** What CreateSwitch can answer instead of its result. */
export type CreateSwitchError = ComputeProjectLookupError | ErrorOf<"NodeIdInUse">;

export interface CreateSwitchInput {
  readonly name: string;
  readonly nodeId?: string | undefined;
  readonly console?: number | null | undefined;
  readonly consoleType?: ConsoleType | undefined;
  readonly portsMapping?: readonly PortMappingEntry[] | undefined;
}

/** An Ethernet switch: 8 access ports in VLAN 1 unless ports_mapping says otherwise. */
@injectable()
export class CreateSwitch {
  constructor(private readonly creation: NodeCreation) {}

  execute({ projectId, ...input }: CreateSwitchInput & { readonly projectId: string }): Promise<E.Either<CreateSwitchError, EthernetSwitch>> {
    return this.creation.create(projectId, input.nodeId, "ethernet_switch", (nodeId) =>
      createEthernetSwitch({
        nodeId,
        projectId,
        name: input.name,
        console: input.console ?? null,
        consoleType: input.consoleType ?? "none",
        portsMapping: input.portsMapping ?? defaultPortsMapping(),
      }),
    );
  }
}
