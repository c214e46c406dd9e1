import { inject, injectable } from "tsyringe";
import * as E from "fp-ts/lib/Either.js";
import { type VpcsNode, createVpcsNode } from "../../../domain/switching/host-node.js";
import type { ConsoleType } from "../../../domain/switching/ethernet-switch.js";
import { parseNodeName, renameNode } from "../../../domain/switching/compute-node.js";
import { readChoice, readInteger } from "../../../domain/configuration/read.js";
import type { ConsolePortPool, HostProcesses } from "../../ports/host-processes.js";
import type { ServerSettings } from "../../ports/server-settings.js";
import { TOKENS } from "../../ports/tokens.js";
import { COMPUTE_NODE_LOOKUP_REFUSALS, COMPUTE_PROJECT_LOOKUP_REFUSALS, type ErrorOf, type Refusal, SYNC_REFUSALS } from "../../errors.js";
import { KeyedLock } from "../../keyed-lock.js";
import { ComputeLookup } from "./compute-lookup.js";
import { NodeChanges } from "./node-changes.js";
import { NodeCreation } from "./node-creation.js";
import { computeProjectsPath } from "./capture-path.js";
import { VPCS_SCRIPT } from "./host-runtime.js";

/** What CreateVpcs can answer instead of its result. */
export const CREATE_VPCS_REFUSALS = [...COMPUTE_PROJECT_LOOKUP_REFUSALS, "NodeIdInUse", "InvalidConfiguration", "ProjectFull", "ConsolePortUnavailable", "ProjectFileUnwritable"] as const;
export type CreateVpcsError = Refusal<typeof CREATE_VPCS_REFUSALS>;
/** What UpdateVpcs can answer instead of its result. */
export const UPDATE_VPCS_REFUSALS = [...COMPUTE_NODE_LOOKUP_REFUSALS, "InvalidConfiguration", "ConsolePortUnavailable", "ProjectFileUnwritable", ...SYNC_REFUSALS] as const;
export type UpdateVpcsError = Refusal<typeof UPDATE_VPCS_REFUSALS>;

export interface CreateVpcsInput {
  readonly name: string;
  readonly nodeId?: string | undefined;
  readonly console?: number | null | undefined;
  readonly consoleType?: ConsoleType | undefined;
  /** VPCS commands, one a line; `%h` stands for the node's name (GNS3's base script). */
  readonly startupScript?: string | null | undefined;
  /**
   * Its working directory, when the in-process controller keeps it in its own project's directory (as
   * GNS3 does); the compute API's nodes are under the compute's projects (ADR 0060).
   */
  readonly directory?: string | undefined;
}

export interface UpdateVpcsInput {
  readonly name?: string | undefined;
  readonly console?: number | null | undefined;
  readonly consoleType?: ConsoleType | undefined;
}

const CONSOLE_TYPES = ["telnet", "none"] as const;

/** A VPCS's working directory, laid out as GNS3's: `<compute project>/project-files/vpcs/<node id>`. */
function vpcsDirectory(projectsPath: string, projectId: string, nodeId: string): string {
  return `${computeProjectsPath(projectsPath)}/${projectId}/project-files/vpcs/${nodeId}`;
}

/** GNS3's rename of a VPCS in its script: the old name replaced, and `set pcname` set to the new one. */
export function renamedScript(script: string, from: string, to: string): string {
  return script.split(from).join(to).replace(/^set pcname .+$/gm, `set pcname ${to.replace(/\\/g, "")}`);
}

/**
 * GNS3's VPCS nodes on the compute (`/v2/compute/projects/{id}/vpcs/nodes`): made stopped, with a telnet
 * console port of the console range unless told one (or none), the startup script kept as `startup.vpc`
 * in its directory (ADR 0081).
 */
@injectable()
export class VpcsNodes {
  constructor(
    private readonly creation: NodeCreation,
    private readonly lookup: ComputeLookup,
    private readonly changes: NodeChanges,
    @inject(TOKENS.ConsolePortPool) private readonly consoles: ConsolePortPool,
    @inject(TOKENS.HostProcesses) private readonly processes: HostProcesses,
    @inject(TOKENS.ServerSettings) private readonly settings: ServerSettings,
    @inject(TOKENS.KeyedLock) private readonly lock: KeyedLock,
  ) {}

  /** The console port asked for (claimed), or one of the range, or none for console_type none. */
  private async consoleFor(asked: number | null | undefined, consoleType: ConsoleType): Promise<E.Either<ErrorOf<"ConsolePortUnavailable" | "InvalidConfiguration">, number | null>> {
    if (consoleType === "none") return E.right(null);
    if (asked !== undefined && asked !== null) {
      const port = readInteger(asked, "console", 1, 65_535);
      if (E.isLeft(port)) return port;
      return this.consoles.claim(port.right) ? E.right(port.right) : E.left({ _tag: "ConsolePortUnavailable", port: port.right, ...this.consoles.range });
    }
    const reserved = await this.consoles.reserve();
    return E.isLeft(reserved) ? E.left({ _tag: "ConsolePortUnavailable", ...reserved.left }) : E.right(reserved.right);
  }

  async create({ projectId, ...input }: CreateVpcsInput & { readonly projectId: string }): Promise<E.Either<CreateVpcsError, VpcsNode>> {
    const name = parseNodeName(input.name);
    if (E.isLeft(name)) return name;
    const consoleType = input.consoleType === undefined ? E.right("telnet" as const) : readChoice(input.consoleType, "console_type", CONSOLE_TYPES);
    if (E.isLeft(consoleType)) return consoleType;
    const console = await this.consoleFor(input.console, consoleType.right);
    if (E.isLeft(console)) return console;
    const made = await this.creation.create(projectId, input.nodeId, "vpcs", (nodeId) =>
      createVpcsNode({ nodeId, projectId, name: name.right, console: console.right, consoleType: consoleType.right, directory: input.directory ?? vpcsDirectory(this.settings.projectsPath, projectId, nodeId) }),
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

  update({ projectId, nodeId, ...input }: UpdateVpcsInput & { readonly projectId: string; readonly nodeId: string }): Promise<E.Either<UpdateVpcsError, VpcsNode>> {
    return this.lock.run(nodeId, async () => {
      const found = await this.lookup.nodeOf(projectId, nodeId, "vpcs");
      if (E.isLeft(found)) return found;
      let node = found.right;
      if (input.name !== undefined && input.name !== node.name) {
        const name = parseNodeName(input.name);
        if (E.isLeft(name)) return name;
        const scriptPath = `${node.directory}/${VPCS_SCRIPT}`;
        const script = await this.processes.readFile(scriptPath);
        if (script !== undefined) {
          const written = await this.processes.writeFile(scriptPath, renamedScript(script, node.name, name.right));
          if (E.isLeft(written)) return E.left({ _tag: "ProjectFileUnwritable", path: scriptPath, reason: written.left });
        }
        node = renameNode(node, name.right);
      }
      const consoleType = input.consoleType === undefined ? E.right(node.consoleType) : readChoice(input.consoleType, "console_type", CONSOLE_TYPES);
      if (E.isLeft(consoleType)) return consoleType;
      const consoleChanged = consoleType.right !== node.consoleType || (input.console !== undefined && input.console !== node.console);
      if (consoleChanged) {
        const console = await this.consoleFor(input.console === undefined ? node.console : input.console, consoleType.right);
        if (E.isLeft(console)) return console;
        if (node.console !== null && node.console !== console.right) this.consoles.release(node.console);
        node = { ...node, console: console.right, consoleType: consoleType.right };
      }
      const applied = await this.changes.apply(found.right, node);
      return E.isLeft(applied) ? applied : E.right(node);
    });
  }
}
