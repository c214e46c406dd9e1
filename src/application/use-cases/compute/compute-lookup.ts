import { inject, injectable } from "tsyringe";
import * as E from "fp-ts/lib/Either.js";
import type { ComputeProject } from "../../../domain/topology/project.js";
import type { EthernetSwitch } from "../../../domain/switching/ethernet-switch.js";
import { isValidUuid } from "../../../domain/topology/ids.js";
import type { ComputeProjectRepository, SwitchRepository } from "../../ports/repositories.js";
import { TOKENS } from "../../ports/tokens.js";
import type { NetemuError } from "../../errors.js";

/** A switch port as the NIO and capture routes name it. */
export interface PortAddress {
  readonly projectId: string;
  readonly nodeId: string;
  readonly adapterNumber: number;
  readonly portNumber: number;
}

/** The compute's id checks, in GNS3's order: project syntax, project, node syntax, node, ownership. */
@injectable()
export class ComputeLookup {
  constructor(
    @inject(TOKENS.ComputeProjectRepository) private readonly projects: ComputeProjectRepository,
    @inject(TOKENS.SwitchRepository) private readonly switches: SwitchRepository,
  ) {}

  async project(projectId: string): Promise<E.Either<NetemuError, ComputeProject>> {
    if (!isValidUuid(projectId)) return E.left({ _tag: "InvalidUuid", what: "Project", id: projectId });
    const project = await this.projects.get(projectId);
    return project === undefined ? E.left({ _tag: "ProjectNotFound", projectId }) : E.right(project);
  }

  async switchOf(projectId: string, nodeId: string): Promise<E.Either<NetemuError, EthernetSwitch>> {
    const project = await this.project(projectId);
    if (E.isLeft(project)) return project;
    if (!isValidUuid(nodeId)) return E.left({ _tag: "InvalidUuid", what: "Node", id: nodeId });
    const sw = await this.switches.get(nodeId);
    if (sw === undefined) return E.left({ _tag: "NodeNotFound", nodeId });
    if (sw.projectId !== projectId) return E.left({ _tag: "NodeNotInProject", projectId, nodeName: sw.name });
    return E.right(sw);
  }

  /**
   * The switch a port address names. Ethernet switch ports all sit on adapter 0 (the controller
   * exposes them so); another adapter number is refused rather than aliased.
   */
  async switchAt(at: PortAddress): Promise<E.Either<NetemuError, EthernetSwitch>> {
    const sw = await this.switchOf(at.projectId, at.nodeId);
    if (E.isRight(sw) && at.adapterNumber !== 0) {
      return E.left({ _tag: "AdapterNotFound", adapterNumber: at.adapterNumber, switchName: sw.right.name });
    }
    return sw;
  }
}
