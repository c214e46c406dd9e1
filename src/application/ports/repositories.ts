import type { Project, ComputeProject } from "../../domain/topology/project.js";
import type { ControllerNode } from "../../domain/topology/node.js";
import type { Link } from "../../domain/topology/link.js";
import type { ComputeNode } from "../../domain/switching/compute-node.js";

/**
 * Where the core keeps its state. In-memory by default; an embedding controller may plug its
 * own. Async so that such stores can do I/O; use cases serialise writes per node and project.
 */
export interface ProjectRepository {
  get(projectId: string): Promise<Project | undefined>;
  list(): Promise<readonly Project[]>;
  save(project: Project): Promise<void>;
  delete(projectId: string): Promise<void>;
}

export interface ComputeProjectRepository {
  get(projectId: string): Promise<ComputeProject | undefined>;
  list(): Promise<readonly ComputeProject[]>;
  save(project: ComputeProject): Promise<void>;
  delete(projectId: string): Promise<void>;
}

/** The compute's switches and hubs, by node id (unique on a compute, whatever the node type). */
export interface ComputeNodeRepository {
  get(nodeId: string): Promise<ComputeNode | undefined>;
  list(): Promise<readonly ComputeNode[]>;
  save(node: ComputeNode): Promise<void>;
  delete(nodeId: string): Promise<void>;
}

export interface NodeRepository {
  get(projectId: string, nodeId: string): Promise<ControllerNode | undefined>;
  listByProject(projectId: string): Promise<readonly ControllerNode[]>;
  save(node: ControllerNode): Promise<void>;
  delete(projectId: string, nodeId: string): Promise<void>;
}

export interface LinkRepository {
  get(projectId: string, linkId: string): Promise<Link | undefined>;
  listByProject(projectId: string): Promise<readonly Link[]>;
  save(link: Link): Promise<void>;
  delete(projectId: string, linkId: string): Promise<void>;
}
