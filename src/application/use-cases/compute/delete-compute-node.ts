import { inject, injectable } from "tsyringe";
import * as E from "fp-ts/lib/Either.js";
import type { ComputeNodeType } from "../../../domain/switching/compute-node.js";
import type { ComputeNodeRepository } from "../../ports/repositories.js";
import type { DataPlane } from "../../ports/data-plane.js";
import type { UdpPortPool } from "../../ports/udp-port-pool.js";
import { TOKENS } from "../../ports/tokens.js";
import { COMPUTE_NODE_LOOKUP_REFUSALS, type Refusal } from "../../errors.js";
import { KeyedLock } from "../../keyed-lock.js";
import { ComputeLookup } from "./compute-lookup.js";
import { ImpairmentOverlay } from "./impairment-overlay.js";
import { HostRuntime } from "./host-runtime.js";
import { LinuxHostRuntime } from "./linux-host-runtime.js";
import { CloudTunnelPorts } from "./cloud-tunnel-ports.js";
import type { ConsolePortPool } from "../../ports/host-processes.js";

/** What DeleteComputeNode can answer instead of its result. */
export const DELETE_COMPUTE_NODE_REFUSALS = COMPUTE_NODE_LOOKUP_REFUSALS;
export type DeleteComputeNodeError = Refusal<typeof DELETE_COMPUTE_NODE_REFUSALS>;

/** Deletes a switch, hub or host (its process ended first) whatever NIOs it has (GNS3 crashes with a 500 on non-UDP ones). */
@injectable()
export class DeleteComputeNode {
  constructor(
    private readonly lookup: ComputeLookup,
    @inject(TOKENS.ComputeNodeRepository) private readonly nodes: ComputeNodeRepository,
    @inject(TOKENS.DataPlane) private readonly dataPlane: DataPlane,
    @inject(TOKENS.UdpPortPool) private readonly pool: UdpPortPool,
    @inject(TOKENS.KeyedLock) private readonly lock: KeyedLock,
    private readonly impairments: ImpairmentOverlay,
    private readonly hosts: HostRuntime,
    private readonly linuxHosts: LinuxHostRuntime,
    private readonly tunnels: CloudTunnelPorts,
    @inject(TOKENS.ConsolePortPool) private readonly consoles: ConsolePortPool,
  ) {}

  /** `closing`: the node goes with its project's close, which GNS3 undoes by opening it: its impairments stay (ADR 0067). */
  execute({ projectId, nodeId, nodeType, closing }: { readonly projectId: string; readonly nodeId: string; readonly nodeType?: ComputeNodeType | undefined; readonly closing?: boolean }): Promise<E.Either<DeleteComputeNodeError, void>> {
    return this.lock.run(nodeId, async () => {
      const found = await this.lookup.nodeOf(projectId, nodeId, nodeType);
      if (E.isLeft(found)) return found;
      // A host's process ends before the data plane's end of its tunnel closes.
      if (found.right.nodeType === "vpcs") {
        await this.hosts.remove(nodeId);
        if (found.right.console !== null) this.consoles.release(found.right.console);
      }
      await this.dataPlane.removeNode(nodeId);
      // A cloud holds its tunnels' lports from its creation (ADR 0082).
      if (found.right.nodeType === "cloud") this.tunnels.letGo(found.right.portsMapping);
      // A Linux host's namespace goes once the data plane has let go of its TAPs.
      if (found.right.nodeType === "netemu_host") await this.linuxHosts.remove(nodeId);
      for (const nio of found.right.nios.values()) {
        if (nio.type === "nio_udp") this.pool.release(nio.lport);
      }
      await this.nodes.delete(nodeId);
      if (closing !== true) await this.impairments.forget({ nodeId });
      return E.right(undefined);
    });
  }
}
