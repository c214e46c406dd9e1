import { inject, injectable } from "tsyringe";
import * as E from "fp-ts/lib/Either.js";
import { type NetemuHostNode, hostSettingsChanged, parseNetemuHostSettings, withHostSettings } from "../../../domain/switching/netemu-host-node.js";
import { parseNodeName, renameNode } from "../../../domain/switching/compute-node.js";
import { TOKENS } from "../../ports/tokens.js";
import { COMPUTE_NODE_LOOKUP_REFUSALS, type Refusal, SYNC_REFUSALS } from "../../errors.js";
import { KeyedLock } from "../../keyed-lock.js";
import { ComputeLookup } from "./compute-lookup.js";
import { NodeChanges } from "./node-changes.js";
import type { LinuxHostSettingsInput } from "./create-linux-host.js";

export const UPDATE_LINUX_HOST_REFUSALS = [...COMPUTE_NODE_LOOKUP_REFUSALS, "InvalidConfiguration", "NodeNotStopped", ...SYNC_REFUSALS] as const;
export type UpdateLinuxHostError = Refusal<typeof UPDATE_LINUX_HOST_REFUSALS>;

export interface UpdateLinuxHostInput extends LinuxHostSettingsInput {
  readonly name?: string | undefined;
}

/** A Linux host renamed, or its interfaces and gateway changed while it is stopped (ADR 0087). */
@injectable()
export class UpdateLinuxHost {
  constructor(
    private readonly lookup: ComputeLookup,
    private readonly changes: NodeChanges,
    @inject(TOKENS.KeyedLock) private readonly lock: KeyedLock,
  ) {}

  execute({ projectId, nodeId, ...input }: UpdateLinuxHostInput & { readonly projectId: string; readonly nodeId: string }): Promise<E.Either<UpdateLinuxHostError, NetemuHostNode>> {
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
}
