import type { ComputeNode } from "../../../domain/switching/compute-node.js";
import { nodeKindName } from "../../../domain/switching/compute-node.js";
import type { DataPlane } from "../../ports/data-plane.js";

/** A port's mode as the report shows it: a switch port's VLAN, a cloud port's inside end. */
function portMode(port: ComputeNode["portsMapping"][number]): string {
  if (!("type" in port)) return "";
  if (port.type === "udp") return ` udp ${port.lport} -> ${port.rhost}:${port.rport}`;
  if ("interface" in port) return ` ${port.type} ${port.interface}`;
  return ` ${port.type} vlan ${port.vlan}${port.ethertype ? ` ethertype ${port.ethertype}` : ""}`;
}

/** The compute's switches and hubs, port by port with NIOs, filters and counters, for debug reports. */
export async function describeComputeNodes(nodes: readonly ComputeNode[], dataPlane: DataPlane): Promise<string[]> {
  const lines: string[] = [];
  for (const node of nodes) {
    const counters = await dataPlane.counters(node.nodeId);
    lines.push(`${nodeKindName(node.nodeType)} ${node.name} (${node.nodeId}) in project ${node.projectId}, ${node.status}`);
    for (const port of node.portsMapping) {
      const nio = node.nios.get(port.port_number);
      const stats = counters.get(port.port_number);
      const mode = portMode(port);
      lines.push(
        `  Port ${port.port_number} ${port.name}${mode}` +
          ` nio=${nio === undefined ? "none" : JSON.stringify(nio)}` +
          (stats === undefined ? "" : ` counters=${JSON.stringify(stats)}`),
      );
    }
    for (const entry of await dataPlane.macTable(node.nodeId)) lines.push(`  MAC ${entry.mac} vlan ${entry.vlan} port ${entry.port}`);
  }
  return lines;
}
