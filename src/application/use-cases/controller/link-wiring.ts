import { inject, injectable } from "tsyringe";
import * as E from "fp-ts/lib/Either.js";
import type { Link, LinkEnd } from "../../../domain/topology/link.js";
import { type FilterSettings, NO_FILTERS } from "../../../domain/filters/filter-settings.js";
import { type Nio, directional, scheduled, withFilters } from "../../../domain/switching/nio.js";
import type { ServerSettings } from "../../ports/server-settings.js";
import { TOKENS } from "../../ports/tokens.js";
import type { PortAddress } from "../compute/compute-lookup.js";
import { ATTACH_REFUSALS, NioAttachment, REPLACE_REFUSALS } from "../compute/nio-attachment.js";
import type { Refusal } from "../../errors.js";

/** Why a link's two NIOs could not be added or updated. */
export const WIRING_REFUSALS = [...ATTACH_REFUSALS, ...REPLACE_REFUSALS] as const;
export type WiringError = Refusal<typeof WIRING_REFUSALS>;

/** While a link is suspended GNS3 sends `frequency_drop -1` to the filter end instead of its filters. */
const DROP_ALL: FilterSettings = Object.freeze({ frequency_drop: Object.freeze([-1]) as readonly [number] });

/**
 * How a controller link becomes two UDP NIOs on the local compute, as GNS3's UDPLink does: each
 * end's NIO sends to the other's UDP port; the filters go to the first end, the second gets none.
 * The link's filters were parsed (and their expressions compiled) when the link was set: the NIOs
 * are made of those values, not parsed again.
 */
@injectable()
export class LinkWiring {
  constructor(
    private readonly attachment: NioAttachment,
    @inject(TOKENS.ServerSettings) private readonly settings: ServerSettings,
  ) {}

  private address(projectId: string, end: LinkEnd): PortAddress {
    return { projectId, nodeId: end.nodeId, adapterNumber: end.adapterNumber, portNumber: end.portNumber };
  }

  /** The filters of one end's NIO: the link's on the first end (or drop-all while suspended), and what that end's node sends one way. */
  private filtersFor(link: Link, index: 0 | 1) {
    const filters = index === 0 ? (link.suspend ? DROP_ALL : link.filters) : NO_FILTERS;
    // One-way filters act on what this end's node sends over the link: its NIO's outgoing frames.
    // A schedule of what this end sends runs on the same direction (ADR 0102); the overlay resolves its step.
    return { filters, filtersIn: NO_FILTERS, filtersOut: link.nodes[index].filters ?? NO_FILTERS, scheduleOut: link.nodes[index].schedule };
  }

  private nioFor(link: Link, index: 0 | 1): Nio {
    const self = link.nodes[index];
    const peer = link.nodes[index === 0 ? 1 : 0];
    const f = this.filtersFor(link, index);
    return Object.freeze({ type: "nio_udp", lport: self.udpPort, rhost: this.peerHost(), rport: peer.udpPort, filters: f.filters, ...directional(f), ...scheduled(f), suspend: link.suspend });
  }

  /** The address one end's NIO sends to: where the other end's socket is bound on this compute. */
  private peerHost(): string {
    const host = this.settings.host;
    return host === "0.0.0.0" || host === "::" || host === "localhost" ? "127.0.0.1" : host;
  }

  /** Adds both NIOs; when the second fails the first is removed again. */
  async wire(link: Link): Promise<E.Either<WiringError, void>> {
    const first = await this.attachment.add(this.address(link.projectId, link.nodes[0]), this.nioFor(link, 0));
    if (E.isLeft(first)) return first;
    const second = await this.attachment.add(this.address(link.projectId, link.nodes[1]), this.nioFor(link, 1));
    if (E.isLeft(second)) {
      await this.attachment.remove(this.address(link.projectId, link.nodes[0]));
      return second;
    }
    return E.right(undefined);
  }

  async unwire(link: Link): Promise<void> {
    for (const end of link.nodes) await this.attachment.remove(this.address(link.projectId, end));
  }

  /** Pushes the link's filters and suspend flag to both ends (GNS3 skips switches; netemu filters there). */
  async push(link: Link): Promise<E.Either<WiringError, void>> {
    for (const index of [0, 1] as const) {
      const pushed = await this.attachment.replace(this.address(link.projectId, link.nodes[index]), (current) => withFilters(current, this.filtersFor(link, index), link.suspend));
      if (E.isLeft(pushed)) return pushed;
    }
    return E.right(undefined);
  }
}
