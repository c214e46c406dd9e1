import { injectable } from "tsyringe";
import * as E from "fp-ts/lib/Either.js";
import { type EthernetSwitch, type ConsoleType, createEthernetSwitch } from "../../../domain/switching/ethernet-switch.js";
import { type PortMappingEntry, defaultPortsMapping, parseSwitchPorts } from "../../../domain/switching/port.js";
import { parseNodeName } from "../../../domain/switching/compute-node.js";
import { readChoice, readInteger } from "../../../domain/configuration/read.js";
import { COMPUTE_PROJECT_LOOKUP_REFUSALS, type Refusal } from "../../errors.js";
import { NodeCreation } from "./node-creation.js";

/** What CreateSwitch can answer instead of its result. */
export const CREATE_SWITCH_REFUSALS = [...COMPUTE_PROJECT_LOOKUP_REFUSALS, "NodeIdInUse", "InvalidConfiguration", "ProjectFull"] as const;
export type CreateSwitchError = Refusal<typeof CREATE_SWITCH_REFUSALS>;

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
    // The embedding API's door: what the types promise is checked all the same (ADR 0053).
    const name = parseNodeName(input.name);
    if (E.isLeft(name)) return Promise.resolve(name);
    const ports = input.portsMapping === undefined ? E.right(defaultPortsMapping()) : parseSwitchPorts(input.portsMapping);
    if (E.isLeft(ports)) return Promise.resolve(ports);
    const console = input.console === undefined || input.console === null ? E.right(null) : readInteger(input.console, "console", 1, 65_535);
    if (E.isLeft(console)) return Promise.resolve(console);
    const consoleType = input.consoleType === undefined ? E.right("none" as const) : readChoice(input.consoleType, "console_type", ["telnet", "none"] as const);
    if (E.isLeft(consoleType)) return Promise.resolve(consoleType);
    return this.creation.create(projectId, input.nodeId, "ethernet_switch", (nodeId) =>
      createEthernetSwitch({ nodeId, projectId, name: name.right, console: console.right, consoleType: consoleType.right, portsMapping: ports.right }),
    );
  }
}
