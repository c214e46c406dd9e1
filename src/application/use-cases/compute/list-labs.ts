import { inject, injectable } from "tsyringe";
import type { ComputeNode, ComputeNodeType, NodeStatus } from "../../../domain/switching/compute-node.js";
import { HOST_INSIDE_OFFSET } from "../../../domain/switching/node-kind.js";
import { type Wire, type WiredPort, wiresBetween } from "../../../domain/topology/wires.js";
import type { ComputeNodeRepository, ComputeProjectRepository, NodeRepository, ProjectRepository } from "../../ports/repositories.js";
import { TOKENS } from "../../ports/tokens.js";

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
