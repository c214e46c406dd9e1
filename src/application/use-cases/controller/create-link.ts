import { inject, injectable } from "tsyringe";
import * as E from "fp-ts/lib/Either.js";
import { type Link, type LinkEnd, type LinkEndpoint, checkNewLink } from "../../../domain/topology/link.js";
import { type Label, defaultPortLabel } from "../../../domain/topology/label.js";
import { type BpfCheck, type RawFilterSettings, type FilterSettings, NO_FILTERS, parseFilterSettings } from "../../../domain/filters/filter-settings.js";
import type { LinkRepository, NodeRepository } from "../../ports/repositories.js";
import type { UdpPortPool } from "../../ports/udp-port-pool.js";
import type { IdGenerator } from "../../ports/system.js";
import { TOKENS } from "../../ports/tokens.js";
import type { ControllerProjectLookupError, ErrorOf } from "../../errors.js";
import { KeyedLock } from "../../keyed-lock.js";
import { ControllerLookup } from "./controller-lookup.js";
import { LinkWiring } from "./link-wiring.js";
import type { WiringError } from "./link-wiring.js";

/** What CreateLink can answer instead of its result. */
export type CreateLinkError = ControllerProjectLookupError | ErrorOf<"LinkEndCount" | "NodeNotFound" | "LinkPortNotFound" | "CannotConnectToItself" | "PortAlreadyUsed" | "InvalidFilterSettings" | "NoFreeUdpPort" | "UdpPortCheckFailed"> | WiringError;

export interface LinkEndRequest extends LinkEndpoint {
  readonly label?: Label | undefined;
  /** netemu's one-way filters on the frames this end's node sends (ADR 0051). */
  readonly filters?: RawFilterSettings | undefined;
}

export interface CreateLinkInput {
  readonly nodes: readonly LinkEndRequest[];
  readonly filters?: RawFilterSettings | undefined;
  readonly suspend?: boolean | undefined;
  readonly linkStyle?: Readonly<Record<string, unknown>> | undefined;
}

/**
 * POST /links: checks both ends, reserves a UDP port for each, and wires a nio_udp on each switch
 * port pointing at the other. Any failure leaves no NIO and no reserved port behind.
 */
@injectable()
export class CreateLink {
  constructor(
    private readonly lookup: ControllerLookup,
    private readonly wiring: LinkWiring,
    @inject(TOKENS.NodeRepository) private readonly nodes: NodeRepository,
    @inject(TOKENS.LinkRepository) private readonly links: LinkRepository,
    @inject(TOKENS.UdpPortPool) private readonly pool: UdpPortPool,
    @inject(TOKENS.IdGenerator) private readonly ids: IdGenerator,
    @inject(TOKENS.KeyedLock) private readonly lock: KeyedLock,
    @inject(TOKENS.BpfCompiler) private readonly bpfCheck: BpfCheck,
  ) {}

  execute({ projectId, ...input }: CreateLinkInput & { readonly projectId: string }): Promise<E.Either<CreateLinkError, Link>> {
    return this.lock.run(`project:${projectId}`, async () => {
      const project = await this.lookup.openedProject(projectId);
      if (E.isLeft(project)) return project;
      const [a, b] = input.nodes;
      if (input.nodes.length !== 2 || a === undefined || b === undefined) {
        return E.left({ _tag: "LinkEndCount", count: input.nodes.length });
      }
      for (const end of [a, b]) {
        const node = await this.nodes.get(projectId, end.nodeId);
        if (node === undefined) return E.left({ _tag: "NodeNotFound", nodeId: end.nodeId });
        if (end.adapterNumber !== 0 || !node.portsMapping.some((p) => p.port_number === end.portNumber)) {
          return E.left({ _tag: "LinkPortNotFound", adapterNumber: end.adapterNumber, portNumber: end.portNumber, nodeName: node.name });
        }
      }
      const rule = checkNewLink([a, b], await this.links.listByProject(projectId));
      if (E.isLeft(rule)) return rule;
      const filters: E.Either<ErrorOf<"InvalidFilterSettings">, FilterSettings> =
        input.filters === undefined ? E.right(NO_FILTERS) : parseFilterSettings(input.filters, this.bpfCheck);
      if (E.isLeft(filters)) return filters;
      const oneWay: FilterSettings[] = [];
      for (const r of [a, b]) {
        const parsed = r.filters === undefined ? E.right(NO_FILTERS) : parseFilterSettings(r.filters, this.bpfCheck);
        if (E.isLeft(parsed)) return parsed;
        oneWay.push(parsed.right);
      }

      const portA = await this.pool.reserve(projectId);
      if (E.isLeft(portA)) return portA;
      const portB = await this.pool.reserve(projectId);
      if (E.isLeft(portB)) {
        this.pool.release(portA.right);
        return portB;
      }
      const end = (r: LinkEndRequest, udpPort: number, sent: FilterSettings): LinkEnd => ({
        nodeId: r.nodeId,
        adapterNumber: r.adapterNumber,
        portNumber: r.portNumber,
        label: r.label ?? defaultPortLabel(r.adapterNumber, r.portNumber),
        udpPort,
        ...(Object.keys(sent).length > 0 ? { filters: sent } : {}),
      });
      const link: Link = {
        linkId: this.ids.uuid(),
        projectId,
        nodes: [end(a, portA.right, oneWay[0] as FilterSettings), end(b, portB.right, oneWay[1] as FilterSettings)],
        filters: filters.right,
        suspend: input.suspend ?? false,
        linkStyle: input.linkStyle ?? {},
        capture: null,
      };
      const wired = await this.wiring.wire(link);
      if (E.isLeft(wired)) {
        this.pool.release(portA.right);
        this.pool.release(portB.right);
        return wired;
      }
      await this.links.save(link);
      return E.right(link);
    });
  }
}
