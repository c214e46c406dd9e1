import type { AnyRoute } from "../../src/adapters/http/route.js";
import { type DescribedAnswer, describeAnswer } from "../../src/adapters/http/openapi/answers.js";
import { COMPUTE_NODE_ROUTES } from "../../src/adapters/http/compute/node-routes.js";
import { LINUX_HOST_ROUTES } from "../../src/adapters/http/compute/linux-host-routes.js";
import { captureRoutes } from "../../src/adapters/http/compute/capture-routes.js";
import { COMPUTE_PROJECT_ROUTES } from "../../src/adapters/http/compute/project-routes.js";
import { COMPUTE_SERVER_ROUTES } from "../../src/adapters/http/compute/server-routes.js";
import { COMPUTE_NODE_TYPES } from "../../src/domain/switching/compute-node.js";
import { V3_NODE_ROUTES } from "../../src/adapters/http/v3/node-routes.js";
import { V3_PROJECT_ROUTES } from "../../src/adapters/http/v3/project-routes.js";
import { V3_SERVER_ROUTES } from "../../src/adapters/http/v3/server-routes.js";
import { CONTROLLER_PROJECT_ROUTES } from "../../src/adapters/http/controller/project-routes.js";
import { CONTROLLER_COMPUTE_ROUTES } from "../../src/adapters/http/controller/compute-routes.js";
import { controllerNodeRoutes } from "../../src/adapters/http/controller/node-routes.js";
import { CONTROLLER_LINK_ROUTES } from "../../src/adapters/http/controller/link-routes.js";
import { LINK_CAPTURE_ROUTES } from "../../src/adapters/http/controller/capture-routes.js";
import { controllerTemplateRoutes } from "../../src/adapters/http/controller/template-routes.js";
import { IMPAIRMENT_ROUTES } from "../../src/adapters/http/server/impairment-routes.js";
import { SERVER_ROUTES } from "../../src/adapters/http/server/routes.js";
import { READINESS_ROUTES } from "../../src/adapters/http/server/readiness-route.js";

/**
 * The routes the walk of test/http/openapi.test.ts exercises, by their values: the compute's (as a GNS3
 * controller drives them), /v3/compute's (as GNS3 3.0.6 answers, ADR 0066), the controller's projects,
 * computes, nodes, links and templates, and netemu's server routes. Those it does not read (the MAC
 * table, the file list, available_filters, the capture stream) are in the document all the same. The
 * console host is the server's: it is in no schema.
 */
const WALKED_ROUTES: readonly AnyRoute[] = [
  ...Object.values(CONTROLLER_PROJECT_ROUTES),
  ...Object.values(CONTROLLER_COMPUTE_ROUTES),
  // exec needs a started Linux host (root): test/e2e/linux-host-*.test.ts reads its answers.
  ...controllerNodeRoutes("console-host").filter((r) => r.name !== "controller.node.exec"),
  ...Object.values(CONTROLLER_LINK_ROUTES).filter((r) => r !== CONTROLLER_LINK_ROUTES.availableFilters),
  LINK_CAPTURE_ROUTES.start,
  LINK_CAPTURE_ROUTES.stop,
  ...controllerTemplateRoutes("console-host"),
  ...[V3_SERVER_ROUTES.capabilities, V3_SERVER_ROUTES.version, ...V3_NODE_ROUTES].map((r) => r.route),
  ...[V3_PROJECT_ROUTES.create, V3_PROJECT_ROUTES.list, V3_PROJECT_ROUTES.get, V3_PROJECT_ROUTES.update, V3_PROJECT_ROUTES.close, V3_PROJECT_ROUTES.delete, V3_PROJECT_ROUTES.udpPort, V3_PROJECT_ROUTES.fileWrite].map((r) => r.route),
  ...COMPUTE_NODE_ROUTES,
  // A Linux host's routes but those that need its namespace (root): start, reload, exec (ADR 0087).
  ...LINUX_HOST_ROUTES.filter((r) => !/\.(start|reload|exec)$/.test(r.name)),
  ...COMPUTE_NODE_TYPES.flatMap(captureRoutes),
  ...[COMPUTE_PROJECT_ROUTES.create, COMPUTE_PROJECT_ROUTES.list, COMPUTE_PROJECT_ROUTES.get, COMPUTE_PROJECT_ROUTES.update, COMPUTE_PROJECT_ROUTES.delete, COMPUTE_PROJECT_ROUTES.close, COMPUTE_PROJECT_ROUTES.udpPort],
  COMPUTE_SERVER_ROUTES.capabilities,
  SERVER_ROUTES.version,
  SERVER_ROUTES.computeVersion,
  SERVER_ROUTES.checkVersion,
  ...Object.values(IMPAIRMENT_ROUTES),
  READINESS_ROUTES.ready,
  READINESS_ROUTES.restart,
];

/**
 * The success answer each walked route's value declares (its first status when it has a choice), by
 * route name: a JSON body's schema or none; a stream has no JSON to check.
 */
export const WALKED_ANSWERS: Readonly<Record<string, DescribedAnswer>> = Object.fromEntries(
  WALKED_ROUTES.flatMap((r) => {
    const answer = describeAnswer(r.answer);
    return answer.contentType === undefined ? [[r.name, answer.schema === undefined ? { status: answer.status } : { status: answer.status, schema: answer.schema }]] : [];
  }),
);
