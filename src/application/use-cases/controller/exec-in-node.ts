import { injectable } from "tsyringe";
import * as E from "fp-ts/lib/Either.js";
import type { HostCommandResult } from "../../ports/namespace-hosts.js";
import { CONTROLLER_NODE_LOOKUP_REFUSALS, type Refusal } from "../../errors.js";
import { EXEC_IN_LINUX_HOST_REFUSALS, type ExecInput, ExecInLinuxHost } from "../compute/exec-in-linux-host.js";
import { ControllerLookup } from "./controller-lookup.js";

/** What ExecInNode can answer instead of its result. */
export const EXEC_IN_NODE_REFUSALS = [...CONTROLLER_NODE_LOOKUP_REFUSALS, "ExecNotSupported", ...EXEC_IN_LINUX_HOST_REFUSALS] as const;
export type ExecInNodeError = Refusal<typeof EXEC_IN_NODE_REFUSALS>;

/**
 * A command run inside a controller node (ADR 0087): a Linux host of an opened project, on the local
 * compute, which runs it in the host's namespace. Other kinds have no place to run a program.
 */
@injectable()
export class ExecInNode {
  constructor(
    private readonly lookup: ControllerLookup,
    private readonly hosts: ExecInLinuxHost,
  ) {}

  async execute({ projectId, nodeId, ...input }: ExecInput & { readonly projectId: string; readonly nodeId: string }): Promise<E.Either<ExecInNodeError, HostCommandResult>> {
    const node = await this.lookup.node(projectId, nodeId);
    if (E.isLeft(node)) return node;
    if (node.right.nodeType !== "netemu_host") return E.left({ _tag: "ExecNotSupported", nodeName: node.right.name, nodeType: node.right.nodeType });
    return this.hosts.execute({ projectId, nodeId, ...input });
  }
}
