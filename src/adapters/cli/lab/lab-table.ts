import { parseFilterSettings, renderFilterSettings } from "../../../domain/filters/filter-settings.js";
import * as E from "fp-ts/lib/Either.js";
import { LINUX_HOST_NODE_TYPE, type DeployedNode, type DeployedProject } from "../../../application/labs/gns3-nodes.js";
import { terminalText } from "../terminal-text.js";
import type { PortImpairment } from "./lab-api.js";

/** Columns padded to their widest cell, two spaces apart; the last column unpadded. */
export function table(header: readonly string[], rows: readonly (readonly string[])[]): string[] {
  const widths = header.map((h, i) => Math.max(h.length, ...rows.map((r) => (r[i] ?? "").length)));
  const line = (cells: readonly string[]): string => cells.map((c, i) => (i === cells.length - 1 ? c : c.padEnd(widths[i] ?? 0))).join("  ").trimEnd();
  return [line(header), ...rows.map(line)];
}

/** Filters as `netemu impair` writes them: `delay=40,5 bandwidth=10000`; `-` for none. */
export function filtersText(raw: Readonly<Record<string, unknown>>): string {
  const parsed = parseFilterSettings(raw);
  const rendered = E.isRight(parsed) ? renderFilterSettings(parsed.right) : (raw as Record<string, unknown[]>);
  const entries = Object.entries(rendered);
  if (entries.length === 0) return "-";
  return entries.map(([kind, values]) => `${kind}=${(Array.isArray(values) ? values : [values]).map((v) => (typeof v === "string" && (kind === "bpf" || kind === "match") ? JSON.stringify(v) : String(v))).join(",")}`).join(" ");
}

const KIND_OF: Readonly<Record<string, string>> = { [LINUX_HOST_NODE_TYPE]: "host" };

/** Where a console is reached: a server listening on every address is reached at the address we asked. */
export function consoleAddress(node: DeployedNode, serverHost: string): string | undefined {
  if (node.console === null || node.consoleType === null || node.consoleType === "none") return undefined;
  const host = node.consoleHost === null || node.consoleHost === "0.0.0.0" || node.consoleHost === "::" || node.consoleHost === "" ? serverHost : node.consoleHost;
  return `${host.includes(":") ? `[${host}]` : host}:${node.console}`;
}

function addresses(node: DeployedNode): string {
  const p = node.properties;
  switch (node.nodeType) {
    case "vpcs": {
      const script = typeof p["startup_script"] === "string" ? p["startup_script"] : "";
      const ip = /^ip\s+(\S+)(?:\s+(\S+))?\s*$/m.exec(script);
      return ip === null ? "-" : ip[2] === undefined ? (ip[1] ?? "-") : `${ip[1]} via ${ip[2]}`;
    }
    case LINUX_HOST_NODE_TYPE: {
      const interfaces = Array.isArray(p["interfaces"]) ? (p["interfaces"] as { name?: unknown; address?: unknown }[]) : [];
      const text = interfaces.filter((i) => typeof i.address === "string").map((i) => `${String(i.name)} ${String(i.address)}`);
      if (typeof p["gateway"] === "string") text.push(`via ${p["gateway"]}`);
      return text.length === 0 ? "-" : text.join(", ");
    }
    case "cloud": {
      const ports = Array.isArray(p["ports_mapping"]) ? (p["ports_mapping"] as Record<string, unknown>[]) : [];
      const text = ports.filter((q) => q["type"] === "udp").map((q) => `${String(q["name"])} udp ${String(q["lport"])} <-> ${String(q["rhost"])}:${String(q["rport"])}`);
      return text.length === 0 ? "-" : text.join(", ");
    }
    default:
      return "-";
  }
}

function portName(node: DeployedNode | undefined, port: number): string {
  if (node === undefined) return String(port);
  if (node.nodeType === "cloud" || node.nodeType === LINUX_HOST_NODE_TYPE) {
    const list = (node.properties["ports_mapping"] ?? node.properties["interfaces"]) as Record<string, unknown>[] | undefined;
    const found = Array.isArray(list) ? (node.nodeType === "cloud" ? list.find((q) => q["port_number"] === port) : list[port]) : undefined;
    if (found !== undefined) return String(found["name"]);
  }
  return `e${port}`;
}

/**
 * `netemu lab inspect`'s table: the nodes (kind, status, console, addresses), then the links and their
 * impairments, then, when there are any, the impairments `netemu impair` put on ports (they act with the
 * link's, and are not in the lab file).
 */
export function inspectLines(project: DeployedProject, serverHost: string, portImpairments: readonly PortImpairment[] = []): string[] {
  const nodes = table(
    ["NODE", "KIND", "STATUS", "CONSOLE", "ADDRESSES"],
    project.nodes.map((n) => {
      const console = consoleAddress(n, serverHost);
      return [terminalText(n.name), terminalText(KIND_OF[n.nodeType] ?? n.nodeType), terminalText(n.status), console === undefined ? "-" : `${terminalText(n.consoleType ?? "")} ${terminalText(console)}`, terminalText(addresses(n))];
    }),
  );
  const byId = new Map(project.nodes.map((n) => [n.nodeId, n]));
  const end = (i: number, l: DeployedProject["links"][number]): string => {
    const e = l.ends[i];
    if (e === undefined) return "?";
    const node = byId.get(e.nodeId);
    return `${terminalText(node?.name ?? e.nodeId)}:${terminalText(portName(node, e.portNumber))}`;
  };
  const links = table(
    ["A", "B", "FILTERS", "A->B", "B->A"],
    project.links.map((l) => [end(0, l), end(1, l), `${l.suspend ? "suspended " : ""}${terminalText(filtersText(l.filters))}`, terminalText(filtersText(l.ends[0]?.filters ?? {})), terminalText(filtersText(l.ends[1]?.filters ?? {}))]),
  );
  const ports = table(
    ["PORT (netemu impair)", "IN", "OUT"],
    portImpairments.map((i) => [`${terminalText(byId.get(i.nodeId)?.name ?? i.nodeId)}:${terminalText(i.portName)}`, terminalText(filtersText(i.in)), terminalText(filtersText(i.out))]),
  );
  return [...nodes, "", ...(project.links.length === 0 ? ["(no links)"] : links), ...(portImpairments.length === 0 ? [] : ["", ...ports])];
}
