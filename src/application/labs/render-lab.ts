import { renderSchedule } from "../../domain/filters/schedule.js";
import { Document, isMap, isSeq, type YAMLMap, type YAMLSeq } from "yaml";
import { type FilterSettings, renderFilterSettings } from "../../domain/filters/filter-settings.js";
import { type Lab, type LabNode, defaultSwitchPorts, portLabel } from "./lab.js";

/** A filters object as a lab writes it: a single value without its list. */
function filtersText(f: FilterSettings): Record<string, unknown> {
  return Object.fromEntries(Object.entries(renderFilterSettings(f)).map(([kind, values]) => [kind, values.length === 1 ? values[0] : values]));
}

function nodeText(node: LabNode): Record<string, unknown> {
  const out: Record<string, unknown> = { kind: node.kind };
  switch (node.kind) {
    case "ethernet_switch": {
      const plain = JSON.stringify(node.ports) === JSON.stringify(defaultSwitchPorts(node.ports.length));
      out["ports"] = plain
        ? node.ports.length
        : node.ports.map((p) => ({
            port: p.port_number,
            ...(p.name === `Ethernet${p.port_number}` ? {} : { name: p.name }),
            ...(p.type === "access" ? {} : { type: p.type }),
            ...(p.vlan === undefined || p.vlan === 1 ? {} : { vlan: p.vlan }),
            ...(p.type === "qinq" && p.ethertype !== undefined && p.ethertype !== "0x8100" && p.ethertype !== "" ? { ethertype: p.ethertype } : {}),
          }));
      break;
    }
    case "ethernet_hub":
      out["ports"] = node.ports.length;
      break;
    case "vpcs":
      if (node.address !== undefined) out["address"] = node.address;
      if (node.gateway !== undefined) out["gateway"] = node.gateway;
      if (node.startupScript !== undefined) out["startup_script"] = node.startupScript;
      break;
    case "cloud":
      out["ports"] = node.ports.map((p, i) => ({ name: p.name, ...(p.port_number === i ? {} : { port: p.port_number }), lport: p.lport, rhost: p.rhost, rport: p.rport }));
      break;
    case "host":
      out["interfaces"] = node.interfaces.map((i) => ({ ...i }));
      if (node.gateway !== undefined) out["gateway"] = node.gateway;
      break;
  }
  if (node.x !== undefined) out["x"] = node.x;
  if (node.y !== undefined) out["y"] = node.y;
  return out;
}

/**
 * A lab as the text of a lab file (what `netemu lab save` prints): parseLab of it gives the same lab back.
 * Short lists and port entries are written on one line each, as the example labs are.
 */
export function renderLab(lab: Lab, header: readonly string[] = []): string {
  const byName = new Map(lab.nodes.map((n) => [n.name, n]));
  const endpoint = (node: string, port: number): string => {
    const n = byName.get(node);
    return `${node}:${n === undefined ? `e${port}` : portLabel(n, port)}`;
  };
  const doc = new Document({
    name: lab.name,
    nodes: Object.fromEntries(lab.nodes.map((n) => [n.name, nodeText(n)])),
    // Before the links that name them, as deploy uploads them (ADR 0103).
    ...(lab.traces === undefined || Object.keys(lab.traces).length === 0 ? {} : { traces: { ...lab.traces } }),
    ...(lab.links.length === 0
      ? {}
      : {
          links: lab.links.map((l) => ({
            endpoints: [endpoint(l.ends[0].node, l.ends[0].port), endpoint(l.ends[1].node, l.ends[1].port)],
            ...(Object.keys(l.filters).length === 0 ? {} : { filters: filtersText(l.filters) }),
            ...(Object.keys(l.aToB).length === 0 ? {} : { a_to_b: filtersText(l.aToB) }),
            ...(Object.keys(l.bToA).length === 0 ? {} : { b_to_a: filtersText(l.bToA) }),
            ...(l.aToBSchedule === undefined ? {} : { a_to_b_schedule: renderSchedule(l.aToBSchedule) }),
            ...(l.bToASchedule === undefined ? {} : { b_to_a_schedule: renderSchedule(l.bToASchedule) }),
            ...(l.suspend ? { suspend: true } : {}),
            ...(l.style === undefined ? {} : { style: { ...l.style } }),
          })),
        }),
  });
  const flow = (node: unknown): void => {
    if (isMap(node) || isSeq(node)) (node as YAMLMap | YAMLSeq).flow = true;
  };
  const nodes = doc.get("nodes");
  if (isMap(nodes)) {
    for (const pair of nodes.items) {
      const settings = pair.value;
      if (!isMap(settings)) continue;
      for (const key of ["ports", "interfaces"]) {
        const list = settings.get(key);
        if (isSeq(list)) list.items.forEach(flow);
      }
    }
  }
  const links = doc.get("links");
  if (isSeq(links)) {
    for (const link of links.items) {
      if (!isMap(link)) continue;
      for (const key of ["endpoints", "filters", "a_to_b", "b_to_a", "style"]) flow(link.get(key));
    }
  }
  doc.commentBefore = header.length === 0 ? null : header.map((l) => ` ${l}`).join("\n");
  return doc.toString({ lineWidth: 0 });
}
