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
import { type ArmedSchedule, type Schedule, parseSchedule } from "../../../domain/filters/schedule.js";
import { invalidConfiguration } from "../../../domain/configuration/invalid-configuration.js";
import type { Clock } from "../../ports/system.js";
import { type ImpairmentNow, ScheduleClockwork } from "../../schedules/schedule-clockwork.js";

export interface SetImpairmentInput extends PortByName {
  /** Frames from the port's peer into the node; netemu's filter kinds, as a NIO's `filters`. Left out: kept; `{}`: cleared. */
  readonly in?: unknown;
  /** Frames the port sends to its peer. */
  readonly out?: unknown;
  /** A schedule of the `in` direction (ADR 0102): its active step runs instead of fixed filters, which it clears. */
  readonly scheduleIn?: unknown;
  readonly scheduleOut?: unknown;
}

/** What SetImpairment can answer instead of the impairment set: nothing was changed. */
export const SET_IMPAIRMENT_REFUSALS = ["ImpairmentDirectionMissing", "InvalidFilterSettings", "InvalidConfiguration", ...PORT_BY_NAME_REFUSALS, "ImpairmentsUnwritable", ...SYNC_REFUSALS] as const;
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
    @inject(TOKENS.Clock) private readonly clock: Clock,
    private readonly schedules?: ScheduleClockwork,
  ) {}

  async execute(input: SetImpairmentInput): Promise<E.Either<SetImpairmentError, ImpairmentNow>> {
    if (input.in === undefined && input.out === undefined && input.scheduleIn === undefined && input.scheduleOut === undefined) return E.left({ _tag: "ImpairmentDirectionMissing" });
    const given = parseDirections(input);
    if (E.isLeft(given)) return given;
    const scheduled = parseSchedules(input);
    if (E.isLeft(scheduled)) return scheduled;
    for (const [settings, field] of [[given.right.in, "filters_in"], [given.right.out, "filters_out"]] as const) {
      const compiled = settings === undefined ? E.right(undefined) : await this.programs.check(settings, field);
      if (E.isLeft(compiled)) return compiled;
    }
    // Each step's expressions compile before anything changes, as a direction's filters do.
    for (const [schedule, field] of [[scheduled.right.in, "schedule_in"], [scheduled.right.out, "schedule_out"]] as const) {
      for (const [index, step] of (schedule?.steps ?? []).entries()) {
        const compiled = await this.programs.check(step.filters, `${field}.steps[${index}].filters`);
        if (E.isLeft(compiled)) return compiled;
      }
    }
    const setAtMs = this.clock.nowMs();
    const armed = (s: Schedule | undefined): ArmedSchedule | undefined => (s === undefined ? undefined : Object.freeze({ schedule: s, setAtMs }));
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
      // A direction given fixed filters loses its schedule, and one given a schedule its fixed filters; one left out keeps both.
      const direction = (fixed: FilterSettings | undefined, schedule: Schedule | undefined, fixedBefore: FilterSettings | undefined, scheduleBefore: ArmedSchedule | undefined) =>
        fixed !== undefined ? { filters: fixed } : schedule !== undefined ? { filters: NO_FILTERS, schedule: armed(schedule) } : { filters: fixedBefore ?? NO_FILTERS, schedule: scheduleBefore };
      const dirIn = direction(given.right.in, scheduled.right.in, before?.in, before?.scheduleIn);
      const dirOut = direction(given.right.out, scheduled.right.out, before?.out, before?.scheduleOut);
      const impairment: Impairment = Object.freeze({
        ...target,
        projectName: project.name,
        nodeName: node.name,
        portName,
        in: dirIn.filters,
        out: dirOut.filters,
        ...(dirIn.schedule === undefined ? {} : { scheduleIn: dirIn.schedule }),
        ...(dirOut.schedule === undefined ? {} : { scheduleOut: dirOut.schedule }),
      });
      // Recorded first, so that a store that cannot record it leaves the live port as it was; put back if the data plane refuses.
      const recorded = await this.store.apply([impairs(impairment) ? { _tag: "Set", impairment } : { _tag: "Remove", target }]);
      if (E.isLeft(recorded)) return recorded;
      const synced = await this.dataPlane.sync(await this.overlay.of(node));
      if (E.isLeft(synced)) {
        await this.overlay.restore([before === undefined ? { _tag: "Remove", target } : { _tag: "Set", impairment: before }]);
        return synced;
      }
      this.logger.info("impairment set", { projectId: project.projectId, nodeId: node.nodeId, name: node.name, portNumber, in: impairment.in, out: impairment.out, scheduled: [impairment.scheduleIn && "in", impairment.scheduleOut && "out"].filter(Boolean) });
      return E.right(this.schedules?.now(impairment) ?? impairment);
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

/** Each direction's schedule, parsed; a direction given both fixed filters and a schedule is refused (which would run?). */
function parseSchedules(input: SetImpairmentInput): E.Either<ErrorOf<"InvalidFilterSettings" | "InvalidConfiguration">, { in?: Schedule; out?: Schedule }> {
  const out: { in?: Schedule; out?: Schedule } = {};
  for (const [raw, fixed, field, other, key] of [[input.scheduleIn, input.in, "schedule_in", "filters_in", "in"], [input.scheduleOut, input.out, "schedule_out", "filters_out", "out"]] as const) {
    if (raw === undefined) continue;
    if (fixed !== undefined) return E.left(invalidConfiguration(field, { rule: "exclusive_with", other }, raw));
    const parsed = parseSchedule(raw, field);
    if (E.isLeft(parsed)) return parsed;
    out[key] = parsed.right;
  }
  return E.right(out);
}
