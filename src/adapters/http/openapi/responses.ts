import type { JsonSchema } from "./json-schema.js";
import type { AnyRoute } from "../route.js";
import { COMPUTE_NODE_ROUTES } from "../compute/node-routes.js";
import { captureRoutes } from "../compute/capture-routes.js";
import { COMPUTE_NODE_TYPES } from "../../../domain/switching/compute-node.js";
import { type DescribedAnswer, describeAnswer } from "./answers.js";
import { V3_NODE_ROUTES } from "../v3/node-routes.js";
import { CONTROLLER_PROJECT_ROUTES } from "../controller/project-routes.js";
import { CONTROLLER_COMPUTE_ROUTES } from "../controller/compute-routes.js";
import { controllerNodeRoutes } from "../controller/node-routes.js";
import { CONTROLLER_LINK_ROUTES } from "../controller/link-routes.js";
import { LINK_CAPTURE_ROUTES } from "../controller/capture-routes.js";
import { controllerTemplateRoutes } from "../controller/template-routes.js";
import { V3_SERVER_ROUTES } from "../v3/server-routes.js";
import { COMPUTE_SERVER_ROUTES } from "../compute/server-routes.js";
import { WALKED_V3_PROJECT_ROUTES } from "../v3/project-routes.js";
import { WALKED_COMPUTE_PROJECT_ROUTES } from "../compute/project-routes.js";

/**
 * The success answers of the main routes (the compute's, as a GNS3 controller drives them, and the
 * controller's projects, nodes and links), checked against real answers by test/http/openapi.test.ts.
 * The routes declared as values (ADR 0076) bring their own, derived from their answer codecs; the
 * others (netemu's server routes) are written here from their presenters, until they are declared so too.
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

function closed(title: string, required: Record<string, JsonSchema>, optional: Record<string, JsonSchema> = {}): JsonSchema {
  return { title, type: "object", properties: { ...required, ...optional }, required: Object.keys(required), additionalProperties: false };
}

const version = closed("Version", { local: { type: "boolean" }, version: string });

/**
 * The controller's routes the walk of test/http/openapi.test.ts exercises (available_filters, which it
 * does not read, and the capture stream are described in the document all the same). The console
 * host is the server's: it is in no schema.
 */
const WALKED_CONTROLLER_ROUTES: readonly AnyRoute[] = [
  ...Object.values(CONTROLLER_PROJECT_ROUTES),
  ...Object.values(CONTROLLER_COMPUTE_ROUTES),
  ...controllerNodeRoutes("console-host"),
  ...Object.values(CONTROLLER_LINK_ROUTES).filter((r) => r !== CONTROLLER_LINK_ROUTES.availableFilters),
  LINK_CAPTURE_ROUTES.start,
  LINK_CAPTURE_ROUTES.stop,
  ...controllerTemplateRoutes("console-host"),
];

const controllerRoutes: Record<string, SuccessAnswer> = declaredAnswers(WALKED_CONTROLLER_ROUTES);

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
