import * as E from "fp-ts/lib/Either.js";
import type { UseCases } from "../../../application/use-cases/index.js";
import { CREATE_CLOUD_REFUSALS } from "../../../application/use-cases/compute/create-cloud.js";
import { UPDATE_CLOUD_REFUSALS } from "../../../application/use-cases/compute/update-cloud.js";
import { GET_COMPUTE_NODE_REFUSALS } from "../../../application/use-cases/compute/get-compute-node.js";
import type { NetworkInterface } from "../../../application/ports/host.js";
import type { PortCounters } from "../../../application/ports/data-plane.js";
import type { CloudNode } from "../../../domain/switching/cloud-node.js";
import type { ApiRouter } from "../api-router.js";
import { type AnyRoute, json, route } from "../route.js";
import { CloudCreateBody, CloudUpdateBody } from "./codecs.js";
import { CloudAnswer } from "./answers.js";
import { presentCloud } from "./presenters.js";
import { commonRoutes, nodesPath } from "./node-routes.js";

const CLOUD_NODES = nodesPath("cloud");

/** A cloud with the host's interfaces, which GNS3 lists in each answer of a cloud's own routes. */
export interface CloudWithInterfaces {
  readonly node: CloudNode;
  readonly counters?: ReadonlyMap<number, PortCounters>;
  readonly interfaces: readonly NetworkInterface[];
}

const withInterfaces = (uc: UseCases) => (node: CloudNode, counters?: ReadonlyMap<number, PortCounters>): CloudWithInterfaces => ({ node, ...(counters === undefined ? {} : { counters }), interfaces: uc.listNetworkInterfaces.execute() });
const present = (v: CloudWithInterfaces) => presentCloud(v.node, v.counters, v.interfaces);

/** GNS3 2.2's cloud routes (`cloud_handler.py`): create, get and update here, the rest shared with every kind. */
const CLOUD_ROUTES: readonly AnyRoute[] = [
  route({
    name: "compute.cloud.create",
    method: "POST",
    path: CLOUD_NODES,
    body: CloudCreateBody,
    refusals: CREATE_CLOUD_REFUSALS,
    run: async (uc, { params, body }) =>
      E.map((node: CloudNode) => withInterfaces(uc)(node))(
        await uc.createCloud.execute({
          projectId: params.project_id,
          name: body.name,
          nodeId: body.node_id,
          portsMapping: body.ports_mapping,
          remoteConsoleHost: body.remote_console_host,
          remoteConsolePort: body.remote_console_port,
          remoteConsoleType: body.remote_console_type,
          remoteConsoleHttpPath: body.remote_console_http_path,
        }),
      ),
    answer: json(201, CloudAnswer, present),
  }),
  route({
    name: "compute.cloud.get",
    method: "GET",
    path: `${CLOUD_NODES}/{node_id}`,
    refusals: GET_COMPUTE_NODE_REFUSALS,
    run: async (uc, { params }) =>
      E.map((v: { readonly node: unknown; readonly counters: ReadonlyMap<number, PortCounters> }) => withInterfaces(uc)(v.node as CloudNode, v.counters))(
        await uc.getComputeNode.execute({ projectId: params.project_id, nodeId: params.node_id, nodeType: "cloud" }),
      ),
    answer: json(200, CloudAnswer, present),
  }),
  route({
    name: "compute.cloud.update",
    method: "PUT",
    path: `${CLOUD_NODES}/{node_id}`,
    body: CloudUpdateBody,
    refusals: UPDATE_CLOUD_REFUSALS,
    run: async (uc, { params, body }) =>
      E.map((node: CloudNode) => withInterfaces(uc)(node))(
        await uc.updateCloud.execute({
          projectId: params.project_id,
          nodeId: params.node_id,
          name: body.name,
          portsMapping: body.ports_mapping,
          remoteConsoleHost: body.remote_console_host,
          remoteConsolePort: body.remote_console_port,
          remoteConsoleType: body.remote_console_type,
          remoteConsoleHttpPath: body.remote_console_http_path,
        }),
      ),
    answer: json(200, CloudAnswer, present),
  }),
];

/** The cloud's routes: its own, then what every kind shares but the get (its answer has the host's interfaces). */
export function cloudRoutes(): AnyRoute[] {
  return [...CLOUD_ROUTES, ...commonRoutes("cloud").filter((r) => r.name !== "compute.cloud.get")];
}

export function registerCloudRoutes(api: ApiRouter, uc: UseCases): void {
  for (const r of cloudRoutes()) api.addRoute(r, uc);
}
