import type { ComputeNode } from "./compute-node.js";
import { type Nio, carriesFrames, filtersOfNio, withFilters } from "./nio.js";
import { NO_FILTERS } from "../filters/filter-settings.js";
import { type FilterSettings, hasFilters } from "../filters/filter-settings.js";
import { FILTER_KINDS } from "../filters/catalogue.js";
import type { ArmedSchedule } from "../filters/schedule.js";

/**
 * Which port an impairment sits on: by ids, which GNS3 keeps when it re-creates a project's nodes on
 * a compute (project closed and opened, link deleted and made again), unlike a NIO, which comes and
 * goes with every link (ADR 0067).
 */
export interface ImpairmentTarget {
  readonly projectId: string;
  readonly nodeId: string;
  readonly portNumber: number;
}

/**
 * netemu's impairments on one switch or hub port, per direction: `in` acts on the frames coming from
 * the port's peer, `out` on those the port sends to it (ADR 0051's directions). The names are the
 * ones the GUI showed when it was set, so that a list reads without the project being open.
 */
export interface Impairment extends ImpairmentTarget {
  readonly projectName: string;
  readonly nodeName: string;
  readonly portName: string;
  readonly in: FilterSettings;
  readonly out: FilterSettings;
  /** A direction's impairments as a function of time (ADR 0102): its active step runs instead of `in`/`out`, which are then empty. */
  readonly scheduleIn?: ArmedSchedule;
  readonly scheduleOut?: ArmedSchedule;
}

export function sameTarget(a: ImpairmentTarget, b: ImpairmentTarget): boolean {
  return a.projectId === b.projectId && a.nodeId === b.nodeId && a.portNumber === b.portNumber;
}

/** Whether the impairment still holds a filter in either direction (one that does not is forgotten). */
export function impairs(i: Impairment): boolean {
  return hasFilters(i.in) || hasFilters(i.out) || i.scheduleIn !== undefined || i.scheduleOut !== undefined;
}

/**
 * A NIO as the data plane runs it under an impairment: each direction's filters are the NIO's own
 * with the kinds the impairment sets replacing theirs, so netemu's overlay wins on a kind both set
 * and leaves the others alone. GNS3 never puts filters on a switch's NIO, so in a GNS3 lab the overlay
 * is all there is; an embedder's own filters still act for the kinds the overlay leaves out.
 */
export function impairedNio(nio: Nio, impairment: Pick<Impairment, "in" | "out">): Nio {
  if (!carriesFrames(nio)) return nio;
  const own = filtersOfNio(nio);
  return withFilters(nio, { filters: own.filters, filtersIn: overridden(own.filtersIn, impairment.in), filtersOut: overridden(own.filtersOut, impairment.out) }, nio.suspend);
}

/** `base` with the kinds `over` sets replacing its own, in catalogue order (the canonical form, ADR 0053). */
function overridden(base: FilterSettings, over: FilterSettings): FilterSettings {
  if (!hasFilters(over)) return base;
  const merged: Record<string, unknown> = {};
  for (const kind of FILTER_KINDS) {
    const values = over[kind] ?? base[kind];
    if (values !== undefined) merged[kind] = values;
  }
  return Object.freeze(merged) as FilterSettings;
}

/**
 * The node as the data plane must run it: each port with a NIO and an impairment of this node gets
 * impairedNio; the record (what GNS3 reads back) is left as it is. The same node when none applies.
 */
export function impairedNode<N extends ComputeNode>(node: N, impairments: readonly Impairment[]): N {
  const mine = impairments.filter((i) => i.nodeId === node.nodeId && i.projectId === node.projectId && node.nios.has(i.portNumber));
  if (mine.length === 0) return node;
  const nios = new Map(node.nios);
  for (const i of mine) nios.set(i.portNumber, impairedNio(nios.get(i.portNumber)!, i));
  return { ...node, nios };
}

/**
 * The node without its NIOs' schedules (the data plane runs filters, never schedules), and each
 * scheduled NIO's schedules as an impairment of its port (ADR 0102), whose active step the overlay
 * lays on the NIO as it lays any impairment: a scheduled direction has no fixed filters of its own, so
 * the step is that direction's filters. The same node when no NIO has a schedule.
 */
export function nioSchedules<N extends ComputeNode>(node: N, projectName: string = node.projectId): { readonly node: N; readonly scheduled: readonly Impairment[] } {
  let nios: Map<number, Nio> | undefined;
  const scheduled: Impairment[] = [];
  for (const [portNumber, nio] of node.nios) {
    if (!carriesFrames(nio) || (nio.scheduleIn === undefined && nio.scheduleOut === undefined)) continue;
    nios ??= new Map(node.nios);
    nios.set(portNumber, withFilters(nio, filtersOfNio(nio), nio.suspend));
    const portName = "portsMapping" in node ? ((node.portsMapping as readonly { port_number: number; name: string }[]).find((p) => p.port_number === portNumber)?.name ?? String(portNumber)) : String(portNumber);
    scheduled.push(
      Object.freeze({
        projectId: node.projectId,
        nodeId: node.nodeId,
        portNumber,
        projectName,
        nodeName: node.name,
        portName,
        in: NO_FILTERS,
        out: NO_FILTERS,
        ...(nio.scheduleIn === undefined ? {} : { scheduleIn: nio.scheduleIn }),
        ...(nio.scheduleOut === undefined ? {} : { scheduleOut: nio.scheduleOut }),
      }),
    );
  }
  return nios === undefined ? { node, scheduled } : { node: { ...node, nios }, scheduled };
}
