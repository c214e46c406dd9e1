import { injectable } from "tsyringe";
import * as E from "fp-ts/lib/Either.js";
import { type EthernetHub, type HubPortEntry, createEthernetHub, defaultHubPorts, parseHubPorts } from "../../../domain/switching/ethernet-hub.js";
import { parseNodeName } from "../../../domain/switching/compute-node.js";
import { COMPUTE_PROJECT_LOOKUP_REFUSALS, type Refusal } from "../../errors.js";
import { NodeCreation } from "./node-creation.js";

/** What CreateHub can answer instead of its result. */
export const CREATE_HUB_REFUSALS = [...COMPUTE_PROJECT_LOOKUP_REFUSALS, "NodeIdInUse", "InvalidConfiguration", "ProjectFull"] as const;
export type CreateHubError = Refusal<typeof CREATE_HUB_REFUSALS>;

export interface CreateHubInput {
  readonly name: string;
  readonly nodeId?: string | undefined;
  readonly portsMapping?: readonly HubPortEntry[] | undefined;
}

/** An Ethernet hub: 8 ports named Ethernet0..7 unless ports_mapping says otherwise. */
@injectable()
export class CreateHub {
  constructor(private readonly creation: NodeCreation) {}

  execute({ projectId, ...input }: CreateHubInput & { readonly projectId: string }): Promise<E.Either<CreateHubError, EthernetHub>> {
    const name = parseNodeName(input.name);
    if (E.isLeft(name)) return Promise.resolve(name);
    const ports = input.portsMapping === undefined ? E.right(defaultHubPorts()) : parseHubPorts(input.portsMapping);
    if (E.isLeft(ports)) return Promise.resolve(ports);
    return this.creation.create(projectId, input.nodeId, "ethernet_hub", (nodeId) => createEthernetHub({ nodeId, projectId, name: name.right, portsMapping: ports.right }));
  }
}
