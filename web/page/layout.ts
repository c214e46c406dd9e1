import type { Lab } from "./api.js";

export interface Point {
  readonly x: number;
  readonly y: number;
}

const SPACING = 260;

/**
 * Where each node is drawn, in one pass (no force simulation: 1,000 nodes must not hold the page).
 * A lab of netemu's controller keeps the places its project gives, when they are not all at the origin.
 * Otherwise switches and hubs go on a square grid and every other node in a ring around the first
 * switch or hub it is linked to; a node linked to none goes on the grid too.
 */
export function layout(lab: Lab): Map<string, Point> {
  const placed = new Map<string, Point>();
  const given = lab.nodes.filter((n) => n.x !== undefined && n.y !== undefined);
  if (given.length === lab.nodes.length && given.some((n) => n.x !== 0 || n.y !== 0)) {
    for (const n of lab.nodes) placed.set(n.node_id, { x: n.x!, y: n.y! });
    return placed;
  }
  const kind = new Map(lab.nodes.map((n) => [n.node_id, n.node_type]));
  const isFabric = (id: string) => kind.get(id) === "ethernet_switch" || kind.get(id) === "ethernet_hub";
  const hubOf = new Map<string, string>();
  for (const { a, b } of lab.links) {
    if (isFabric(a.node_id) && !isFabric(b.node_id) && !hubOf.has(b.node_id)) hubOf.set(b.node_id, a.node_id);
    if (isFabric(b.node_id) && !isFabric(a.node_id) && !hubOf.has(a.node_id)) hubOf.set(a.node_id, b.node_id);
  }
  const centres = lab.nodes.filter((n) => isFabric(n.node_id) || !hubOf.has(n.node_id));
  const columns = Math.max(1, Math.ceil(Math.sqrt(centres.length)));
  centres.forEach((n, i) => placed.set(n.node_id, { x: (i % columns) * SPACING, y: Math.floor(i / columns) * SPACING }));
  const around = new Map<string, string[]>();
  for (const [node, hub] of hubOf) {
    const list = around.get(hub);
    if (list === undefined) around.set(hub, [node]);
    else list.push(node);
  }
  for (const [hub, members] of around) {
    const centre = placed.get(hub)!;
    const radius = Math.min(SPACING * 0.42, 50 + members.length * 6);
    members.forEach((node, i) => {
      const angle = (2 * Math.PI * i) / members.length - Math.PI / 2;
      placed.set(node, { x: centre.x + radius * Math.cos(angle), y: centre.y + radius * Math.sin(angle) });
    });
  }
  return placed;
}
