import type { JsonSchema } from "./json-schema.js";
import type { AnyRoute } from "../route.js";
import { COMPUTE_NODE_ROUTES } from "../compute/node-routes.js";
import { captureRoutes } from "../compute/capture-routes.js";
import { COMPUTE_NODE_TYPES } from "../../../domain/switching/compute-node.js";
import { type DescribedAnswer, describeAnswer } from "./answers.js";
import { V3_NODE_ROUTES } from "../v3/node-routes.js";
import { CONTROLLER_PROJECT_ROUTES } from "../controller/project-routes.js";
import { CONTROLLER_COMPUTE_ROUTES } from "../controller/compute-routes.js";
import { V3_SERVER_ROUTES } from "../v3/server-routes.js";
import { COMPUTE_SERVER_ROUTES } from "../compute/server-routes.js";
import { WALKED_V3_PROJECT_ROUTES } from "../v3/project-routes.js";
import { WALKED_COMPUTE_PROJECT_ROUTES } from "../compute/project-routes.js";

/**
 * The success answers of the main routes (the compute's, as a GNS3 controller drives them, and the
 * controller's projects, nodes and links), checked against real answers by test/http/openapi.test.ts.
 * The routes declared as values (ADR 0076) bring their own, derived from their answer codecs; the
 * others are written here from their presenters, until they are declared so too.
 */
type SuccessAnswer = DescribedAnswer;

/** The JSON and empty answers of routes declared as values (a stream has no JSON to check). */
function declaredAnswers(routes: readonly AnyRoute[]): Record<string, SuccessAnswer> {
  return Object.fromEntries(routes.flatMap((r) => {
    const answer = describeAnswer(r.answer);
    return answer.contentType === undefined ? [[r.name, answer.schema === undefined ? { status: answer.status } : { status: answer.status, schema: answer.schema }]] : [];
  }));
}

const string: JsonSchema = { type: "string" };
const integer: JsonSchema = { type: "integer" };
const uuid: JsonSchema = { type: "string", pattern: "^[a-fA-F0-9]{8}-[a-fA-F0-9]{4}-[a-fA-F0-9]{4}-[a-fA-F0-9]{4}-[a-fA-F0-9]{12}$" };
const status: JsonSchema = { type: "string", enum: ["started", "stopped", "suspended"] };

function closed(title: string, required: Record<string, JsonSchema>, optional: Record<string, JsonSchema> = {}): JsonSchema {
  return { title, type: "object", properties: { ...required, ...optional }, required: Object.keys(required), additionalProperties: false };
}

const version = closed("Version", { local: { type: "boolean" }, version: string });

const portStatistics = {
  type: "array",
  description: "netemu's counters per port, GET only",
  items: closed("PortStatistics", { port_number: integer, frames_in: integer, bytes_in: integer, frames_out: integer, bytes_out: integer, drops: { type: "object" } }),
};

const boolean: JsonSchema = { type: "boolean" };
const label = closed("Label", { text: string }, { style: { type: ["string", "null"] }, x: { type: ["integer", "null"] }, y: integer, rotation: integer });

const nodePort = closed("NodePort", {
  adapter_number: integer,
  data_link_types: { type: "object" },
  link_type: { const: "ethernet" },
  name: string,
  port_number: integer,
  short_name: string,
});

const node = closed("Node", {
  command_line: { type: ["string", "null"], description: "a VPCS's command line (\"\" before its first start); null for a switch or hub" },
  compute_id: string,
  console: { type: ["integer", "null"], description: "a VPCS's telnet console port; null for a switch or hub" },
  console_auto_start: boolean,
  console_host: string,
  console_type: { type: "string", enum: ["telnet", "none"] },
  custom_adapters: { type: "array" },
  first_port_name: { type: "null" },
  height: integer,
  label,
  locked: boolean,
  name: string,
  node_directory: { type: ["string", "null"] },
  node_id: uuid,
  node_type: { type: "string", enum: [...COMPUTE_NODE_TYPES] },
  port_name_format: string,
  port_segment_size: integer,
  ports: { type: "array", items: nodePort },
  project_id: uuid,
  properties: closed("NodeProperties", {}, { ports_mapping: { type: "array", items: { type: "object" }, description: "a switch's and hub's; a VPCS has none" } }),
  status,
  symbol: string,
  template_id: { type: ["string", "null"] },
  width: integer,
  x: integer,
  y: integer,
  z: integer,
}, { ports_statistics: portStatistics });

const link = closed("Link", {
  capture_compute_id: { type: ["string", "null"] },
  capture_file_name: { type: ["string", "null"] },
  capture_file_path: { type: ["string", "null"] },
  capturing: boolean,
  filters: { type: "object" },
  link_id: uuid,
  link_style: { type: "object" },
  link_type: { const: "ethernet" },
  nodes: { type: "array", items: closed("LinkEnd", { adapter_number: integer, label, node_id: uuid, port_number: integer }, { filters: { type: "object", description: "netemu's one-way filters on what this node sends" } }) },
  project_id: uuid,
  suspend: boolean,
}, {
  ports_statistics: {
    type: "array",
    description: "netemu's counters of each end's port, GET only",
    items: closed("LinkEndStatistics", { adapter_number: integer, node_id: uuid, port_number: integer, frames_in: integer, bytes_in: integer, frames_out: integer, bytes_out: integer, drops: { type: "object" } }),
  },
});

const template = closed("Template", {
  builtin: { const: true },
  category: { type: "string", enum: ["switch", "guest"] },
  compute_id: { type: "null" },
  default_name_format: string,
  name: string,
  symbol: string,
  template_id: uuid,
  template_type: { type: "string", enum: [...COMPUTE_NODE_TYPES] },
}, { console_type: { const: "none" }, properties: { type: "object" } });

const controllerRoutes: Record<string, SuccessAnswer> = {
  ...declaredAnswers([...Object.values(CONTROLLER_PROJECT_ROUTES), ...Object.values(CONTROLLER_COMPUTE_ROUTES)]),
  "controller.node.create": { status: 201, schema: node },
  "controller.node.list": { status: 200, schema: { type: "array", items: node } },
  "controller.node.get": { status: 200, schema: node },
  "controller.node.update": { status: 200, schema: node },
  "controller.node.delete": { status: 204 },
  ...Object.fromEntries(["start", "stop", "suspend", "reload"].flatMap((action) => [
    [`controller.node.${action}`, { status: 200, schema: node }],
    [`controller.nodes.${action}`, { status: 204 }],
  ])),
  "controller.link.create": { status: 201, schema: link },
  "controller.link.list": { status: 200, schema: { type: "array", items: link } },
  "controller.link.get": { status: 200, schema: link },
  "controller.link.update": { status: 201, schema: link },
  "controller.link.delete": { status: 204 },
  "controller.link.start_capture": { status: 201, schema: link },
  "controller.link.stop_capture": { status: 201, schema: link },
  // What gns3fy reaches besides (issue 18, ADR 0062).
  "controller.node.links": { status: 200, schema: { type: "array", items: link } },
  "controller.template.list": { status: 200, schema: { type: "array", items: template } },
  "controller.template.get": { status: 200, schema: template },
  "controller.template.create_node": { status: 201, schema: node },
};

/** /v3/compute, as a GNS3 3.0.6 compute answers (ADR 0066). */
const v3Routes: Record<string, SuccessAnswer> = {
  ...declaredAnswers([V3_SERVER_ROUTES.capabilities, V3_SERVER_ROUTES.version, ...V3_NODE_ROUTES, ...WALKED_V3_PROJECT_ROUTES].map((r) => r.route)),
};

const impairment = closed("PortImpairment", {
  filters_in: { type: "object", description: "frames from the port's peer into the node" },
  filters_out: { type: "object", description: "frames the port sends to its peer" },
  node_id: uuid,
  node_name: string,
  port_name: string,
  port_number: integer,
  project_id: uuid,
  project_name: string,
});

/** A data-plane worker whose nodes are dark (ADR 0073). */
const darkWorker = closed("DarkWorker", {
  worker: integer,
  state: { type: "string", enum: ["restarting", "given_up", "running"] },
  reason: string,
  exit_code: integer,
  since: string,
  deaths: integer,
  next_attempt: { type: ["string", "null"] },
  nodes: { type: "array", items: closed("DarkNode", { node_id: string, project_id: string, name: string, frames_per_second: { type: ["number", "null"] } }) },
});

export const SUCCESS_ANSWERS: Readonly<Record<string, SuccessAnswer>> = {
  ...controllerRoutes,
  ...v3Routes,
  "server.version": { status: 200, schema: version },
  "compute.version": { status: 200, schema: version },
  "server.check_version": { status: 200, schema: closed("VersionChecked", { version: string }) },
  // The routes declared as values (ADR 0076): their answers follow from their codecs.
  ...declaredAnswers([...COMPUTE_NODE_ROUTES, ...COMPUTE_NODE_TYPES.flatMap(captureRoutes), ...WALKED_COMPUTE_PROJECT_ROUTES, COMPUTE_SERVER_ROUTES.capabilities]),
  // netemu's impairments on GNS3 ports (ADR 0067).
  "netemu.impairments.list": { status: 200, schema: { type: "array", items: impairment } },
  "netemu.impairments.set": { status: 200, schema: impairment },
  "netemu.impairments.clear": { status: 200, schema: { type: "array", items: impairment } },
  // ADR 0057: its 503 (not ready) is an error body with the same two fields and the projects' details.
  "netemu.ready": {
    status: 200,
    schema: closed("Readiness", {
      ready: { type: "boolean" },
      unwritten_projects: {
        type: "array",
        items: closed("UnwrittenProject", { project_id: string, file: { type: ["string", "null"] }, code: string, since: string, failed_writes: integer }),
      },
      dark_workers: { type: "array", items: darkWorker },
    }),
  },
  // ADR 0073: the way back for a data-plane worker given up on.
  "netemu.data_plane.restart": {
    status: 200,
    schema: closed("DataPlaneBroughtBack", { restarted_workers: { type: "array", items: integer }, dark_workers: { type: "array", items: darkWorker } }),
  },
};
