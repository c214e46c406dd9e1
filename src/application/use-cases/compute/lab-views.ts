import { inject, injectable } from "tsyringe";
import * as E from "fp-ts/lib/Either.js";
import type { ComputeNode, ComputeNodeType, NodeStatus } from "../../../domain/switching/compute-node.js";
import { HOST_INSIDE_OFFSET } from "../../../domain/switching/node-kind.js";
import { type Wire, type WiredPort, wiresBetween } from "../../../domain/topology/wires.js";
import type { DataPlane, PortCounters } from "../../ports/data-plane.js";
import type { ComputeNodeRepository, ComputeProjectRepository, NodeRepository, ProjectRepository } from "../../ports/repositories.js";
import type { Clock } from "../../ports/system.js";
import { TOKENS } from "../../ports/tokens.js";
import { COMPUTE_PROJECT_LOOKUP_REFUSALS, type Refusal } from "../../errors.js";
import { ComputeLookup } from "./compute-lookup.js";

/** A node of a lab as netemu's page draws it. */
export interface LabNode {
  readonly nodeId: string;
  readonly name: string;
  readonly nodeType: ComputeNodeType;
  readonly status: NodeStatus;
  /** The node's link ports (a host's inside ports are netemu's plumbing, left out), and whether each holds a NIO. */
  readonly ports: readonly { readonly portNumber: number; readonly name: string; readonly connected: boolean }[];
  /** Where netemu's controller placed it (its project's x and y); none for a node a GNS3 controller placed. */
  readonly position: { readonly x: number; readonly y: number } | undefined;
}

/**
 * One lab netemu holds: a project of its compute, with the nodes running in it and the links between
 * them. `heldByController` tells a project of netemu's own controller from one a GNS3 controller made.
 */
export interface LabView {
  readonly projectId: string;
  readonly name: string;
  readonly heldByController: boolean;
  readonly nodes: readonly LabNode[];
  readonly wires: readonly Wire[];
}

/** The link ports of a node with their NIOs (inside ports left out). */
function wiredPorts(node: ComputeNode): WiredPort[] {
  return [...node.nios].filter(([port]) => port < HOST_INSIDE_OFFSET).map(([portNumber, nio]) => ({ nodeId: node.nodeId, portNumber, nio }));
}

/**
 * Every lab netemu holds, for its page (ADR 0094): the compute's projects (those of netemu's own
 * controller run there under the same ids) with their nodes and links. Links are read from the NIOs, so
 * that the switches a GNS3 controller placed are drawn as wired as those of netemu's own labs.
 */
@injectable()
export class ListLabs {
  constructor(
    @inject(TOKENS.ComputeProjectRepository) private readonly computeProjects: ComputeProjectRepository,
    @inject(TOKENS.ComputeNodeRepository) private readonly computeNodes: ComputeNodeRepository,
    @inject(TOKENS.ProjectRepository) private readonly projects: ProjectRepository,
    @inject(TOKENS.NodeRepository) private readonly nodes: NodeRepository,
  ) {}

  async execute(): Promise<LabView[]> {
    const [computeProjects, computeNodes, controllerProjects] = await Promise.all([this.computeProjects.list(), this.computeNodes.list(), this.projects.list()]);
    const held = new Set(controllerProjects.map((p) => p.projectId));
    // One pass over the nodes, not a scan per project: a compute may hold thousands.
    const byProject = new Map<string, ComputeNode[]>();
    for (const node of computeNodes) {
      const list = byProject.get(node.projectId);
      if (list === undefined) byProject.set(node.projectId, [node]);
      else list.push(node);
    }
    return Promise.all(
      computeProjects.map(async (project) => {
        const members = byProject.get(project.projectId) ?? [];
        const positions = held.has(project.projectId) ? new Map((await this.nodes.listByProject(project.projectId)).map((n) => [n.nodeId, { x: n.x, y: n.y }])) : new Map<string, { x: number; y: number }>();
        return {
          projectId: project.projectId,
          name: project.name,
          heldByController: held.has(project.projectId),
          nodes: members.map((node) => ({
            nodeId: node.nodeId,
            name: node.name,
            nodeType: node.nodeType,
            status: node.status,
            ports: node.portsMapping.map((p) => ({ portNumber: p.port_number, name: p.name, connected: node.nios.has(p.port_number) })),
            position: positions.get(node.nodeId),
          })),
          wires: wiresBetween(members.flatMap(wiredPorts)),
        };
      }),
    );
  }
}

/** One port's counters in a lab's reading. */
export interface LabPortCounters {
  readonly nodeId: string;
  readonly portNumber: number;
  readonly counters: PortCounters;
}

/** A lab's live counters at one moment: the page takes rates from two readings (ADR 0094). */
export interface LabCounters {
  readonly projectId: string;
  /** When the data plane was read (the server's clock, ms): rates divide by the time between two readings. */
  readonly atMs: number;
  readonly ports: readonly LabPortCounters[];
  /** Learned addresses of each switch's MAC table, by node id. */
  readonly macTableEntries: ReadonlyMap<string, number>;
  /** Nodes whose data plane did not answer (a worker that died): drawn without figures. */
  readonly unanswered: readonly string[];
}

/** What ReadLabCounters can answer instead of its result. */
export const READ_LAB_COUNTERS_REFUSALS = COMPUTE_PROJECT_LOOKUP_REFUSALS;

/**
 * Every port counter of a lab in one reading, so that a page watching 1,000 nodes makes one request a
 * refresh rather than one a node. The data plane is asked about every node at once (with worker threads
 * each question is a message, answered in parallel).
 */
@injectable()
export class ReadLabCounters {
  constructor(
    private readonly lookup: ComputeLookup,
    @inject(TOKENS.ComputeNodeRepository) private readonly computeNodes: ComputeNodeRepository,
    @inject(TOKENS.DataPlane) private readonly dataPlane: DataPlane,
    @inject(TOKENS.Clock) private readonly clock: Clock,
  ) {}

  async execute({ projectId }: { readonly projectId: string }): Promise<E.Either<Refusal<typeof READ_LAB_COUNTERS_REFUSALS>, LabCounters>> {
    const project = await this.lookup.project(projectId);
    if (E.isLeft(project)) return project;
    const members = (await this.computeNodes.list()).filter((n) => n.projectId === projectId);
    const ports: LabPortCounters[] = [];
    const macTableEntries = new Map<string, number>();
    const unanswered: string[] = [];
    await Promise.all(
      members.map(async (node) => {
        try {
          const [counters, macTable] = await Promise.all([this.dataPlane.counters(node.nodeId), node.nodeType === "ethernet_switch" ? this.dataPlane.macTable(node.nodeId) : undefined]);
          for (const [portNumber, c] of counters) if (portNumber < HOST_INSIDE_OFFSET) ports.push({ nodeId: node.nodeId, portNumber, counters: c });
          if (macTable !== undefined) macTableEntries.set(node.nodeId, macTable.length);
        } catch {
          // One unreachable worker must not blank the whole lab: its nodes are named instead.
          unanswered.push(node.nodeId);
        }
      }),
    );
    return E.right({ projectId, atMs: this.clock.nowMs(), ports, macTableEntries, unanswered });
  }
}
