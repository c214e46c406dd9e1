import { inject, injectable } from "tsyringe";
import * as E from "fp-ts/lib/Either.js";
import { type EthernetHub, type HubPortEntry, createEthernetHub, defaultHubPorts } from "../../../domain/switching/ethernet-hub.js";
import type { ComputeNodeRepository } from "../../ports/repositories.js";
import type { IdGenerator } from "../../ports/system.js";
import { TOKENS } from "../../ports/tokens.js";
import type { ComputeProjectLookupError, ErrorOf } from "../../errors.js";
import { KeyedLock } from "../../keyed-lock.js";
import { ComputeLookup } from "./compute-lookup.js";
import { computeProjectKey } from "./compute-project-closing.js";

/** What CreateHub can answer instead of its result. */
export type CreateHubError = ComputeProjectLookupError | ErrorOf<"NodeIdInUse">;

export interface CreateHubInput {
  readonly name: string;
  readonly nodeId?: string | undefined;
  readonly portsMapping?: readonly HubPortEntry[] | undefined;
}

/** An Ethernet hub: 8 ports named Ethernet0..7 unless ports_mapping says otherwise. */
@injectable()
export class CreateHub {
  constructor(
    private readonly lookup: ComputeLookup,
    @inject(TOKENS.ComputeNodeRepository) private readonly nodes: ComputeNodeRepository,
    @inject(TOKENS.IdGenerator) private readonly ids: IdGenerator,
    @inject(TOKENS.KeyedLock) private readonly lock: KeyedLock,
  ) {}

  async execute({ projectId, ...input }: CreateHubInput & { readonly projectId: string }): Promise<E.Either<CreateHubError, EthernetHub>> {
    // The project's lock first (ADR 0039): a close running meanwhile finishes before the check.
    return this.lock.run(computeProjectKey(projectId), async () => {
      const project = await this.lookup.project(projectId);
      if (E.isLeft(project)) return project;
      const nodeId = input.nodeId ?? this.ids.uuid();
      return this.lock.run(nodeId, async () => {
      const existing = await this.nodes.get(nodeId);
      if (existing?.nodeType === "ethernet_hub") return E.right(existing);
      if (existing !== undefined) return E.left({ _tag: "NodeIdInUse", nodeId, nodeType: existing.nodeType });
      const hub = createEthernetHub({ nodeId, projectId, name: input.name, portsMapping: input.portsMapping ?? defaultHubPorts() });
      await this.nodes.save(hub);
      return E.right(hub);
      });
    });
  }
}
