import { inject, injectable } from "tsyringe";
import * as E from "fp-ts/lib/Either.js";
import type { ComputeProject } from "../../../domain/topology/project.js";
import type { ComputeNode } from "../../../domain/switching/compute-node.js";
import type { ComputeNodeRepository, ComputeProjectRepository } from "../../ports/repositories.js";
import { TOKENS } from "../../ports/tokens.js";
import type { Refusal } from "../../errors.js";

/** A port as a GNS3 user names it: project, node and port by the names the GUI shows (or ids, numbers). */
export interface PortByName {
  readonly project: string;
  readonly node: string;
  /** The port's name in ports_mapping ("Ethernet2"), else its number ("2"). */
  readonly port: string;
}

interface ResolvedPort {
  readonly project: ComputeProject;
  readonly node: ComputeNode;
  readonly portNumber: number;
  readonly portName: string;
}

/** What finding a port by name can answer instead of the port. */
export const PORT_BY_NAME_REFUSALS = ["ImpairmentTargetNotFound", "ImpairmentTargetAmbiguous"] as const;
export type PortByNameError = Refusal<typeof PORT_BY_NAME_REFUSALS>;

/** Finds the live port a GNS3 user names; a name two projects (or two nodes of one) share is refused, not guessed. */
@injectable()
export class ImpairmentTargets {
  constructor(
    @inject(TOKENS.ComputeProjectRepository) private readonly projects: ComputeProjectRepository,
    @inject(TOKENS.ComputeNodeRepository) private readonly nodes: ComputeNodeRepository,
  ) {}

  async resolve(at: PortByName): Promise<E.Either<PortByNameError, ResolvedPort>> {
    const project = pick(await this.projects.list(), at.project, (p) => p.projectId, (p) => p.name, "project");
    if (E.isLeft(project)) return project;
    const inProject = (await this.nodes.list()).filter((n) => n.projectId === project.right.projectId);
    const node = pick(inProject, at.node, (n) => n.nodeId, (n) => n.name, "node", `project "${project.right.name}"`);
    if (E.isLeft(node)) return node;
    const ports = node.right.portsMapping;
    const port = ports.find((p) => p.name === at.port) ?? ports.find((p) => String(p.port_number) === at.port);
    if (port === undefined) return E.left({ _tag: "ImpairmentTargetNotFound", what: "port", name: at.port, within: `node "${node.right.name}"` });
    return E.right({ project: project.right, node: node.right, portNumber: port.port_number, portName: port.name });
  }
}

function pick<T>(
  all: readonly T[],
  ref: string,
  id: (t: T) => string,
  name: (t: T) => string,
  what: "project" | "node",
  within?: string,
): E.Either<PortByNameError, T> {
  const byId = all.find((t) => id(t) === ref);
  if (byId !== undefined) return E.right(byId);
  const named = all.filter((t) => name(t) === ref);
  if (named.length > 1) return E.left({ _tag: "ImpairmentTargetAmbiguous", what, name: ref, count: named.length });
  if (named.length === 0) return E.left({ _tag: "ImpairmentTargetNotFound", what, name: ref, ...(within === undefined ? {} : { within }) });
  return E.right(named[0]!);
}
