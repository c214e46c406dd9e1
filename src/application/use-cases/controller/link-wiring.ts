import { inject, injectable } from "tsyringe";
import * as E from "fp-ts/lib/Either.js";
import type { Link, LinkEnd } from "../../../domain/topology/link.js";
import type { FilterSettings } from "../../../domain/filters/filter-settings.js";
import type { ServerSettings } from "../../ports/server-settings.js";
import { TOKENS } from "../../ports/tokens.js";
import type { AddNioError } from "../compute/add-nio.js";
import type { UpdateNioError } from "../compute/update-nio.js";

/** Why a link's two NIOs could not be added or updated. */
export type WiringError = AddNioError | UpdateNioError;
import { AddNio } from "../compute/add-nio.js";
import type { PortAddress } from "../compute/compute-lookup.js";
import { RemoveNio } from "../compute/remove-nio.js";
import { UpdateNio } from "../compute/update-nio.js";
import type { NioRequest } from "../compute/nio-request.js";

/** While a link is suspended GNS3 sends `frequency_drop -1` to the filter end instead of its filters. */
const DROP_ALL: FilterSettings = { frequency_drop: [-1] };

/**
 * How a controller link becomes two UDP NIOs on the local compute, as GNS3's UDPLink does: each
 * end's NIO sends to the other's UDP port; the filters go to the first end, the second gets none.
 */
@injectable()
export class LinkWiring {
  constructor(
    private readonly addNio: AddNio,
    private readonly removeNio: RemoveNio,
    private readonly updateNio: UpdateNio,
    @inject(TOKENS.ServerSettings) private readonly settings: ServerSettings,
  ) {}

  private address(projectId: string, end: LinkEnd): PortAddress {
    return { projectId, nodeId: end.nodeId, adapterNumber: end.adapterNumber, portNumber: end.portNumber };
  }

  private nioFor(link: Link, index: 0 | 1): NioRequest {
    const self = link.nodes[index];
    const peer = link.nodes[index === 0 ? 1 : 0];
    const filters = index === 0 ? (link.suspend ? DROP_ALL : link.filters) : {};
    return {
      type: "nio_udp",
      lport: self.udpPort,
      rhost: this.peerHost(),
      rport: peer.udpPort,
      filters,
      // One-way filters act on what this end's node sends over the link: its NIO's outgoing frames.
      filtersIn: {},
      filtersOut: self.filters ?? {},
      suspend: link.suspend,
    };
  }

  /** The address one end's NIO sends to: where the other end's socket is bound on this compute. */
  private peerHost(): string {
    const host = this.settings.host;
    return host === "0.0.0.0" || host === "::" || host === "localhost" ? "127.0.0.1" : host;
  }

  /** Adds both NIOs; when the second fails the first is removed again. */
  async wire(link: Link): Promise<E.Either<WiringError, void>> {
    const first = await this.addNio.execute({ port: this.address(link.projectId, link.nodes[0]), nio: this.nioFor(link, 0) });
    if (E.isLeft(first)) return first;
    const second = await this.addNio.execute({ port: this.address(link.projectId, link.nodes[1]), nio: this.nioFor(link, 1) });
    if (E.isLeft(second)) {
      await this.removeNio.execute({ port: this.address(link.projectId, link.nodes[0]) });
      return second;
    }
    return E.right(undefined);
  }

  async unwire(link: Link): Promise<void> {
    for (const end of link.nodes) await this.removeNio.execute({ port: this.address(link.projectId, end) });
  }

  /** Pushes the link's filters and suspend flag to both ends (GNS3 skips switches; netemu filters there). */
  async push(link: Link): Promise<E.Either<WiringError, void>> {
    for (const index of [0, 1] as const) {
      const pushed = await this.updateNio.execute({ port: this.address(link.projectId, link.nodes[index]), nio: this.nioFor(link, index) });
      if (E.isLeft(pushed)) return pushed;
    }
    return E.right(undefined);
  }
}
