import { inject, injectable } from "tsyringe";
import * as E from "fp-ts/lib/Either.js";
import { type CloudNode, type CloudPort, DEFAULT_REMOTE_CONSOLE, createCloudNode, numberCloudPorts, parseCloudPorts } from "../../../domain/switching/cloud-node.js";
import { parseNodeName } from "../../../domain/switching/compute-node.js";
import type { ComputeNodeRepository } from "../../ports/repositories.js";
import type { NetworkInterfaces } from "../../ports/host.js";
import type { ServerSettings } from "../../ports/server-settings.js";
import { TOKENS } from "../../ports/tokens.js";
import { COMPUTE_PROJECT_LOOKUP_REFUSALS, type Refusal } from "../../errors.js";
import { type HostCreationInput, NodeCreation } from "./node-creation.js";
import { computeNodeDirectory } from "./capture-path.js";
import { CloudTunnelPorts } from "./cloud-tunnel-ports.js";
import { type RemoteConsoleInput, remoteConsoleOf } from "./cloud-remote-console.js";

/** What CreateCloud can answer instead of its result. */
export const CREATE_CLOUD_REFUSALS = [...COMPUTE_PROJECT_LOOKUP_REFUSALS, "NodeIdInUse", "InvalidConfiguration", "ProjectFull", "CloudLportInUse"] as const;
export type CreateCloudError = Refusal<typeof CREATE_CLOUD_REFUSALS>;

export interface CreateCloudInput extends HostCreationInput, RemoteConsoleInput {
  /** GNS3's entries as sent (unknown: the domain parses them); none or empty: the host's interfaces. */
  readonly portsMapping?: unknown;
}

/**
 * GNS3's Cloud made on the compute (`POST /v2/compute/projects/{id}/cloud/nodes`, ADR 0082): started, its
 * ports the entries given (renumbered by place, as GNS3 does) or, when none are, one Ethernet port per
 * host interface that is not special; its UDP tunnels' lports held from now on.
 */
@injectable()
export class CreateCloud {
  constructor(
    private readonly creation: NodeCreation,
    private readonly tunnels: CloudTunnelPorts,
    @inject(TOKENS.ComputeNodeRepository) private readonly nodes: ComputeNodeRepository,
    @inject(TOKENS.NetworkInterfaces) private readonly interfaces: NetworkInterfaces,
    @inject(TOKENS.ServerSettings) private readonly settings: ServerSettings,
  ) {}

  /** The host's interfaces as a new cloud's ports (GNS3 leaves out the special ones: loopback, bridges, ...). */
  private hostPorts(): readonly CloudPort[] {
    return this.interfaces
      .list()
      .filter((i) => !i.special)
      .map((i, n) => ({ name: i.name, port_number: n, type: i.type, interface: i.name }));
  }

  async execute({ projectId, ...input }: CreateCloudInput & { readonly projectId: string }): Promise<E.Either<CreateCloudError, CloudNode>> {
    const name = parseNodeName(input.name);
    if (E.isLeft(name)) return name;
    const given = input.portsMapping === undefined || (Array.isArray(input.portsMapping) && input.portsMapping.length === 0) ? E.right(this.hostPorts()) : parseCloudPorts(input.portsMapping);
    if (E.isLeft(given)) return given;
    const ports = numberCloudPorts(given.right);
    const remote = remoteConsoleOf(DEFAULT_REMOTE_CONSOLE, input);
    if (E.isLeft(remote)) return remote;
    // An id already known answers that node unchanged (as GNS3 does): its lports are its own.
    const known = input.nodeId === undefined ? undefined : await this.nodes.get(input.nodeId);
    if (known === undefined) {
      const taken = await this.tunnels.taken(name.right, ports, []);
      if (taken !== undefined) return E.left(taken);
    }
    const made = await this.creation.create(projectId, input.nodeId, "cloud", (nodeId) =>
      createCloudNode({ nodeId, projectId, name: name.right, portsMapping: ports, remoteConsole: remote.right, directory: input.directory ?? computeNodeDirectory(this.settings.projectsPath, projectId, "cloud", nodeId) }),
    );
    if (E.isRight(made) && known === undefined) this.tunnels.hold(projectId, made.right.portsMapping);
    return made;
  }
}
