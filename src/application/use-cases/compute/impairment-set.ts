import { inject, injectable } from "tsyringe";
import * as E from "fp-ts/lib/Either.js";
import { type Impairment, impairs, sameTarget } from "../../../domain/switching/impairment-overlay.js";
import { type FilterSettings, NO_FILTERS, parseFilterSettings } from "../../../domain/filters/filter-settings.js";
import type { DataPlane } from "../../ports/data-plane.js";
import type { ImpairmentStore } from "../../ports/impairment-store.js";
import type { Logger } from "../../ports/system.js";
import { TOKENS } from "../../ports/tokens.js";
import { type ErrorOf, type Refusal, SYNC_REFUSALS } from "../../errors.js";
import { KeyedLock } from "../../keyed-lock.js";
import { FilterPrograms } from "../../filter-programs.js";
import { ImpairmentOverlay } from "./impairment-overlay.js";
import { ImpairmentTargets, type PortByName, PORT_BY_NAME_REFUSALS } from "./impairment-target.js";

export interface SetImpairmentInput extends PortByName {
  /** Frames from the port's peer into the node; netemu's filter kinds, as a NIO's `filters`. Left out: kept; `{}`: cleared. */
  readonly in?: unknown;
  /** Frames the port sends to its peer. */
  readonly out?: unknown;
}

/** What SetImpairment can answer instead of the impairment set: nothing was changed. */
export const SET_IMPAIRMENT_REFUSALS = ["ImpairmentDirectionMissing", "InvalidFilterSettings", ...PORT_BY_NAME_REFUSALS, "ImpairmentsUnwritable", ...SYNC_REFUSALS] as const;
export type SetImpairmentError = Refusal<typeof SET_IMPAIRMENT_REFUSALS>;

/**
 * Sets netemu's impairments on a switch or hub port a GNS3 controller placed here, by the names its
 * GUI shows. They act at once if the port has a NIO, and on every NIO the port gets later (ADR 0067).
 * A direction left out keeps what it had; nothing is kept when the data plane refuses the result.
 */
@injectable()
export class SetImpairment {
  constructor(
    private readonly targets: ImpairmentTargets,
    private readonly overlay: ImpairmentOverlay,
    @inject(TOKENS.ImpairmentStore) private readonly store: ImpairmentStore,
    @inject(TOKENS.DataPlane) private readonly dataPlane: DataPlane,
    @inject(TOKENS.BpfPrograms) private readonly programs: FilterPrograms,
    @inject(TOKENS.KeyedLock) private readonly lock: KeyedLock,
    @inject(TOKENS.Logger) private readonly logger: Logger,
  ) {}

  async execute(input: SetImpairmentInput): Promise<E.Either<SetImpairmentError, Impairment>> {
    if (input.in === undefined && input.out === undefined) return E.left({ _tag: "ImpairmentDirectionMissing" });
    const given = parseDirections(input);
    if (E.isLeft(given)) return given;
    for (const [settings, field] of [[given.right.in, "filters_in"], [given.right.out, "filters_out"]] as const) {
      const compiled = settings === undefined ? E.right(undefined) : await this.programs.check(settings, field);
      if (E.isLeft(compiled)) return compiled;
    }
    const found = await this.targets.resolve(input);
    if (E.isLeft(found)) return found;
    return this.lock.run(found.right.node.nodeId, async () => {
      // Found again under the lock: the node as it is now, not as it was before waiting.
      const again = await this.targets.resolve(input);
      if (E.isLeft(again)) return again;
      const { project, node, portNumber, portName } = again.right;
      // The node's own impairments only: a set costs what its node has, not what the store holds.
      const target = { projectId: project.projectId, nodeId: node.nodeId, portNumber };
      const before = (await this.store.ofNode(node.nodeId)).find((i) => sameTarget(i, target));
      const impairment: Impairment = Object.freeze({
        ...target,
        projectName: project.name,
        nodeName: node.name,
        portName,
        in: given.right.in ?? before?.in ?? NO_FILTERS,
        out: given.right.out ?? before?.out ?? NO_FILTERS,
      });
      // Recorded first, so that a store that cannot record it leaves the live port as it was; put back if the data plane refuses.
      const recorded = await this.store.apply([impairs(impairment) ? { _tag: "Set", impairment } : { _tag: "Remove", target }]);
      if (E.isLeft(recorded)) return recorded;
      const synced = await this.dataPlane.sync(await this.overlay.of(node));
      if (E.isLeft(synced)) {
        await this.overlay.restore([before === undefined ? { _tag: "Remove", target } : { _tag: "Set", impairment: before }]);
        return synced;
      }
      this.logger.info("impairment set", { projectId: project.projectId, nodeId: node.nodeId, name: node.name, portNumber, in: impairment.in, out: impairment.out });
      return E.right(impairment);
    });
  }
}

function parseDirections(input: SetImpairmentInput): E.Either<ErrorOf<"InvalidFilterSettings">, { in?: FilterSettings; out?: FilterSettings }> {
  const parsedIn = input.in === undefined ? E.right(undefined) : parseFilterSettings(input.in, "filters_in");
  if (E.isLeft(parsedIn)) return parsedIn;
  const parsedOut = input.out === undefined ? E.right(undefined) : parseFilterSettings(input.out, "filters_out");
  if (E.isLeft(parsedOut)) return parsedOut;
  return E.right({ ...(parsedIn.right === undefined ? {} : { in: parsedIn.right }), ...(parsedOut.right === undefined ? {} : { out: parsedOut.right }) });
}
