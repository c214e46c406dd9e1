import { inject, injectable } from "tsyringe";
import * as E from "fp-ts/lib/Either.js";
import { type CloudNode, type CloudPort, DEFAULT_REMOTE_CONSOLE, type RemoteConsole, createCloudNode, numberCloudPorts, parseCloudPorts, parseRemoteConsole, remapCloudPorts } from "../../../domain/switching/cloud-node.js";
import { parseNodeName, renameNode } from "../../../domain/switching/compute-node.js";
import type { ComputeNodeRepository } from "../../ports/repositories.js";
import type { NetworkInterfaces } from "../../ports/host.js";
import type { UdpPortPool } from "../../ports/udp-port-pool.js";
import type { ServerSettings } from "../../ports/server-settings.js";
import { TOKENS } from "../../ports/tokens.js";
import { COMPUTE_NODE_LOOKUP_REFUSALS, COMPUTE_PROJECT_LOOKUP_REFUSALS, type ErrorOf, type Refusal, SYNC_REFUSALS } from "../../errors.js";
import { KeyedLock } from "../../keyed-lock.js";
import { ComputeLookup } from "./compute-lookup.js";
import { NodeChanges } from "./node-changes.js";
import { NodeCreation } from "./node-creation.js";
import { computeProjectsPath } from "./capture-path.js";

/** What CloudNodes.create can answer instead of its result. */
export const CREATE_CLOUD_REFUSALS = [...COMPUTE_PROJECT_LOOKUP_REFUSALS, "NodeIdInUse", "InvalidConfiguration", "ProjectFull", "CloudLportInUse"] as const;
export type CreateCloudError = Refusal<typeof CREATE_CLOUD_REFUSALS>;
/** What CloudNodes.update can answer instead of its result. */
export const UPDATE_CLOUD_REFUSALS = [...COMPUTE_NODE_LOOKUP_REFUSALS, "InvalidConfiguration", "NodeAlreadyConnected", "CloudLportInUse", ...SYNC_REFUSALS] as const;
export type UpdateCloudError = Refusal<typeof UPDATE_CLOUD_REFUSALS>;

/** GNS3's remote_console_* keys, each optional. */
export interface RemoteConsoleInput {
  readonly remoteConsoleHost?: string | undefined;
  readonly remoteConsolePort?: number | null | undefined;
  readonly remoteConsoleType?: string | undefined;
  readonly remoteConsoleHttpPath?: string | undefined;
}

export interface CreateCloudInput extends RemoteConsoleInput {
  readonly name: string;
  readonly nodeId?: string | undefined;
  /** GNS3's entries as sent (unknown: the domain parses them); none or empty: the host's interfaces. */
  readonly portsMapping?: unknown;
  readonly directory?: string | undefined;
}

export interface UpdateCloudInput extends RemoteConsoleInput {
  readonly name?: string | undefined;
  readonly portsMapping?: unknown;
}

function remoteConsoleOf(base: RemoteConsole, input: RemoteConsoleInput): E.Either<ErrorOf<"InvalidConfiguration">, RemoteConsole> {
  const raw = {
    host: input.remoteConsoleHost ?? base.host,
    port: input.remoteConsolePort === undefined ? base.port : input.remoteConsolePort,
    type: input.remoteConsoleType ?? base.type,
    httpPath: input.remoteConsoleHttpPath ?? base.httpPath,
  };
  return E.mapLeft((e: ErrorOf<"InvalidConfiguration">) => ({ ...e, field: e.field.replace(/^remote_console\.(\w+)$/, (_, k: string) => `remote_console_${k === "httpPath" ? "http_path" : k}`) }))(parseRemoteConsole(raw, "remote_console"));
}

/**
 * GNS3's Cloud on the compute (`/v2/compute/projects/{id}/cloud/nodes`, ADR 0082): made started, its
 * ports the entries given (renumbered by place, as GNS3 does) or, when none are, one Ethernet port per
 * host interface that is not special. Each UDP tunnel's lport is held for the cloud from its creation,
 * so that no link and no other cloud gets it; its inside end opens when the port is linked.
 */
@injectable()
export class CloudNodes {
  constructor(
    private readonly creation: NodeCreation,
    private readonly lookup: ComputeLookup,
    private readonly changes: NodeChanges,
    @inject(TOKENS.ComputeNodeRepository) private readonly nodes: ComputeNodeRepository,
    @inject(TOKENS.UdpPortPool) private readonly pool: UdpPortPool,
    @inject(TOKENS.NetworkInterfaces) private readonly interfaces: NetworkInterfaces,
    @inject(TOKENS.ServerSettings) private readonly settings: ServerSettings,
    @inject(TOKENS.KeyedLock) private readonly lock: KeyedLock,
  ) {}

  /** The host's interfaces as a new cloud's ports (GNS3 leaves out the special ones: loopback, bridges, ...). */
  private hostPorts(): readonly CloudPort[] {
    return this.interfaces
      .list()
      .filter((i) => !i.special)
      .map((i, n) => ({ name: i.name, port_number: n, type: i.type, interface: i.name }));
  }

  /** The first UDP tunnel whose lport someone else holds (a link's NIO, another cloud's port), if any. */
  private async lportTaken(nodeName: string, ports: readonly CloudPort[], own: readonly CloudPort[]): Promise<ErrorOf<"CloudLportInUse"> | undefined> {
    const held = new Set(this.pool.reserved());
    for (const p of own) if (p.type === "udp") held.delete(p.lport);
    for (const n of await this.nodes.list()) for (const nio of n.nios.values()) if (nio.type === "nio_udp") held.add(nio.lport);
    for (const p of ports) if (p.type === "udp" && held.has(p.lport)) return { _tag: "CloudLportInUse", nodeName, portName: p.name, lport: p.lport };
    return undefined;
  }

  private hold(projectId: string, ports: readonly CloudPort[]): void {
    for (const p of ports) if (p.type === "udp") this.pool.claim(p.lport, projectId);
  }

  private letGo(ports: readonly CloudPort[]): void {
    for (const p of ports) if (p.type === "udp") this.pool.release(p.lport);
  }

  async create({ projectId, ...input }: CreateCloudInput & { readonly projectId: string }): Promise<E.Either<CreateCloudError, CloudNode>> {
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
      const taken = await this.lportTaken(name.right, ports, []);
      if (taken !== undefined) return E.left(taken);
    }
    const made = await this.creation.create(projectId, input.nodeId, "cloud", (nodeId) =>
      createCloudNode({ nodeId, projectId, name: name.right, portsMapping: ports, remoteConsole: remote.right, directory: input.directory ?? `${computeProjectsPath(this.settings.projectsPath)}/${projectId}/project-files/builtin/${nodeId}` }),
    );
    if (E.isRight(made) && known === undefined) this.hold(projectId, made.right.portsMapping);
    return made;
  }

  update({ projectId, nodeId, ...input }: UpdateCloudInput & { readonly projectId: string; readonly nodeId: string }): Promise<E.Either<UpdateCloudError, CloudNode>> {
    return this.lock.run(nodeId, async () => {
      const found = await this.lookup.nodeOf(projectId, nodeId, "cloud");
      if (E.isLeft(found)) return found;
      const before = found.right;
      let node = before;
      if (input.name !== undefined && input.name !== node.name) {
        const name = parseNodeName(input.name);
        if (E.isLeft(name)) return name;
        node = renameNode(node, name.right);
      }
      if (input.portsMapping !== undefined) {
        const ports = parseCloudPorts(input.portsMapping);
        if (E.isLeft(ports)) return ports;
        const remapped = remapCloudPorts(node, ports.right);
        if (E.isLeft(remapped)) return remapped;
        node = remapped.right;
      }
      const remote = remoteConsoleOf(node.remoteConsole, input);
      if (E.isLeft(remote)) return remote;
      node = { ...node, remoteConsole: remote.right };
      if (node.portsMapping !== before.portsMapping) {
        const taken = await this.lportTaken(node.name, node.portsMapping, before.portsMapping);
        if (taken !== undefined) return E.left(taken);
      }
      const applied = await this.changes.apply(before, node);
      if (E.isLeft(applied)) return applied;
      if (node.portsMapping !== before.portsMapping) {
        this.letGo(before.portsMapping);
        this.hold(projectId, node.portsMapping);
      }
      return E.right(node);
    });
  }
}
