import { inject, injectable } from "tsyringe";
import type { CloudPort } from "../../../domain/switching/cloud-node.js";
import type { ComputeNodeRepository } from "../../ports/repositories.js";
import type { UdpPortPool } from "../../ports/udp-port-pool.js";
import { TOKENS } from "../../ports/tokens.js";
import type { ErrorOf } from "../../errors.js";

/**
 * A cloud's UDP tunnel lports in the compute's UDP pool (ADR 0082): held from the cloud's creation, so that
 * no link and no other cloud gets one, and given back when its ports change or it goes.
 */
@injectable()
export class CloudTunnelPorts {
  constructor(
    @inject(TOKENS.ComputeNodeRepository) private readonly nodes: ComputeNodeRepository,
    @inject(TOKENS.UdpPortPool) private readonly pool: UdpPortPool,
  ) {}

  /** The first UDP tunnel whose lport someone else holds (a link's NIO, another cloud's port), if any. */
  async taken(nodeName: string, ports: readonly CloudPort[], own: readonly CloudPort[]): Promise<ErrorOf<"CloudLportInUse"> | undefined> {
    const held = new Set(this.pool.reserved());
    for (const p of own) if (p.type === "udp") held.delete(p.lport);
    for (const n of await this.nodes.list()) for (const nio of n.nios.values()) if (nio.type === "nio_udp") held.add(nio.lport);
    for (const p of ports) if (p.type === "udp" && held.has(p.lport)) return { _tag: "CloudLportInUse", nodeName, portName: p.name, lport: p.lport };
    return undefined;
  }

  hold(projectId: string, ports: readonly CloudPort[]): void {
    for (const p of ports) if (p.type === "udp") this.pool.claim(p.lport, projectId);
  }

  letGo(ports: readonly CloudPort[]): void {
    for (const p of ports) if (p.type === "udp") this.pool.release(p.lport);
  }
}
