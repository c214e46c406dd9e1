import { inject, injectable } from "tsyringe";
import * as E from "fp-ts/lib/Either.js";
import type { Impairment } from "../../../domain/switching/impairment-overlay.js";
import type { ImpairmentStore } from "../../ports/impairment-store.js";
import { TOKENS } from "../../ports/tokens.js";
import { type ImpairmentNow, ScheduleClockwork } from "../../schedules/schedule-clockwork.js";

/** Which impairments a list or a clear is about: each given name (or id, or port number) must match. */
export interface ImpairmentSelection {
  readonly project?: string | undefined;
  readonly node?: string | undefined;
  readonly port?: string | undefined;
}

/** Whether the impairment is one the selection names, by the names it was set with or by ids. */
export function selects(s: ImpairmentSelection, i: Impairment): boolean {
  return (
    (s.project === undefined || s.project === i.projectName || s.project === i.projectId) &&
    (s.node === undefined || s.node === i.nodeName || s.node === i.nodeId) &&
    (s.port === undefined || s.port === i.portName || s.port === String(i.portNumber))
  );
}

/** Listing refuses nothing: a selection that names nothing lists nothing. */
export const LIST_IMPAIRMENTS_REFUSALS = [] as const;

/**
 * netemu's impairments on GNS3 ports, also those of projects that are closed now (they come back
 * with the project: ADR 0067), by project, node and port name.
 */
@injectable()
export class ListImpairments {
  constructor(
    @inject(TOKENS.ImpairmentStore) private readonly store: ImpairmentStore,
    // Where each schedule is now (ADR 0102); optional for a hand-built list.
    private readonly schedules?: ScheduleClockwork,
  ) {}

  async execute(selection: ImpairmentSelection = {}): Promise<E.Either<never, readonly ImpairmentNow[]>> {
    const all = (await this.store.list()).filter((i) => selects(selection, i)).map((i) => this.schedules?.now(i) ?? i);
    return E.right([...all].sort((a, b) => a.projectName.localeCompare(b.projectName) || a.nodeName.localeCompare(b.nodeName) || a.portNumber - b.portNumber));
  }
}
