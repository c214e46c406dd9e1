import { inject, injectable } from "tsyringe";
import type { ComputeNode, ComputeNodeType, NodeStatus } from "../../../domain/switching/compute-node.js";
import type { Nio } from "../../../domain/switching/nio.js";
import type { ProjectStatus } from "../../../domain/topology/project.js";
import type { DataPlane, DataPlaneThreads, LoopDelay, PortCounters } from "../../ports/data-plane.js";
import type { ComputeNodeRepository, ComputeProjectRepository, LinkRepository, ProjectRepository } from "../../ports/repositories.js";
import { TOKENS } from "../../ports/tokens.js";

/** One switch or hub of the compute, with the live figures of its data plane. */
export interface NodeFigures {
  readonly projectId: string;
  /** The compute project's name, as its controller gave it (the id when the project is gone meanwhile). */
  readonly projectName: string;
  readonly nodeId: string;
  readonly name: string;
  /** Each port's name from ports_mapping (`Ethernet0`), by port number. */
  readonly portNames: ReadonlyMap<number, string>;
  readonly nodeType: ComputeNodeType;
  readonly status: NodeStatus;
  /** Learned addresses in a switch's MAC table; a hub has none. */
  readonly macTableEntries: number | undefined;
  /** The counters of each port with a NIO, by port number. */
  readonly ports: ReadonlyMap<number, PortCounters>;
  /**
   * False when the data plane did not answer for this node (its worker died and was not started
   * again): the node is still counted, without live figures.
   */
  readonly answered: boolean;
}

/** What an operator watches, at one moment: counts of records and the data plane's figures. */
export interface MetricsSnapshot {
  /** The controller's projects, by status. */
  readonly controllerProjects: Readonly<Record<ProjectStatus, number>>;
  readonly computeProjects: number;
  /** The controller's links, over every project. */
  readonly links: number;
  /** The compute's NIOs, by type. */
  readonly nios: Readonly<Record<Nio["type"], number>>;
  readonly nodes: readonly NodeFigures[];
  /** The event-loop delay of each data-plane worker since the previous snapshot (none on the main thread). */
  readonly dataPlaneLoops: readonly LoopDelay[];
}

/**
 * Gathers a MetricsSnapshot for a scrape. The data plane is asked about every node at once: with
 * worker threads each question is a message, and the nodes' workers answer in parallel.
 */
@injectable()
export class TakeMetricsSnapshot {
  constructor(
    @inject(TOKENS.ProjectRepository) private readonly projects: ProjectRepository,
    @inject(TOKENS.ComputeProjectRepository) private readonly computeProjects: ComputeProjectRepository,
    @inject(TOKENS.ComputeNodeRepository) private readonly nodes: ComputeNodeRepository,
    @inject(TOKENS.LinkRepository) private readonly links: LinkRepository,
    @inject(TOKENS.DataPlane) private readonly dataPlane: DataPlane,
    @inject(TOKENS.DataPlaneThreads) private readonly threads: DataPlaneThreads,
  ) {}

  async execute(): Promise<MetricsSnapshot> {
    const [projects, computeProjects, nodes, dataPlaneLoops] = await Promise.all([this.projects.list(), this.computeProjects.list(), this.nodes.list(), this.threads.eventLoopDelays()]);
    const projectNames = new Map(computeProjects.map((p) => [p.projectId, p.name]));
    const controllerProjects: Record<ProjectStatus, number> = { opened: 0, closed: 0 };
    for (const p of projects) controllerProjects[p.status]++;
    const links = (await Promise.all(projects.map((p) => this.links.listByProject(p.projectId)))).reduce((n, l) => n + l.length, 0);
    const nios: Record<Nio["type"], number> = { nio_udp: 0, nio_tap: 0, nio_ethernet: 0, nio_null: 0 };
    for (const node of nodes) for (const nio of node.nios.values()) nios[nio.type]++;
    return {
      controllerProjects,
      computeProjects: computeProjects.length,
      links,
      nios,
      nodes: await Promise.all(nodes.map((n) => this.figuresOf(n, projectNames.get(n.projectId) ?? n.projectId))),
      dataPlaneLoops,
    };
  }

  private async figuresOf(node: ComputeNode, projectName: string): Promise<NodeFigures> {
    const portNames = new Map(node.portsMapping.map((p) => [p.port_number, p.name] as const));
    const record = { projectId: node.projectId, projectName, nodeId: node.nodeId, name: node.name, portNames, nodeType: node.nodeType, status: node.status };
    const isSwitch = node.nodeType === "ethernet_switch";
    try {
      const [ports, macTable] = await Promise.all([this.dataPlane.counters(node.nodeId), isSwitch ? this.dataPlane.macTable(node.nodeId) : undefined]);
      return { ...record, macTableEntries: macTable?.length, ports, answered: true };
    } catch {
      // One unreachable worker must not take every other figure with it: the scrape is what tells
      // the operator (the worker's death itself was logged when it happened).
      return { ...record, macTableEntries: undefined, ports: new Map(), answered: false };
    }
  }
}
