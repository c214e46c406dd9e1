import { inject, injectable } from "tsyringe";
import * as E from "fp-ts/lib/Either.js";
import { type VpcsNode, createVpcsNode } from "../../../domain/switching/host-node.js";
import type { ConsoleType } from "../../../domain/switching/ethernet-switch.js";
import { parseNodeName } from "../../../domain/switching/compute-node.js";
import { readChoice } from "../../../domain/configuration/read.js";
import type { ConsolePortPool, HostProcesses } from "../../ports/host-processes.js";
import type { ServerSettings } from "../../ports/server-settings.js";
import { TOKENS } from "../../ports/tokens.js";
import { COMPUTE_PROJECT_LOOKUP_REFUSALS, type Refusal } from "../../errors.js";
import { type HostCreationInput, NodeCreation } from "./node-creation.js";
import { computeNodeDirectory } from "./capture-path.js";
import { VPCS_SCRIPT } from "./host-runtime.js";
import { VPCS_CONSOLE_TYPES, vpcsConsolePort } from "./vpcs-console-port.js";

/** What CreateVpcs can answer instead of its result. */
export const CREATE_VPCS_REFUSALS = [...COMPUTE_PROJECT_LOOKUP_REFUSALS, "NodeIdInUse", "InvalidConfiguration", "ProjectFull", "ConsolePortUnavailable", "ProjectFileUnwritable"] as const;
export type CreateVpcsError = Refusal<typeof CREATE_VPCS_REFUSALS>;

export interface CreateVpcsInput extends HostCreationInput {
  readonly console?: number | null | undefined;
  readonly consoleType?: ConsoleType | undefined;
  /** VPCS commands, one a line; `%h` stands for the node's name (GNS3's base script). */
  readonly startupScript?: string | null | undefined;
}

/**
 * Makes a GNS3 VPCS node on the compute (`POST /v2/compute/projects/{id}/vpcs/nodes`): stopped, with a
 * telnet console port of the console range unless told one (or none), the startup script kept as
 * `startup.vpc` in its directory (ADR 0081).
 */
@injectable()
export class CreateVpcs {
  constructor(
    private readonly creation: NodeCreation,
    @inject(TOKENS.ConsolePortPool) private readonly consoles: ConsolePortPool,
    @inject(TOKENS.HostProcesses) private readonly processes: HostProcesses,
    @inject(TOKENS.ServerSettings) private readonly settings: ServerSettings,
  ) {}

  async execute({ projectId, ...input }: CreateVpcsInput & { readonly projectId: string }): Promise<E.Either<CreateVpcsError, VpcsNode>> {
    const name = parseNodeName(input.name);
    if (E.isLeft(name)) return name;
    const consoleType = input.consoleType === undefined ? E.right("telnet" as const) : readChoice(input.consoleType, "console_type", VPCS_CONSOLE_TYPES);
    if (E.isLeft(consoleType)) return consoleType;
    const console = await vpcsConsolePort(this.consoles, input.console, consoleType.right);
    if (E.isLeft(console)) return console;
    const made = await this.creation.create(projectId, input.nodeId, "vpcs", (nodeId) =>
      createVpcsNode({ nodeId, projectId, name: name.right, console: console.right, consoleType: consoleType.right, directory: input.directory ?? computeNodeDirectory(this.settings.projectsPath, projectId, "vpcs", nodeId) }),
    );
    // An id already known answers that node: the port taken for this request goes back.
    if ((E.isLeft(made) || made.right.console !== console.right) && console.right !== null) this.consoles.release(console.right);
    if (E.isLeft(made)) return made;
    const node = made.right;
    const scriptPath = `${node.directory}/${VPCS_SCRIPT}`;
    // GNS3 keeps a script it already has (a duplicated or re-opened node's), and writes one only when asked.
    if (input.startupScript !== undefined && input.startupScript !== null && (await this.processes.readFile(scriptPath)) === undefined) {
      const written = await this.processes.writeFile(scriptPath, input.startupScript.replace(/%h/g, node.name));
      if (E.isLeft(written)) return E.left({ _tag: "ProjectFileUnwritable", path: scriptPath, reason: written.left });
    }
    return E.right(node);
  }
}
