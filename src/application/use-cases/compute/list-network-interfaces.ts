import { inject, injectable } from "tsyringe";
import type { NetworkInterface, NetworkInterfaces } from "../../ports/host.js";
import { TOKENS } from "../../ports/tokens.js";

/** Where this compute's UDP tunnels can be reached: what a controller pairs two computes' addresses from. */
@injectable()
export class ListNetworkInterfaces {
  constructor(@inject(TOKENS.NetworkInterfaces) private readonly interfaces: NetworkInterfaces) {}

  execute(): readonly NetworkInterface[] {
    return this.interfaces.list();
  }
}
