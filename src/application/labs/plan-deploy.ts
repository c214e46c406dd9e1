import * as E from "fp-ts/lib/Either.js";
import { type FilterSettings, filterSettingsEqual } from "../../domain/filters/filter-settings.js";
import { scheduleEqual } from "../../domain/filters/schedule.js";
import type { Lab, LabLink, LabLinkEnd, LabNode, LabNodeSettings } from "./lab.js";

/**
 * One step of a deploy, in the lab's names; the executor (an adapter) turns names into ids as it goes.
 * Each step is one call of the controller's API.
 */
export type LabOperation =
  | { readonly op: "createProject"; readonly name: string }
  | { readonly op: "deleteLink"; readonly linkId: string; readonly ends: readonly [LabLinkEnd, LabLinkEnd] }
  | { readonly op: "deleteNode"; readonly name: string }
  | { readonly op: "updateNode"; readonly node: LabNode }
  | { readonly op: "createNode"; readonly node: LabNode; readonly x: number; readonly y: number }
  | { readonly op: "createLink"; readonly link: LabLink }
  | { readonly op: "updateLink"; readonly linkId: string; readonly link: LabLink }
  | { readonly op: "startNodes" };

/** The project a lab of the same name already runs as, read as a lab (labOfProject), with what a plan needs of its ids. */
export interface CurrentLab {
  readonly projectId: string;
  readonly lab: Lab;
  /** Link ids, in lab.links' order. */
  readonly linkIds: readonly string[];
  /** Nodes not started (stopped or suspended). */
  readonly notStarted: readonly string[];
}

/** Deploying a lab whose project exists, without being asked to reconfigure it: nothing is changed. */
export interface LabExists {
  readonly _tag: "LabExists";
  readonly name: string;
  readonly projectId: string;
  /** How many steps a reconfigure would take (0: the project is the lab already). */
  readonly changes: number;
}

interface DeployOptions {
  readonly reconfigure: boolean;
}

/** Where a node the lab does not place is drawn: a grid of six columns, 150 px apart, centred on the scene. */
function gridPosition(index: number): { x: number; y: number } {
  return { x: (index % 6) * 150 - 375, y: Math.floor(index / 6) * 150 - 200 };
}

const endKey = (e: LabLinkEnd): string => `${e.node}\u0000${e.port}`;
/** A link's identity: its two ends, in either order. */
const linkKey = (l: LabLink): string => [endKey(l.ends[0]), endKey(l.ends[1])].sort().join("\u0001");

/** What each end sends through its one-way impairments, by end: orientation-free. */
function outFilters(l: LabLink): Map<string, FilterSettings> {
  return new Map([
    [endKey(l.ends[0]), l.aToB],
    [endKey(l.ends[1]), l.bToA],
  ]);
}

function sameValue(a: unknown, b: unknown): boolean {
  return JSON.stringify(a) === JSON.stringify(b);
}

function settingsOf(node: LabNode): LabNodeSettings {
  const { name: _name, x: _x, y: _y, ...settings } = node;
  return settings as LabNodeSettings;
}

/** Whether the link carries the same traffic the same way (its style only when the lab gives one). */
function sameLink(want: LabLink, have: LabLink): boolean {
  const a = outFilters(want);
  const b = outFilters(have);
  return (
    filterSettingsEqual(want.filters, have.filters) &&
    [...a].every(([end, f]) => filterSettingsEqual(f, b.get(end) ?? {})) &&
    want.suspend === have.suspend &&
    // A schedule left as it is keeps running from when it was set (ADR 0102): only a changed one is sent again.
    scheduleEqual(want.aToBSchedule, have.aToBSchedule) &&
    scheduleEqual(want.bToASchedule, have.bToASchedule) &&
    (want.style === undefined || sameValue(want.style, have.style ?? {}))
  );
}

/**
 * The steps that make the server run `lab` (ADR 0084), pure: from nothing (a new project), or from the
 * project that already runs it. Without `reconfigure`, an existing project is refused and left alone.
 * With it, the plan converges: links that differ or whose nodes are re-made go first, then nodes that the
 * lab no longer has, nodes whose settings changed are updated (re-made when their kind changed), new nodes
 * made, links made and updated, and every node started. A project that is the lab already needs no step.
 */
export function planDeploy(lab: Lab, current: CurrentLab | undefined, options: DeployOptions): E.Either<LabExists, readonly LabOperation[]> {
  if (current === undefined) {
    return E.right([
      { op: "createProject", name: lab.name },
      ...lab.nodes.map((node, i): LabOperation => ({ op: "createNode", node, ...position(node, i) })),
      ...lab.links.map((link): LabOperation => ({ op: "createLink", link })),
      ...(lab.nodes.length === 0 ? [] : [{ op: "startNodes" } as const]),
    ]);
  }
  const steps = converge(lab, current);
  if (!options.reconfigure) return E.left({ _tag: "LabExists", name: lab.name, projectId: current.projectId, changes: steps.length });
  return E.right(steps);
}

function position(node: LabNode, index: number): { x: number; y: number } {
  const grid = gridPosition(index);
  return { x: node.x ?? grid.x, y: node.y ?? grid.y };
}

function converge(lab: Lab, current: CurrentLab): LabOperation[] {
  const have = new Map(current.lab.nodes.map((n) => [n.name, n]));
  const want = new Map(lab.nodes.map((n) => [n.name, n]));
  const removed = current.lab.nodes.filter((n) => !want.has(n.name));
  const remade = new Set<string>();
  const updated: LabNode[] = [];
  const created: LabNode[] = [];
  for (const node of lab.nodes) {
    const old = have.get(node.name);
    if (old === undefined) created.push(node);
    // A PC's address and lines live in its startup script, which VPCS reads as it starts and GNS3's node
    // PUT does not take (its compute refuses startup_script on an update): a changed PC is made again.
    else if (old.kind !== node.kind || (node.kind === "vpcs" && !sameValue(settingsOf(node), settingsOf(old)))) remade.add(node.name);
    else {
      const moved = (node.x !== undefined && node.x !== old.x) || (node.y !== undefined && node.y !== old.y);
      if (!sameValue(settingsOf(node), settingsOf(old)) || moved) updated.push(node);
    }
  }
  // A node whose ports change keeps none of its links: the server refuses to remap a port that has one.
  const rewired = new Set([...remade, ...removed.map((n) => n.name), ...updated.filter((n) => portsChanged(n, have.get(n.name) as LabNode)).map((n) => n.name)]);
  const touches = (l: LabLink): boolean => rewired.has(l.ends[0].node) || rewired.has(l.ends[1].node);

  const wanted = new Map(lab.links.map((l) => [linkKey(l), l]));
  const kept = new Map<string, { linkId: string; link: LabLink }>();
  const deleteLinks: LabOperation[] = [];
  current.lab.links.forEach((link, i) => {
    const linkId = current.linkIds[i] as string;
    if (wanted.has(linkKey(link)) && !touches(link)) kept.set(linkKey(link), { linkId, link });
    else deleteLinks.push({ op: "deleteLink", linkId, ends: link.ends });
  });
  const createLinks: LabOperation[] = [];
  const updateLinks: LabOperation[] = [];
  for (const link of lab.links) {
    const old = kept.get(linkKey(link));
    if (old === undefined) createLinks.push({ op: "createLink", link });
    else if (!sameLink(link, old.link)) updateLinks.push({ op: "updateLink", linkId: old.linkId, link });
  }
  const index = new Map(lab.nodes.map((n, i) => [n.name, i]));
  const steps: LabOperation[] = [
    ...deleteLinks,
    ...[...removed.map((n) => n.name), ...remade].map((name): LabOperation => ({ op: "deleteNode", name })),
    ...updated.map((node): LabOperation => ({ op: "updateNode", node })),
    ...[...lab.nodes.filter((n) => remade.has(n.name)), ...created].map((node): LabOperation => ({ op: "createNode", node, ...position(node, index.get(node.name) ?? 0) })),
    ...createLinks,
    ...updateLinks,
  ];
  const notStarted = current.notStarted.some((name) => want.has(name) && !remade.has(name));
  if (created.length > 0 || remade.size > 0 || notStarted) steps.push({ op: "startNodes" });
  return steps;
}

function portsChanged(want: LabNode, have: LabNode): boolean {
  const ports = (n: LabNode): unknown => ("ports" in n ? n.ports : "interfaces" in n ? n.interfaces : undefined);
  return !sameValue(ports(want), ports(have));
}
