import { inject, injectable } from "tsyringe";
import * as E from "fp-ts/lib/Either.js";
import type { VpcsNode } from "../../../domain/switching/host-node.js";
import type { ConsoleType } from "../../../domain/switching/ethernet-switch.js";
import { parseNodeName, renameNode } from "../../../domain/switching/compute-node.js";
import { readChoice } from "../../../domain/configuration/read.js";
import type { ConsolePortPool, HostProcesses } from "../../ports/host-processes.js";
import { TOKENS } from "../../ports/tokens.js";
import { COMPUTE_NODE_LOOKUP_REFUSALS, type Refusal, SYNC_REFUSALS } from "../../errors.js";
import { KeyedLock } from "../../keyed-lock.js";
import { ComputeLookup } from "./compute-lookup.js";
import { NodeChanges } from "./node-changes.js";
import { VPCS_SCRIPT } from "./host-runtime.js";
import { VPCS_CONSOLE_TYPES, vpcsConsolePort } from "./vpcs-console-port.js";

/** What UpdateVpcs can answer instead of its result. */
export const UPDATE_VPCS_REFUSALS = [...COMPUTE_NODE_LOOKUP_REFUSALS, "InvalidConfiguration", "ConsolePortUnavailable", "ProjectFileUnwritable", ...SYNC_REFUSALS] as const;
export type UpdateVpcsError = Refusal<typeof UPDATE_VPCS_REFUSALS>;

export interface UpdateVpcsInput {
  readonly name?: string | undefined;
  readonly console?: number | null | undefined;
  readonly consoleType?: ConsoleType | undefined;
}

/** GNS3's rename of a VPCS in its script: the old name replaced, and `set pcname` set to the new one. */
export function renamedScript(script: string, from: string, to: string): string {
  return script.split(from).join(to).replace(/^set pcname .+$/gm, `set pcname ${to.replace(/\\/g, "")}`);
}

/**
 * Changes a GNS3 VPCS node on the compute (`PUT /v2/compute/projects/{id}/vpcs/nodes/{node}`): its name
 * (and its script's, as GNS3 renames it), its console port and type (ADR 0081).
 */
@injectable()
export class UpdateVpcs {
  constructor(
    private readonly lookup: ComputeLookup,
    private readonly changes: NodeChanges,
    @inject(TOKENS.ConsolePortPool) private readonly consoles: ConsolePortPool,
    @inject(TOKENS.HostProcesses) private readonly processes: HostProcesses,
    @inject(TOKENS.KeyedLock) private readonly lock: KeyedLock,
  ) {}

  execute({ projectId, nodeId, ...input }: UpdateVpcsInput & { readonly projectId: string; readonly nodeId: string }): Promise<E.Either<UpdateVpcsError, VpcsNode>> {
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
      const consoleType = input.consoleType === undefined ? E.right(node.consoleType) : readChoice(input.consoleType, "console_type", VPCS_CONSOLE_TYPES);
      if (E.isLeft(consoleType)) return consoleType;
      const consoleChanged = consoleType.right !== node.consoleType || (input.console !== undefined && input.console !== node.console);
      if (consoleChanged) {
        const console = await vpcsConsolePort(this.consoles, input.console === undefined ? node.console : input.console, consoleType.right);
        if (E.isLeft(console)) return console;
        if (node.console !== null && node.console !== console.right) this.consoles.release(node.console);
        node = { ...node, console: console.right, consoleType: consoleType.right };
      }
      const applied = await this.changes.apply(found.right, node);
      return E.isLeft(applied) ? applied : E.right(node);
    });
  }
}
