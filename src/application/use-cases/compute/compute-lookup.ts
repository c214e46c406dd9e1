import { inject, injectable } from "tsyringe";
import * as E from "fp-ts/lib/Either.js";
import type { ComputeProject } from "../../../domain/topology/project.js";
import type { ComputeNode, ComputeNodeType } from "../../../domain/switching/compute-node.js";
import { isValidUuid } from "../../../domain/topology/ids.js";
import type { ComputeNodeRepository, ComputeProjectRepository } from "../../ports/repositories.js";
import { TOKENS } from "../../ports/tokens.js";
import type { ComputeNodeLookupError, ComputePortLookupError, ComputeProjectLookupError } from "../../errors.js";

/** A port of a switch or hub as the NIO and capture routes name it. */
export interface PortAddress {
  readonly projectId: string;
  readonly nodeId: string;
  readonly adapterNumber: number;
  readonly portNumber: number;
  /** When given, the node must be of this type (the HTTP routes say which); else any compute node. */
  readonly nodeType?: ComputeNodeType | undefined;
}

export type NodeOfType<T extends ComputeNodeType> = Extract<ComputeNode, { readonly nodeType: T }>;

/** The compute's id checks, in GNS3's order: project syntax, project, node syntax, node, ownership. */
@injectable()
export class ComputeLookup {
  constructor(
    @inject(TOKENS.ComputeProjectRepository) private readonly projects: ComputeProjectRepository,
    @inject(TOKENS.ComputeNodeRepository) private readonly nodes: ComputeNodeRepository,
  ) {}

  async project(projectId: string): Promise<E.Either<ComputeProjectLookupError, ComputeProject>> {
    if (!isValidUuid(projectId)) return E.left({ _tag: "InvalidUuid", what: "Project", id: projectId });
    const project = await this.projects.get(projectId);
    return project === undefined ? E.left({ _tag: "ProjectNotFound", projectId }) : E.right(project);
  }

  /** The node, which must be of `nodeType` when one is given (a hub is not found on the switch routes). */
  nodeOf<T extends ComputeNodeType>(projectId: string, nodeId: string, nodeType: T): Promise<E.Either<ComputeNodeLookupError, NodeOfType<T>>>;
  nodeOf(projectId: string, nodeId: string, nodeType?: ComputeNodeType): Promise<E.Either<ComputeNodeLookupError, ComputeNode>>;
  async nodeOf(projectId: string, nodeId: string, nodeType?: ComputeNodeType): Promise<E.Either<ComputeNodeLookupError, ComputeNode>> {
    const project = await this.project(projectId);
    if (E.isLeft(project)) return project;
    if (!isValidUuid(nodeId)) return E.left({ _tag: "InvalidUuid", what: "Node", id: nodeId });
    const node = await this.nodes.get(nodeId);
    if (node === undefined || (nodeType !== undefined && node.nodeType !== nodeType)) return E.left({ _tag: "NodeNotFound", nodeId });
    if (node.projectId !== projectId) return E.left({ _tag: "NodeNotInProject", projectId, nodeName: node.name });
    return E.right(node);
  }

  /**
   * The node a port address names. Switch and hub ports all sit on adapter 0 (the controller
   * exposes them so); another adapter number is refused rather than aliased.
   */
  async nodeAt(at: PortAddress): Promise<E.Either<ComputePortLookupError, ComputeNode>> {
    const node = await this.nodeOf(at.projectId, at.nodeId, at.nodeType);
    if (E.isRight(node) && at.adapterNumber !== 0) {
      return E.left({ _tag: "AdapterNotFound", adapterNumber: at.adapterNumber, nodeName: node.right.name, nodeType: node.right.nodeType });
    }
    return node;
  }
}
