import type { FilterSettings } from "../../domain/filters/filter-settings.js";
import { traceNames } from "../../domain/filters/filter-settings.js";
import type { ArmedSchedule } from "../../domain/filters/schedule.js";
import { carriesFrames } from "../../domain/switching/nio.js";
import type { ImpairmentStore } from "../ports/impairment-store.js";
import type { ComputeNodeRepository } from "../ports/repositories.js";

/** Every filter set a schedule may run: its steps (ADR 0102). */
function scheduled(schedule: ArmedSchedule | undefined): readonly FilterSettings[] {
  return schedule === undefined ? [] : schedule.schedule.steps.map((s) => s.filters);
}

const names = (sets: readonly (FilterSettings | undefined)[], name: string): boolean => sets.some((s) => s !== undefined && traceNames(s).some((t) => t.name === name));

/**
 * Where a trace is named (ADR 0103): the NIO filters of this compute's nodes (a controller's links
 * included: they are its NIOs' filters), their schedules' steps, and the overlays on GNS3 ports.
 */
export async function traceUsers(name: string, nodes: ComputeNodeRepository, impairments: ImpairmentStore): Promise<string[]> {
  const users: string[] = [];
  for (const node of await nodes.list()) {
    for (const [portNumber, nio] of node.nios) {
      if (!carriesFrames(nio)) continue;
      if (names([nio.filters, nio.filtersIn, nio.filtersOut, ...scheduled(nio.scheduleIn), ...scheduled(nio.scheduleOut)], name)) users.push(`node ${node.name} port ${portNumber}`);
    }
  }
  for (const i of await impairments.list()) {
    if (names([i.in, i.out, ...scheduled(i.scheduleIn), ...scheduled(i.scheduleOut)], name)) users.push(`impairment on ${i.nodeName} ${i.portName}`);
  }
  return users;
}
