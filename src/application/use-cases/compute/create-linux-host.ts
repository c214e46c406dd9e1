import { inject, injectable } from "tsyringe";
import * as E from "fp-ts/lib/Either.js";
import { type NetemuHostNode, createNetemuHostNode, parseNetemuHostSettings } from "../../../domain/switching/netemu-host-node.js";
import { parseNodeName } from "../../../domain/switching/compute-node.js";
import type { ServerSettings } from "../../ports/server-settings.js";
import { TOKENS } from "../../ports/tokens.js";
import { COMPUTE_PROJECT_LOOKUP_REFUSALS, type Refusal } from "../../errors.js";
import { type HostCreationInput, NodeCreation } from "./node-creation.js";
import { computeNodeDirectory } from "./capture-path.js";

export const CREATE_LINUX_HOST_REFUSALS = [...COMPUTE_PROJECT_LOOKUP_REFUSALS, "NodeIdInUse", "InvalidConfiguration", "ProjectFull"] as const;
export type CreateLinuxHostError = Refusal<typeof CREATE_LINUX_HOST_REFUSALS>;

/** A Linux host's interfaces and gateway as a client sends them, parsed by the domain (ADR 0087). */
export interface LinuxHostSettingsInput {
  /** `[{name, address?, mac?}]`; left out on create: one interface, eth0, without an address. */
  readonly interfaces?: unknown;
  readonly gateway?: unknown;
}

export type CreateLinuxHostInput = HostCreationInput & LinuxHostSettingsInput;

/** A netemu Linux host made on the compute (`POST /v2/compute/projects/{id}/netemu_host/nodes`), stopped. */
@injectable()
export class CreateLinuxHost {
  constructor(
    private readonly creation: NodeCreation,
    @inject(TOKENS.ServerSettings) private readonly settings: ServerSettings,
  ) {}

  async execute({ projectId, ...input }: CreateLinuxHostInput & { readonly projectId: string }): Promise<E.Either<CreateLinuxHostError, NetemuHostNode>> {
    const name = parseNodeName(input.name);
    if (E.isLeft(name)) return name;
    const settings = parseNetemuHostSettings(input.interfaces, input.gateway);
    if (E.isLeft(settings)) return settings;
    return this.creation.create(projectId, input.nodeId, "netemu_host", (nodeId) =>
      createNetemuHostNode({ nodeId, projectId, name: name.right, directory: input.directory ?? computeNodeDirectory(this.settings.projectsPath, projectId, "netemu_host", nodeId), ...settings.right }),
    );
  }
}
