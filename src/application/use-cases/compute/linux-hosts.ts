import { inject, injectable } from "tsyringe";
import * as E from "fp-ts/lib/Either.js";
import {
  type NetemuHostNode,
  createNetemuHostNode,
  hostSettingsChanged,
  parseNetemuHostSettings,
  withHostSettings,
} from "../../../domain/switching/netemu-host-node.js";
import { parseNodeName, renameNode } from "../../../domain/switching/compute-node.js";
import { readArray, readInteger, readString } from "../../../domain/configuration/read.js";
import { itemOf } from "../../../domain/configuration/invalid-configuration.js";
import type { HostCommandResult } from "../../ports/namespace-hosts.js";
import type { ServerSettings } from "../../ports/server-settings.js";
import { TOKENS } from "../../ports/tokens.js";
import { COMPUTE_NODE_LOOKUP_REFUSALS, COMPUTE_PROJECT_LOOKUP_REFUSALS, type Refusal, SYNC_REFUSALS } from "../../errors.js";
import { KeyedLock } from "../../keyed-lock.js";
import { ComputeLookup } from "./compute-lookup.js";
import { LinuxHostRuntime } from "./linux-host-runtime.js";
import { NodeChanges } from "./node-changes.js";
import { NodeCreation } from "./node-creation.js";
import { computeProjectsPath } from "./capture-path.js";

export const CREATE_LINUX_HOST_REFUSALS = [...COMPUTE_PROJECT_LOOKUP_REFUSALS, "NodeIdInUse", "InvalidConfiguration", "ProjectFull"] as const;
export type CreateLinuxHostError = Refusal<typeof CREATE_LINUX_HOST_REFUSALS>;
export const UPDATE_LINUX_HOST_REFUSALS = [...COMPUTE_NODE_LOOKUP_REFUSALS, "InvalidConfiguration", "NodeNotStopped", ...SYNC_REFUSALS] as const;
export type UpdateLinuxHostError = Refusal<typeof UPDATE_LINUX_HOST_REFUSALS>;
export const EXEC_IN_LINUX_HOST_REFUSALS = [...COMPUTE_NODE_LOOKUP_REFUSALS, "InvalidConfiguration", "NodeNotStarted", "LinuxHostFailed"] as const;
export type ExecInLinuxHostError = Refusal<typeof EXEC_IN_LINUX_HOST_REFUSALS>;

interface LinuxHostSettingsInput {
  /** `[{name, address?, mac?}]`; left out on create: one interface, eth0, without an address. */
  readonly interfaces?: unknown;
  readonly gateway?: unknown;
}

export interface CreateLinuxHostInput extends LinuxHostSettingsInput {
  readonly name: string;
  readonly nodeId?: string | undefined;
  /** Its directory in the controller's project, when the in-process controller makes it (as for VPCS). */
  readonly directory?: string | undefined;
}

export interface UpdateLinuxHostInput extends LinuxHostSettingsInput {
  readonly name?: string | undefined;
}

/** A command to run inside a host: argv (no shell), a time bound in seconds, an output bound in bytes. */
export interface ExecInput {
  readonly argv: unknown;
  readonly timeout?: unknown;
  readonly maxOutputBytes?: unknown;
}

/** Bounds of exec: a command runs at most 10 minutes, its output is kept up to 16 MiB (stdout and stderr together). */
export const EXEC_LIMITS = { argvItems: 256, argLength: 65_536, defaultTimeoutSeconds: 30, maxTimeoutSeconds: 600, defaultOutputBytes: 1 << 20, maxOutputBytes: 16 << 20 } as const;

/** A Linux host's directory on the compute, laid out as a VPCS's (ADR 0060). */
function hostDirectory(projectsPath: string, projectId: string, nodeId: string): string {
  return `${computeProjectsPath(projectsPath)}/${projectId}/project-files/netemu_host/${nodeId}`;
}

/** netemu's Linux hosts on the compute (`/v2/compute/projects/{id}/netemu_host/nodes`): made stopped. */
@injectable()
export class LinuxHostNodes {
  constructor(
    private readonly creation: NodeCreation,
    private readonly lookup: ComputeLookup,
    private readonly changes: NodeChanges,
    private readonly runtime: LinuxHostRuntime,
    @inject(TOKENS.ServerSettings) private readonly settings: ServerSettings,
    @inject(TOKENS.KeyedLock) private readonly lock: KeyedLock,
  ) {}

  async create({ projectId, ...input }: CreateLinuxHostInput & { readonly projectId: string }): Promise<E.Either<CreateLinuxHostError, NetemuHostNode>> {
    const name = parseNodeName(input.name);
    if (E.isLeft(name)) return name;
    const settings = parseNetemuHostSettings(input.interfaces, input.gateway);
    if (E.isLeft(settings)) return settings;
    return this.creation.create(projectId, input.nodeId, "netemu_host", (nodeId) =>
      createNetemuHostNode({ nodeId, projectId, name: name.right, directory: input.directory ?? hostDirectory(this.settings.projectsPath, projectId, nodeId), ...settings.right }),
    );
  }

  update({ projectId, nodeId, ...input }: UpdateLinuxHostInput & { readonly projectId: string; readonly nodeId: string }): Promise<E.Either<UpdateLinuxHostError, NetemuHostNode>> {
    return this.lock.run(nodeId, async () => {
      const found = await this.lookup.nodeOf(projectId, nodeId, "netemu_host");
      if (E.isLeft(found)) return found;
      let node = found.right;
      if (input.name !== undefined && input.name !== node.name) {
        const name = parseNodeName(input.name);
        if (E.isLeft(name)) return name;
        node = renameNode(node, name.right);
      }
      if (input.interfaces !== undefined || input.gateway !== undefined) {
        const settings = parseNetemuHostSettings(input.interfaces === undefined ? node.interfaces : input.interfaces, input.gateway === undefined ? node.gateway : input.gateway);
        if (E.isLeft(settings)) return settings;
        if (hostSettingsChanged(node, settings.right)) {
          // The namespace is wired once, at start: what it is made of changes while it is stopped.
          if (node.status !== "stopped") return E.left({ _tag: "NodeNotStopped", nodeName: node.name, change: "interfaces and gateway" });
          const dropped = [...node.nios.keys()].filter((p) => p >= settings.right.interfaces.length);
          if (dropped.length > 0) return E.left({ _tag: "InvalidConfiguration", field: "interfaces", rule: { rule: "minimum" as const, limit: Math.max(...dropped) + 1 }, got: settings.right.interfaces.length });
          node = withHostSettings(node, settings.right);
        }
      }
      const applied = await this.changes.apply(found.right, node);
      return E.isLeft(applied) ? applied : E.right(node);
    });
  }

  /** Runs a command inside a started host: argv as given (no shell), bounded in time and output. */
  exec({ projectId, nodeId, ...input }: ExecInput & { readonly projectId: string; readonly nodeId: string }): Promise<E.Either<ExecInLinuxHostError, HostCommandResult>> {
    // No lock: a command may run for minutes; a stop meanwhile kills it with the namespace.
    return (async () => {
      const found = await this.lookup.nodeOf(projectId, nodeId, "netemu_host");
      if (E.isLeft(found)) return found;
      const argvList = readArray(input.argv, "argv", EXEC_LIMITS.argvItems);
      if (E.isLeft(argvList)) return argvList;
      if (argvList.right.length === 0) return E.left({ _tag: "InvalidConfiguration", field: "argv", rule: { rule: "min_length" as const, limit: 1 }, got: argvList.right });
      const argv: string[] = [];
      for (const [i, raw] of argvList.right.entries()) {
        const arg = readString(raw, itemOf("argv", i), i === 0 ? 1 : 0, EXEC_LIMITS.argLength);
        if (E.isLeft(arg)) return arg;
        argv.push(arg.right);
      }
      const timeout = input.timeout === undefined || input.timeout === null ? E.right(EXEC_LIMITS.defaultTimeoutSeconds) : readInteger(input.timeout, "timeout", 1, EXEC_LIMITS.maxTimeoutSeconds);
      if (E.isLeft(timeout)) return timeout;
      const bound = input.maxOutputBytes === undefined || input.maxOutputBytes === null ? E.right(EXEC_LIMITS.defaultOutputBytes) : readInteger(input.maxOutputBytes, "max_output_bytes", 1, EXEC_LIMITS.maxOutputBytes);
      if (E.isLeft(bound)) return bound;
      if (found.right.status !== "started") return E.left({ _tag: "NodeNotStarted", nodeName: found.right.name, nodeType: "netemu_host" });
      return this.runtime.exec(found.right, argv, timeout.right * 1000, bound.right);
    })();
  }
}
