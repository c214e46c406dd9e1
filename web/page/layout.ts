import type { Lab } from "./api.js";

export interface Point {
  readonly x: number;
  readonly y: number;
}

const SPACING = 260;

/** Places `members` in a ring around `centre`, the ring growing with their number. */
function ring(placed: Map<string, Point>, centre: Point, members: readonly string[], scale = 1): void {
  const radius = Math.min(SPACING * 0.42, 50 + members.length * 6) * scale;
  members.forEach((node, i) => {
    const angle = (2 * Math.PI * i) / members.length - Math.PI / 2;
    placed.set(node, { x: centre.x + radius * Math.cos(angle), y: centre.y + radius * Math.sin(angle) });
  });
}

/**
 * Where each node is drawn, in one pass (no force simulation: 1,000 nodes must not hold the page).
 * A lab of netemu's controller keeps the places its project gives, when they are not all at the origin.
 * Otherwise switches and hubs go on a square grid and every other node in a ring around the first
 * switch or hub it is linked to; a node linked to none goes on the grid too. A peer elsewhere (kind
 * "remote", ADR 0098) has no place of its own: it goes in a ring around the node linked to it.
 */
export function layout(lab: Lab): Map<string, Point> {
  const placed = new Map<string, Point>();
  const remote = new Set(lab.nodes.filter((n) => n.node_type === "remote").map((n) => n.node_id));
  const local = lab.nodes.filter((n) => !remote.has(n.node_id));
  const given = local.filter((n) => n.x !== undefined && n.y !== undefined);
  if (local.length > 0 && given.length === local.length && given.some((n) => n.x !== 0 || n.y !== 0)) {
    for (const n of local) placed.set(n.node_id, { x: n.x!, y: n.y! });
  } else {
    placeOnGrid(lab, local, placed);
  }
  placeRemote(lab, remote, placed);
  return placed;
}

function placeOnGrid(lab: Lab, local: readonly Lab["nodes"][number][], placed: Map<string, Point>): void {
  const kind = new Map(local.map((n) => [n.node_id, n.node_type]));
  const isFabric = (id: string) => kind.get(id) === "ethernet_switch" || kind.get(id) === "ethernet_hub";
  const isLocal = (id: string) => kind.has(id);
  const hubOf = new Map<string, string>();
  for (const { a, b } of lab.links) {
    if (isFabric(a.node_id) && isLocal(b.node_id) && !isFabric(b.node_id) && !hubOf.has(b.node_id)) hubOf.set(b.node_id, a.node_id);
    if (isFabric(b.node_id) && isLocal(a.node_id) && !isFabric(a.node_id) && !hubOf.has(a.node_id)) hubOf.set(a.node_id, b.node_id);
  }
  const centres = local.filter((n) => isFabric(n.node_id) || !hubOf.has(n.node_id));
  const columns = Math.max(1, Math.ceil(Math.sqrt(centres.length)));
  centres.forEach((n, i) => placed.set(n.node_id, { x: (i % columns) * SPACING, y: Math.floor(i / columns) * SPACING }));
  const around = new Map<string, string[]>();
  for (const [node, hub] of hubOf) {
    const list = around.get(hub);
    if (list === undefined) around.set(hub, [node]);
    else list.push(node);
  }
  for (const [hub, members] of around) ring(placed, placed.get(hub)!, members);
}

/** Each peer elsewhere in a ring of its own around the first node linked to it, wider than the hosts' so the two do not sit on each other. */
function placeRemote(lab: Lab, remote: ReadonlySet<string>, placed: Map<string, Point>): void {
  if (remote.size === 0) return;
  const anchorOf = new Map<string, string>();
  for (const { a, b } of lab.links) {
    if (remote.has(b.node_id) && !remote.has(a.node_id) && !anchorOf.has(b.node_id)) anchorOf.set(b.node_id, a.node_id);
    if (remote.has(a.node_id) && !remote.has(b.node_id) && !anchorOf.has(a.node_id)) anchorOf.set(a.node_id, b.node_id);
  }
  const around = new Map<string, string[]>();
  for (const [peer, anchor] of anchorOf) {
    const list = around.get(anchor);
    if (list === undefined) around.set(anchor, [peer]);
    else list.push(peer);
  }
  for (const [anchor, members] of around) ring(placed, placed.get(anchor) ?? { x: 0, y: 0 }, members, 1.6);
  // A peer linked to no node here (cannot happen from the server's answer) still gets a place.
  let spare = 0;
  for (const id of remote) if (!placed.has(id)) placed.set(id, { x: -SPACING, y: SPACING * spare++ });
}
