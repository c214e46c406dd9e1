import { injectable } from "tsyringe";
import * as E from "fp-ts/lib/Either.js";
import type { ComputeNode } from "../../../domain/switching/compute-node.js";
import type { ConsoleType } from "../../../domain/switching/ethernet-switch.js";
import type { NodePortEntry, NodeType } from "../../../domain/topology/node.js";
import type { PortMappingEntry } from "../../../domain/switching/port.js";
import type { HubPortEntry } from "../../../domain/switching/ethernet-hub.js";
import type { Refusal } from "../../errors.js";
import { CREATE_SWITCH_REFUSALS, CreateSwitch } from "../compute/create-switch.js";
import { CREATE_HUB_REFUSALS, CreateHub } from "../compute/create-hub.js";
import { UPDATE_SWITCH_REFUSALS, UpdateSwitch } from "../compute/update-switch.js";
import { UPDATE_HUB_REFUSALS, UpdateHub } from "../compute/update-hub.js";

import { CREATE_VPCS_REFUSALS, CreateVpcs } from "../compute/create-vpcs.js";
import { UPDATE_VPCS_REFUSALS, UpdateVpcs } from "../compute/update-vpcs.js";
import { CREATE_CLOUD_REFUSALS, CreateCloud } from "../compute/create-cloud.js";
import { UPDATE_CLOUD_REFUSALS, UpdateCloud } from "../compute/update-cloud.js";
import type { RemoteConsoleInput } from "../compute/cloud-remote-console.js";
import { CREATE_LINUX_HOST_REFUSALS, CreateLinuxHost } from "../compute/create-linux-host.js";
import { UPDATE_LINUX_HOST_REFUSALS, UpdateLinuxHost } from "../compute/update-linux-host.js";

/** What creating or changing a node on the local compute can answer, whatever its type. */
export const COMPUTE_NODE_CREATE_REFUSALS = [...CREATE_SWITCH_REFUSALS, ...CREATE_HUB_REFUSALS, ...CREATE_VPCS_REFUSALS, ...CREATE_CLOUD_REFUSALS, ...CREATE_LINUX_HOST_REFUSALS] as const;
export const COMPUTE_NODE_UPDATE_REFUSALS = [...UPDATE_SWITCH_REFUSALS, ...UPDATE_HUB_REFUSALS, ...UPDATE_VPCS_REFUSALS, ...UPDATE_CLOUD_REFUSALS, ...UPDATE_LINUX_HOST_REFUSALS] as const;
export type ComputeNodeCreateError = Refusal<typeof COMPUTE_NODE_CREATE_REFUSALS>;
export type ComputeNodeUpdateError = Refusal<typeof COMPUTE_NODE_UPDATE_REFUSALS>;

interface ComputeNodeSettings extends RemoteConsoleInput {
  readonly name?: string | undefined;
  readonly consoleType?: ConsoleType | undefined;
  readonly portsMapping?: readonly NodePortEntry[] | undefined;
  /** A host's console port: the one it had (a project opened again) or one a client asked for. */
  readonly console?: number | null | undefined;
  /** A Linux host's `properties.interfaces` and `properties.gateway`, parsed by its use case. */
  readonly interfaces?: unknown;
  readonly gateway?: unknown;
}

/** What only a new host is made with: its startup script, and its directory in the controller's project. */
interface HostCreation {
  readonly startupScript?: string | undefined;
  readonly directory?: string | undefined;
}

function remoteConsoleOf(s: RemoteConsoleInput): RemoteConsoleInput {
  return { remoteConsoleHost: s.remoteConsoleHost, remoteConsolePort: s.remoteConsolePort, remoteConsoleType: s.remoteConsoleType, remoteConsoleHttpPath: s.remoteConsoleHttpPath };
}

/**
 * How the controller creates and changes its nodes on the local compute, whatever their type: the
 * one place that picks the switch's, the hub's or the host's use case.
 */
@injectable()
export class ComputeNodeCommands {
  constructor(
    private readonly createSwitch: CreateSwitch,
    private readonly createHub: CreateHub,
    private readonly updateSwitch: UpdateSwitch,
    private readonly updateHub: UpdateHub,
    private readonly createVpcs: CreateVpcs,
    private readonly updateVpcs: UpdateVpcs,
    private readonly createLinuxHost: CreateLinuxHost,
    private readonly updateLinuxHost: UpdateLinuxHost,
    private readonly createCloud: CreateCloud,
    private readonly updateCloud: UpdateCloud,
  ) {}

  // The entries go as given: the switch's or hub's use case parses them (ADR 0053), refusing what does not fit its type.
  async create(projectId: string, nodeId: string, nodeType: NodeType, settings: ComputeNodeSettings & HostCreation & { readonly name: string }): Promise<E.Either<ComputeNodeCreateError, ComputeNode>> {
    const ports = settings.portsMapping;
    switch (nodeType) {
      case "ethernet_switch":
        return this.createSwitch.execute({ projectId, name: settings.name, nodeId, consoleType: settings.consoleType, portsMapping: ports as readonly PortMappingEntry[] | undefined });
      case "ethernet_hub":
        return this.createHub.execute({ projectId, name: settings.name, nodeId, portsMapping: ports as readonly HubPortEntry[] | undefined });
      case "vpcs": {
        const vpcs = { projectId, nodeId, name: settings.name, consoleType: settings.consoleType, startupScript: settings.startupScript, directory: settings.directory };
        const made = await this.createVpcs.execute({ ...vpcs, console: settings.console });
        // A project opened again whose console port another program took meanwhile gets another one, as GNS3 does.
        const taken = E.isLeft(made) && made.left._tag === "ConsolePortUnavailable" && settings.console !== undefined && settings.console !== null;
        return taken ? this.createVpcs.execute(vpcs) : made;
      }
      case "cloud":
        return this.createCloud.execute({ projectId, nodeId, name: settings.name, portsMapping: ports, directory: settings.directory, ...remoteConsoleOf(settings) });
      case "netemu_host":
        return this.createLinuxHost.execute({ projectId, nodeId, name: settings.name, interfaces: settings.interfaces, gateway: settings.gateway, directory: settings.directory });
    }
  }

  update(projectId: string, nodeId: string, nodeType: NodeType, settings: ComputeNodeSettings): Promise<E.Either<ComputeNodeUpdateError, ComputeNode>> {
    const ports = settings.portsMapping;
    switch (nodeType) {
      case "ethernet_switch":
        return this.updateSwitch.execute({ projectId, nodeId, name: settings.name, consoleType: settings.consoleType, portsMapping: ports as readonly PortMappingEntry[] | undefined });
      case "ethernet_hub":
        return this.updateHub.execute({ projectId, nodeId, name: settings.name, portsMapping: ports as readonly HubPortEntry[] | undefined });
      case "vpcs":
        return this.updateVpcs.execute({ projectId, nodeId, name: settings.name, consoleType: settings.consoleType, console: settings.console });
      case "netemu_host":
        return this.updateLinuxHost.execute({ projectId, nodeId, name: settings.name, interfaces: settings.interfaces, gateway: settings.gateway });
      case "cloud":
        return this.updateCloud.execute({ projectId, nodeId, name: settings.name, portsMapping: ports, ...remoteConsoleOf(settings) });
    }
  }
}
