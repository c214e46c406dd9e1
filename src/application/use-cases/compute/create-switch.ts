import { inject, injectable } from "tsyringe";
import * as E from "fp-ts/lib/Either.js";
import { type EthernetSwitch, type ConsoleType, createEthernetSwitch } from "../../../domain/switching/ethernet-switch.js";
import { type PortMappingEntry, defaultPortsMapping } from "../../../domain/switching/port.js";
import type { ComputeNodeRepository } from "../../ports/repositories.js";
import type { IdGenerator } from "../../ports/system.js";
import { TOKENS } from "../../ports/tokens.js";
import type { ComputeProjectLookupError, ErrorOf } from "../../errors.js";
import { KeyedLock } from "../../keyed-lock.js";
import { ComputeLookup } from "./compute-lookup.js";
import { computeProjectKey } from "./compute-project-closing.js";

/** What CreateSwitch can answer instead of its result. */
export type CreateSwitchError = ComputeProjectLookupError | ErrorOf<"NodeIdInUse">;

export interface CreateSwitchInput {
  readonly name: string;
  readonly nodeId?: string | undefined;
  readonly console?: number | null | undefined;
  readonly consoleType?: ConsoleType | undefined;
  readonly portsMapping?: readonly PortMappingEntry[] | undefined;
}

@injectable()
export class CreateSwitch {
  constructor(
    private readonly lookup: ComputeLookup,
    @inject(TOKENS.ComputeNodeRepository) private readonly nodes: ComputeNodeRepository,
    @inject(TOKENS.IdGenerator) private readonly ids: IdGenerator,
    @inject(TOKENS.KeyedLock) private readonly lock: KeyedLock,
  ) {}

  async execute({ projectId, ...input }: CreateSwitchInput & { readonly projectId: string }): Promise<E.Either<CreateSwitchError, EthernetSwitch>> {
    // The project's lock first (ADR 0039): a close running meanwhile finishes before the check.
    return this.lock.run(computeProjectKey(projectId), async () => {
      const project = await this.lookup.project(projectId);
      if (E.isLeft(project)) return project;
      const nodeId = input.nodeId ?? this.ids.uuid();
      return this.lock.run(nodeId, async () => {
      // GNS3 answers the existing node when its id is already known on this compute.
      const existing = await this.nodes.get(nodeId);
      if (existing?.nodeType === "ethernet_switch") return E.right(existing);
      if (existing !== undefined) return E.left({ _tag: "NodeIdInUse", nodeId, nodeType: existing.nodeType });
      const sw = createEthernetSwitch({
        nodeId,
        projectId,
        name: input.name,
        console: input.console ?? null,
        consoleType: input.consoleType ?? "none",
        portsMapping: input.portsMapping ?? defaultPortsMapping(),
      });
      await this.nodes.save(sw);
      return E.right(sw);
      });
    });
  }
}
