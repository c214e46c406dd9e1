import { inject, injectable } from "tsyringe";
import * as E from "fp-ts/lib/Either.js";
import { type Link, type LinkEnd, type LinkEndpoint, type LinkStyle, checkNewLink } from "../../../domain/topology/link.js";
import { type Label, defaultPortLabel } from "../../../domain/topology/label.js";
import { type LinkFilters, type FilterSettings, type InvalidFilterSettings, NO_FILTERS, hasFilters, parseFilterSettings } from "../../../domain/filters/filter-settings.js";
import { CONFIGURATION_LIMITS } from "../../../domain/configuration/limits.js";
import type { LinkRepository, NodeRepository } from "../../ports/repositories.js";
import type { UdpPortPool } from "../../ports/udp-port-pool.js";
import type { IdGenerator } from "../../ports/system.js";
import { TOKENS } from "../../ports/tokens.js";
import type { ProjectEvents } from "../../ports/project-events.js";
import { CONTROLLER_PROJECT_LOOKUP_REFUSALS, type ErrorOf, type NamedLinkEnd, type NamedPort, type Refusal } from "../../errors.js";
import type { ControllerNode } from "../../../domain/topology/node.js";
import { KeyedLock } from "../../keyed-lock.js";
import { FilterPrograms } from "../../filter-programs.js";
import type { ArmedSchedule } from "../../../domain/filters/schedule.js";
import { parseArmedSchedule } from "../../schedules/parse-armed-schedule.js";
import type { Clock } from "../../ports/system.js";
import { ControllerLookup } from "./controller-lookup.js";
import { LinkWiring, WIRING_REFUSALS } from "./link-wiring.js";

/** A node's ports as its user names them (switch and hub ports are all on adapter 0). */
const namedPorts = (node: ControllerNode): NamedPort[] => node.portsMapping.map((p) => ({ adapterNumber: 0, portNumber: p.port_number, name: p.name }));

/** What CreateLink can answer instead of its result. */
export const CREATE_LINK_REFUSALS = [
  ...CONTROLLER_PROJECT_LOOKUP_REFUSALS,
  "LinkEndCount",
  "NodeNotFound",
  "LinkPortNotFound",
  "CannotConnectToItself",
  "PortAlreadyUsed",
  "InvalidFilterSettings",
  "NoFreeUdpPort",
  "UdpPortCheckFailed",
  "ProjectFull",
  ...WIRING_REFUSALS,
] as const;
export type CreateLinkError = Refusal<typeof CREATE_LINK_REFUSALS>;

export interface LinkEndRequest extends LinkEndpoint {
  readonly label?: Label | undefined;
  /** netemu's one-way filters on the frames this end's node sends (ADR 0051). */
  readonly filters?: LinkFilters | undefined;
  /** netemu's schedule of what this end's node sends (ADR 0102), instead of `filters`. */
  readonly schedule?: unknown;
}

export interface CreateLinkInput {
  readonly nodes: readonly LinkEndRequest[];
  readonly filters?: LinkFilters | undefined;
  readonly suspend?: boolean | undefined;
  readonly linkStyle?: LinkStyle | undefined;
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
    @inject(TOKENS.ProjectEvents) private readonly events: ProjectEvents,
    @inject(TOKENS.BpfPrograms) private readonly programs: FilterPrograms,
    @inject(TOKENS.Clock) private readonly clock: Clock,
  ) {}

  /** A filters object given on the link or one of its ends, parsed and its expressions compiled (once per text). */
  private async filters(raw: LinkFilters | undefined, field: string): Promise<E.Either<InvalidFilterSettings, FilterSettings>> {
    if (raw === undefined) return E.right(NO_FILTERS);
    const parsed = parseFilterSettings(raw, field);
    if (E.isLeft(parsed)) return parsed;
    const compiled = await this.programs.check(parsed.right, field);
    return E.isLeft(compiled) ? compiled : parsed;
  }

  /** GNS3's "Port is already used", naming the port, the link holding it and that link's other end. */
  private async portAlreadyUsed(projectId: string, endpoint: LinkEndpoint, holder: Link): Promise<ErrorOf<"PortAlreadyUsed">> {
    const named = async (end: LinkEndpoint): Promise<NamedLinkEnd> => {
      const node = await this.nodes.get(projectId, end.nodeId);
      const name = node?.portsMapping.find((p) => p.port_number === end.portNumber)?.name ?? `${end.adapterNumber}/${end.portNumber}`;
      return { nodeName: node?.name ?? end.nodeId, adapterNumber: end.adapterNumber, portNumber: end.portNumber, name };
    };
    const same = (n: LinkEndpoint) => n.nodeId === endpoint.nodeId && n.adapterNumber === endpoint.adapterNumber && n.portNumber === endpoint.portNumber;
    const peer = holder.nodes.find((n) => !same(n)) ?? holder.nodes[1];
    return { _tag: "PortAlreadyUsed", port: await named(endpoint), linkId: holder.linkId, peer: await named(peer) };
  }

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
          return E.left({ _tag: "LinkPortNotFound", adapterNumber: end.adapterNumber, portNumber: end.portNumber, nodeName: node.name, ports: namedPorts(node) });
        }
      }
      const existing = await this.links.listByProject(projectId);
      const rule = checkNewLink([a, b], existing);
      if (E.isLeft(rule)) return rule.left._tag === "CannotConnectToItself" ? E.left(rule.left) : E.left(await this.portAlreadyUsed(projectId, rule.left.endpoint, rule.left.link));
      if (existing.length >= CONFIGURATION_LIMITS.linksPerProject) return E.left({ _tag: "ProjectFull", what: "links", limit: CONFIGURATION_LIMITS.linksPerProject });
      const filters = await this.filters(input.filters, "filters");
      if (E.isLeft(filters)) return filters;
      const oneWay: FilterSettings[] = [];
      const schedules: (ArmedSchedule | undefined)[] = [];
      for (const [i, r] of [a, b].entries()) {
        const parsed = await this.filters(r.filters, `nodes[${i}].filters`);
        if (E.isLeft(parsed)) return parsed;
        oneWay.push(parsed.right);
        if (r.schedule === undefined) {
          schedules.push(undefined);
          continue;
        }
        const armed = await parseArmedSchedule(r.schedule, `nodes[${i}].schedule`, { given: r.filters !== undefined, field: `nodes[${i}].filters` }, this.programs, this.clock.nowMs());
        if (E.isLeft(armed)) return armed;
        schedules.push(armed.right);
      }

      const portA = await this.pool.reserve(projectId);
      if (E.isLeft(portA)) return portA;
      const portB = await this.pool.reserve(projectId);
      if (E.isLeft(portB)) {
        this.pool.release(portA.right);
        return portB;
      }
      const end = (r: LinkEndRequest, udpPort: number, sent: FilterSettings, schedule: ArmedSchedule | undefined): LinkEnd => ({
        nodeId: r.nodeId,
        adapterNumber: r.adapterNumber,
        portNumber: r.portNumber,
        label: r.label ?? defaultPortLabel(r.adapterNumber, r.portNumber),
        udpPort,
        ...(hasFilters(sent) ? { filters: sent } : {}),
        ...(schedule === undefined ? {} : { schedule }),
      });
      const link: Link = {
        linkId: this.ids.uuid(),
        projectId,
        nodes: [end(a, portA.right, oneWay[0] as FilterSettings, schedules[0]), end(b, portB.right, oneWay[1] as FilterSettings, schedules[1])],
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
      this.events.publish({ kind: "link.created", projectId, link });
      return E.right(link);
    });
  }
}
