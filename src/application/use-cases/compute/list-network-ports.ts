import { inject, injectable } from "tsyringe";
import type { ComputeNodeRepository } from "../../ports/repositories.js";
import type { UdpPortPool } from "../../ports/udp-port-pool.js";
import { TOKENS } from "../../ports/tokens.js";

export interface NetworkPorts {
  readonly udpPortRange: readonly [number, number];
  /** Reserved for links or bound by NIOs. */
  readonly udpPorts: readonly number[];
  /** The console ports of switches (given by clients, never opened) and of hosts (their processes listen on them). */
  readonly consolePorts: readonly number[];
}

/** The ports this compute holds, for the controller's GET /v2/computes/{id}/ports. */
@injectable()
export class ListNetworkPorts {
  constructor(
    @inject(TOKENS.UdpPortPool) private readonly pool: UdpPortPool,
    @inject(TOKENS.ComputeNodeRepository) private readonly nodes: ComputeNodeRepository,
  ) {}

  async execute(): Promise<NetworkPorts> {
    const consolePorts: number[] = [];
    for (const node of await this.nodes.list()) {
      if (node.nodeType !== "ethernet_hub" && node.console !== null) consolePorts.push(node.console);
    }
    return { udpPortRange: [this.pool.range.start, this.pool.range.end], udpPorts: this.pool.reserved(), consolePorts: consolePorts.sort((a, b) => a - b) };
  }
}
