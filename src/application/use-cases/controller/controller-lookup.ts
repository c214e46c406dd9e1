import { inject, injectable } from "tsyringe";
import * as E from "fp-ts/lib/Either.js";
import type { Project } from "../../../domain/topology/project.js";
import type { ControllerNode } from "../../../domain/topology/node.js";
import type { Link } from "../../../domain/topology/link.js";
import type { ProjectRepository, NodeRepository, LinkRepository } from "../../ports/repositories.js";
import { TOKENS } from "../../ports/tokens.js";
import type { ControllerLinkLookupError, ControllerNodeLookupError, ControllerProjectLookupError, ErrorOf } from "../../errors.js";

/** The controller's lookups: ids are not syntax-checked (GNS3 answers 404 for any unknown id). */
@injectable()
export class ControllerLookup {
  constructor(
    @inject(TOKENS.ProjectRepository) private readonly projects: ProjectRepository,
    @inject(TOKENS.NodeRepository) private readonly nodes: NodeRepository,
    @inject(TOKENS.LinkRepository) private readonly links: LinkRepository,
  ) {}

  async project(projectId: string): Promise<E.Either<ErrorOf<"ProjectNotFound">, Project>> {
    const project = await this.projects.get(projectId);
    return project === undefined ? E.left({ _tag: "ProjectNotFound", projectId }) : E.right(project);
  }

  async openedProject(projectId: string): Promise<E.Either<ControllerProjectLookupError, Project>> {
    const project = await this.project(projectId);
    if (E.isRight(project) && project.right.status !== "opened") return E.left({ _tag: "ProjectNotOpened", projectId });
    return project;
  }

  async node(projectId: string, nodeId: string): Promise<E.Either<ControllerNodeLookupError, ControllerNode>> {
    const project = await this.openedProject(projectId);
    if (E.isLeft(project)) return project;
    const node = await this.nodes.get(projectId, nodeId);
    return node === undefined ? E.left({ _tag: "NodeNotFound", nodeId }) : E.right(node);
  }

  async link(projectId: string, linkId: string): Promise<E.Either<ControllerLinkLookupError, Link>> {
    const project = await this.openedProject(projectId);
    if (E.isLeft(project)) return project;
    const link = await this.links.get(projectId, linkId);
    return link === undefined ? E.left({ _tag: "LinkNotFound", linkId }) : E.right(link);
  }
}
