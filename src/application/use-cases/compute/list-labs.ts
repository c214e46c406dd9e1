import { inject, injectable } from "tsyringe";
import type { ComputeNode, ComputeNodeType, NodeStatus } from "../../../domain/switching/compute-node.js";
import { HOST_INSIDE_OFFSET } from "../../../domain/switching/node-kind.js";
import type { Link } from "../../../domain/topology/link.js";
import { type RemoteWire, type Wire, type WiredPort, remoteWires, wiresBetween } from "../../../domain/topology/wires.js";
import type { ComputeNodeRepository, ComputeProjectRepository, LinkRepository, NodeRepository, ProjectRepository } from "../../ports/repositories.js";
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

/** A link of a lab: two ports whose NIOs send to each other, and in a project of netemu's controller the link it made them for. */
interface LabWire extends Wire {
  /** The controller link these two ports are the ends of (its one-way filters are set on it): none in a lab a GNS3 controller placed. */
  readonly linkId?: string;
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
  readonly wires: readonly LabWire[];
  /** Ports linked to a node that is not here (another compute, an emulator): drawn as a link to its address (ADR 0098). */
  readonly remoteWires: readonly RemoteWire[];
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
    @inject(TOKENS.LinkRepository) private readonly links: LinkRepository,
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
        const ports = members.flatMap(wiredPorts);
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
          wires: held.has(project.projectId) ? withLinkIds(wiresBetween(ports), await this.links.listByProject(project.projectId)) : wiresBetween(ports),
          remoteWires: remoteWires(ports),
        };
      }),
    );
  }
}

/** Each wire with the controller link whose two ends are its ports (ADR 0098: the page sets a host end's one-way filters on it). */
function withLinkIds(wires: readonly Wire[], links: readonly Link[]): LabWire[] {
  const byEnd = new Map<string, string>();
  for (const link of links) for (const end of link.nodes) byEnd.set(`${end.nodeId}:${end.portNumber}`, link.linkId);
  return wires.map((w) => {
    const a = byEnd.get(`${w.a.nodeId}:${w.a.portNumber}`);
    return a !== undefined && a === byEnd.get(`${w.b.nodeId}:${w.b.portNumber}`) ? { ...w, linkId: a } : w;
  });
}
