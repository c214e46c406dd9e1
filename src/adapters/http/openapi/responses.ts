import type { JsonSchema } from "./json-schema.js";

/**
 * The success answers of the routes a GNS3 controller drives a compute with, written from the
 * presenters (their types do not exist at run time) and checked against real answers by
 * test/http/openapi.test.ts: a presenter that changes fails it until this says the same.
 */
interface SuccessAnswer {
  readonly status: number;
  /** The JSON body; none for an answer without a body. */
  readonly schema?: JsonSchema;
}

const string: JsonSchema = { type: "string" };
const integer: JsonSchema = { type: "integer" };
const uuid: JsonSchema = { type: "string", pattern: "^[a-fA-F0-9]{8}-[a-fA-F0-9]{4}-[a-fA-F0-9]{4}-[a-fA-F0-9]{4}-[a-fA-F0-9]{12}$" };
const status: JsonSchema = { type: "string", enum: ["started", "stopped", "suspended"] };

function closed(title: string, required: Record<string, JsonSchema>, optional: Record<string, JsonSchema> = {}): JsonSchema {
  return { title, type: "object", properties: { ...required, ...optional }, required: Object.keys(required), additionalProperties: false };
}

const version = closed("Version", { local: { type: "boolean" }, version: string });
const computeProject = closed("ComputeProject", { name: { type: ["string", "null"] }, project_id: uuid, variables: { type: ["array", "null"] } });

const switchPort = closed("EthernetSwitchPort", { name: string, port_number: integer, type: { type: "string", enum: ["access", "dot1q", "qinq"] }, vlan: integer }, { ethertype: string });
const hubPort = closed("EthernetHubPort", { name: string, port_number: integer });
const portStatistics = {
  type: "array",
  description: "netemu's counters per port, GET only",
  items: closed("PortStatistics", { port_number: integer, frames_in: integer, bytes_in: integer, frames_out: integer, bytes_out: integer, drops: { type: "object" } }),
};
const nodeFields = { name: string, node_id: uuid, project_id: uuid, status };
const ethernetSwitch = closed(
  "EthernetSwitch",
  { ...nodeFields, ports_mapping: { type: "array", items: switchPort }, console: { type: ["integer", "null"] }, console_type: { type: "string", enum: ["telnet", "none"] } },
  { ports_statistics: portStatistics },
);
const ethernetHub = closed("EthernetHub", { ...nodeFields, ports_mapping: { type: "array", items: hubPort } }, { ports_statistics: portStatistics });

const udpNio = { type: { const: "nio_udp" }, lport: integer, rhost: string, rport: integer };
const nullNio = closed("NioNull", { type: { const: "nio_null" } });
const nioAdded: JsonSchema = { oneOf: [closed("NioUdp", udpNio), nullNio] };
const nioUpdated: JsonSchema = { oneOf: [closed("NioUdpWithFilters", { ...udpNio, filters: { type: "object" }, suspend: { type: "boolean" } }), nullNio] };

const nodeRoutes = (nodeType: "ethernet_switch" | "ethernet_hub", node: JsonSchema): Record<string, SuccessAnswer> => ({
  [`compute.${nodeType}.create`]: { status: 201, schema: node },
  [`compute.${nodeType}.get`]: { status: 200, schema: node },
  [`compute.${nodeType}.update`]: { status: 200, schema: node },
  [`compute.${nodeType}.duplicate`]: { status: 201, schema: node },
  [`compute.${nodeType}.delete`]: { status: 204 },
  [`compute.${nodeType}.start`]: { status: 204 },
  [`compute.${nodeType}.stop`]: { status: 204 },
  [`compute.${nodeType}.suspend`]: { status: 204 },
  [`compute.${nodeType}.nio.create`]: { status: 201, schema: nioAdded },
  [`compute.${nodeType}.nio.update`]: { status: 201, schema: nioUpdated },
  [`compute.${nodeType}.nio.delete`]: { status: 204 },
  [`compute.${nodeType}.start_capture`]: { status: 200, schema: closed("CaptureStarted", { pcap_file_path: string }) },
  [`compute.${nodeType}.stop_capture`]: { status: 204 },
});

export const SUCCESS_ANSWERS: Readonly<Record<string, SuccessAnswer>> = {
  "server.version": { status: 200, schema: version },
  "compute.version": { status: 200, schema: version },
  "server.check_version": { status: 200, schema: closed("VersionChecked", { version: string }) },
  "compute.capabilities": { status: 200, schema: closed("Capabilities", { node_types: { type: "array", items: string }, platform: string, version: string }) },
  "compute.project.create": { status: 201, schema: computeProject },
  "compute.project.list": { status: 200, schema: { type: "array", items: computeProject } },
  "compute.project.get": { status: 200, schema: computeProject },
  "compute.project.update": { status: 200, schema: computeProject },
  "compute.project.close": { status: 204 },
  "compute.project.delete": { status: 204 },
  "compute.project.udp_port": { status: 201, schema: closed("UdpPort", { udp_port: integer }) },
  ...nodeRoutes("ethernet_switch", ethernetSwitch),
  ...nodeRoutes("ethernet_hub", ethernetHub),
};
