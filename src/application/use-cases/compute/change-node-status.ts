import { inject, injectable } from "tsyringe";
import * as E from "fp-ts/lib/Either.js";
import { type ComputeNodeType, type NodeStatus, withStatus } from "../../../domain/switching/compute-node.js";
import { TOKENS } from "../../ports/tokens.js";
import { COMPUTE_NODE_LOOKUP_REFUSALS, type Refusal } from "../../errors.js";
import { KeyedLock } from "../../keyed-lock.js";
import { ComputeLookup } from "./compute-lookup.js";
import { NodeChanges } from "./node-changes.js";
import { HOST_START_REFUSALS, HostRuntime } from "./host-runtime.js";
import { LINUX_HOST_START_REFUSALS, LinuxHostRuntime } from "./linux-host-runtime.js";

/** What ChangeNodeStatus can answer instead of its result. */
export const CHANGE_NODE_STATUS_REFUSALS = [...COMPUTE_NODE_LOOKUP_REFUSALS, ...HOST_START_REFUSALS, ...LINUX_HOST_START_REFUSALS] as const;
export type ChangeNodeStatusError = Refusal<typeof CHANGE_NODE_STATUS_REFUSALS>;

/**
 * start, stop and suspend a switch or hub: only a started node forwards frames (ADR 0032). The
 * controller learns the new status from the node.updated notification, as it does for VPCS.
 */
@injectable()
export class ChangeNodeStatus {
  constructor(
    private readonly lookup: ComputeLookup,
    private readonly changes: NodeChanges,
    private readonly hosts: HostRuntime,
    private readonly linuxHosts: LinuxHostRuntime,
    @inject(TOKENS.KeyedLock) private readonly lock: KeyedLock,
  ) {}

  /** Reload: a host's process stops and starts again (GNS3's reload); a switch or hub stays as it is. */
  reload({ projectId, nodeId, nodeType }: { readonly projectId: string; readonly nodeId: string; readonly nodeType?: ComputeNodeType | undefined }): Promise<E.Either<ChangeNodeStatusError, void>> {
    return this.lock.run(nodeId, async () => {
      const found = await this.lookup.nodeOf(projectId, nodeId, nodeType);
      if (E.isLeft(found)) return found;
      if (found.right.nodeType === "netemu_host") {
        const stopped = await this.linuxHosts.stop(found.right);
        if (E.isLeft(stopped)) return stopped;
        return E.map(() => undefined)(await this.linuxHosts.start(stopped.right));
      }
      if (found.right.nodeType !== "vpcs") return E.right(undefined);
      const stopped = await this.hosts.stop(found.right);
      if (E.isLeft(stopped)) return stopped;
      return E.map(() => undefined)(await this.hosts.start(stopped.right));
    });
  }

  execute({ projectId, nodeId, status, nodeType }: { readonly projectId: string; readonly nodeId: string; readonly status: NodeStatus; readonly nodeType?: ComputeNodeType | undefined }): Promise<E.Either<ChangeNodeStatusError, void>> {
    return this.lock.run(nodeId, async () => {
      const found = await this.lookup.nodeOf(projectId, nodeId, nodeType);
      if (E.isLeft(found)) return found;
      const node = found.right;
      if (node.status === status) return E.right(undefined);
      // A cloud is always started: GNS3's stop and suspend do nothing to it (cloud_handler.py).
      if (node.nodeType === "cloud") return E.right(undefined);
      if (node.nodeType === "vpcs") {
        // VPCS has nothing to suspend: GNS3 answers 204 and the process runs on.
        if (status === "suspended") return E.right(undefined);
        const changed = status === "started" ? await this.hosts.start(node) : await this.hosts.stop(node);
        return E.map(() => undefined)(changed);
      }
      if (node.nodeType === "netemu_host") {
        // A namespace has nothing to suspend either: its programs run on, as a VPCS does.
        if (status === "suspended") return E.right(undefined);
        const changed = status === "started" ? await this.linuxHosts.start(node) : await this.linuxHosts.stop(node);
        return E.map(() => undefined)(changed);
      }
      return this.changes.apply(node, withStatus(node, status));
    });
  }
}
