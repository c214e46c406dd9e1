import type {
  ComputeProjectRepository,
  LinkRepository,
  NodeRepository,
  ProjectRepository,
  ComputeNodeRepository,
} from "../../application/ports/repositories.js";
import type { ComputeProject, Project } from "../../domain/topology/project.js";
import type { ControllerNode } from "../../domain/topology/node.js";
import type { Link } from "../../domain/topology/link.js";
import type { ComputeNode } from "../../domain/switching/compute-node.js";

/** Map-backed stores; the values are immutable, so handing them out needs no copy. */
class KeyedStore<V> {
  protected readonly items = new Map<string, V>();
  async getKey(key: string): Promise<V | undefined> {
    return this.items.get(key);
  }
  async values(): Promise<readonly V[]> {
    return [...this.items.values()];
  }
  async put(key: string, value: V): Promise<void> {
    this.items.set(key, value);
  }
  async remove(key: string): Promise<void> {
    this.items.delete(key);
  }
}

export class InMemoryProjectRepository extends KeyedStore<Project> implements ProjectRepository {
  get = (id: string) => this.getKey(id);
  list = () => this.values();
  save = (p: Project) => this.put(p.projectId, p);
  delete = (id: string) => this.remove(id);
}

export class InMemoryComputeProjectRepository extends KeyedStore<ComputeProject> implements ComputeProjectRepository {
  get = (id: string) => this.getKey(id);
  list = () => this.values();
  save = (p: ComputeProject) => this.put(p.projectId, p);
  delete = (id: string) => this.remove(id);
}

export class InMemoryComputeNodeRepository extends KeyedStore<ComputeNode> implements ComputeNodeRepository {
  get = (id: string) => this.getKey(id);
  list = () => this.values();
  save = (node: ComputeNode) => this.put(node.nodeId, node);
  delete = (id: string) => this.remove(id);
}

const scoped = (projectId: string, id: string): string => `${projectId}/${id}`;

export class InMemoryNodeRepository extends KeyedStore<ControllerNode> implements NodeRepository {
  get = (projectId: string, nodeId: string) => this.getKey(scoped(projectId, nodeId));
  listByProject = async (projectId: string) => (await this.values()).filter((n) => n.projectId === projectId);
  save = (n: ControllerNode) => this.put(scoped(n.projectId, n.nodeId), n);
  delete = (projectId: string, nodeId: string) => this.remove(scoped(projectId, nodeId));
}

export class InMemoryLinkRepository extends KeyedStore<Link> implements LinkRepository {
  get = (projectId: string, linkId: string) => this.getKey(scoped(projectId, linkId));
  listByProject = async (projectId: string) => (await this.values()).filter((l) => l.projectId === projectId);
  save = (l: Link) => this.put(scoped(l.projectId, l.linkId), l);
  delete = (projectId: string, linkId: string) => this.remove(scoped(projectId, linkId));
}
