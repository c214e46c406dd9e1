import type { UseCases } from "../../../application/use-cases/index.js";
import { CREATE_LINUX_HOST_REFUSALS } from "../../../application/use-cases/compute/create-linux-host.js";
import { UPDATE_LINUX_HOST_REFUSALS } from "../../../application/use-cases/compute/update-linux-host.js";
import { EXEC_IN_LINUX_HOST_REFUSALS } from "../../../application/use-cases/compute/exec-in-linux-host.js";
import { CHANGE_NODE_STATUS_REFUSALS } from "../../../application/use-cases/compute/change-node-status.js";
import type { NetemuHostNode } from "../../../domain/switching/netemu-host-node.js";
import type { ApiRouter } from "../api-router.js";
import { type AnyRoute, empty, json, route } from "../route.js";
import { ExecAnswer, ExecBody, LinuxHostCreateBody, LinuxHostUpdateBody, presentExec } from "./linux-host-codecs.js";
import { LinuxHostAnswer } from "./answers.js";
import { presentLinuxHost } from "./presenters.js";
import { commonRoutes } from "./node-routes.js";

/**
 * netemu's Linux host on the compute (ADR 0087): `/v2/compute/projects/{project_id}/netemu_host/nodes`,
 * the routes every kind shares (get, delete, duplicate, start/stop/suspend, NIOs, captures), reload, and
 * `exec`, which runs a command inside the host's namespace.
 */
const NODES = "/v2/compute/projects/{project_id}/netemu_host/nodes" as const;

export const LINUX_HOST_ROUTES: readonly AnyRoute[] = [
  route({
    name: "compute.netemu_host.create",
    method: "POST",
    path: NODES,
    body: LinuxHostCreateBody,
    refusals: CREATE_LINUX_HOST_REFUSALS,
    run: (uc, { params, body }) => uc.createLinuxHost.execute({ projectId: params.project_id, name: body.name, nodeId: body.node_id, interfaces: body.interfaces ?? undefined, gateway: body.gateway }),
    answer: json(201, LinuxHostAnswer, (node: NetemuHostNode) => presentLinuxHost(node)),
  }),
  route({
    name: "compute.netemu_host.update",
    method: "PUT",
    path: `${NODES}/{node_id}`,
    body: LinuxHostUpdateBody,
    refusals: UPDATE_LINUX_HOST_REFUSALS,
    run: (uc, { params, body }) =>
      uc.updateLinuxHost.execute({ projectId: params.project_id, nodeId: params.node_id, name: body.name ?? undefined, interfaces: body.interfaces ?? undefined, gateway: body.gateway }),
    answer: json(200, LinuxHostAnswer, (node: NetemuHostNode) => presentLinuxHost(node)),
  }),
  route({
    name: "compute.netemu_host.reload",
    method: "POST",
    path: `${NODES}/{node_id}/reload`,
    refusals: CHANGE_NODE_STATUS_REFUSALS,
    run: (uc, { params }) => uc.changeNodeStatus.reload({ projectId: params.project_id, nodeId: params.node_id, nodeType: "netemu_host" }),
    answer: empty(204),
  }),
  route({
    name: "compute.netemu_host.exec",
    method: "POST",
    path: `${NODES}/{node_id}/exec`,
    body: ExecBody,
    refusals: EXEC_IN_LINUX_HOST_REFUSALS,
    run: (uc, { params, body }) => uc.execInLinuxHost.execute({ projectId: params.project_id, nodeId: params.node_id, argv: body.argv, timeout: body.timeout, maxOutputBytes: body.max_output_bytes }),
    answer: json(200, ExecAnswer, presentExec),
  }),
  ...commonRoutes("netemu_host"),
];

export function registerLinuxHostRoutes(api: ApiRouter, uc: UseCases): void {
  for (const r of LINUX_HOST_ROUTES) api.addRoute(r, uc);
}
