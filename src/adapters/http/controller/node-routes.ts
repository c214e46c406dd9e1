import type { RemoteConsoleInput } from "../../../application/use-cases/compute/cloud-remote-console.js";
import type * as t from "io-ts";
import * as E from "fp-ts/lib/Either.js";
import type { UseCases } from "../../../application/use-cases/index.js";
import type { NodeAction } from "../../../application/use-cases/controller/control-node.js";
import { CREATE_NODE_REFUSALS } from "../../../application/use-cases/controller/create-node.js";
import { LIST_NODES_REFUSALS } from "../../../application/use-cases/controller/list-nodes.js";
import { GET_NODE_REFUSALS } from "../../../application/use-cases/controller/get-node.js";
import { LIST_NODE_LINKS_REFUSALS } from "../../../application/use-cases/controller/list-node-links.js";
import { UPDATE_NODE_REFUSALS } from "../../../application/use-cases/controller/update-node.js";
import { DELETE_NODE_REFUSALS } from "../../../application/use-cases/controller/delete-node.js";
import { CONTROL_NODE_REFUSALS } from "../../../application/use-cases/controller/control-node.js";
import { CONTROL_ALL_NODES_REFUSALS } from "../../../application/use-cases/controller/control-all-nodes.js";
import type { ControllerNodeDetail, ControllerNodeView } from "../../../application/use-cases/controller/node-views.js";
import type { NodePortEntry } from "../../../domain/topology/node.js";
import type { ApiRouter } from "../api-router.js";
import { type AnyRoute, decodePart, empty, json, list, type PartRefused, route } from "../route.js";
import { HubProperties, CloudProperties, LinuxHostProperties, NodeCreateBody, type NodeProperties, NodeUpdateBody, SwitchProperties, VpcsProperties } from "./codecs.js";
import { LinkAnswer, NodeAnswer } from "./answers.js";
import { ExecAnswer, ExecBody, presentExec } from "../compute/linux-host-codecs.js";
import { RESET_CONTROLLER_NODE_CONSOLE_REFUSALS } from "../../../application/use-cases/controller/reset-controller-node-console.js";
import { RESET_PROJECT_CONSOLES_REFUSALS } from "../../../application/use-cases/controller/reset-project-consoles.js";
import { EXEC_IN_NODE_REFUSALS } from "../../../application/use-cases/controller/exec-in-node.js";
import { presentLink, presentNode, presentNodeDetail } from "./presenters.js";

const NODES = "/v2/projects/{project_id}/nodes";
const NODE = `${NODES}/{node_id}` as const;
const NODE_ACTIONS: readonly NodeAction[] = ["start", "stop", "suspend", "reload"];

/** A cloud's remote_console_* properties (ADR 0082); other kinds have none. */
function remoteConsoleOf(nodeType: string, properties: t.TypeOf<typeof NodeProperties> | undefined): E.Either<PartRefused, RemoteConsoleInput | undefined> {
  if (properties === undefined || nodeType !== "cloud") return E.right(undefined);
  const decoded = decodePart(CloudProperties, properties);
  if (E.isLeft(decoded)) return decoded;
  const p = decoded.right;
  return E.right({ remoteConsoleHost: p.remote_console_host, remoteConsolePort: p.remote_console_port, remoteConsoleType: p.remote_console_type, remoteConsoleHttpPath: p.remote_console_http_path });
}

/** The ports_mapping of a node's properties, read as its node type has them (a hub's entries have no type). */
function portsOf(nodeType: string, properties: t.TypeOf<typeof NodeProperties> | undefined): E.Either<PartRefused, readonly NodePortEntry[] | undefined> {
  // A VPCS has one fixed port, a Linux host one per interface: their properties say nothing of ports.
  if (properties === undefined || nodeType === "vpcs" || nodeType === "netemu_host") return E.right(undefined);
  const decoded = nodeType === "ethernet_hub" ? decodePart(HubProperties, properties) : nodeType === "cloud" ? decodePart(CloudProperties, properties) : decodePart(SwitchProperties, properties);
  return E.isLeft(decoded) ? decoded : E.right(decoded.right.ports_mapping);
}

type LinuxHostSettings = { readonly interfaces?: unknown; readonly gateway?: unknown };

/** A Linux host's interfaces and gateway from its properties (what is left out stays as it is). */
function linuxHostOf(nodeType: string, properties: t.TypeOf<typeof NodeProperties> | undefined): E.Either<PartRefused, LinuxHostSettings> {
  if (properties === undefined || nodeType !== "netemu_host") return E.right({});
  const decoded = decodePart(LinuxHostProperties, properties);
  if (E.isLeft(decoded)) return decoded;
  return E.right({ ...(decoded.right.interfaces === undefined ? {} : { interfaces: decoded.right.interfaces }), ...(decoded.right.gateway === undefined ? {} : { gateway: decoded.right.gateway }) });
}

/**
 * The controller's node routes, declared as values (ADR 0076). `consoleHost` is the host a node's
 * console is reached at, which every node answer carries.
 */
export function controllerNodeRoutes(consoleHost: string): readonly AnyRoute[] {
  const present = (view: ControllerNodeView) => presentNode(view, consoleHost);
  // Built apart from the return, whose AnyRoute would widen each template's parameters to strings.
  const routes = [
    route({
      name: "controller.node.create",
      method: "POST",
      path: NODES,
      body: NodeCreateBody,
      refusals: CREATE_NODE_REFUSALS,
      run: async (uc, { params, body: b }) => {
        const ports = portsOf(b.node_type, b.properties);
        if (E.isLeft(ports)) return ports;
        // A VPCS's startup script, which GNS3's controller sends to the compute once (ADR 0081).
        const vpcs = b.node_type === "vpcs" && b.properties !== undefined ? decodePart(VpcsProperties, b.properties) : E.right(undefined);
        if (E.isLeft(vpcs)) return vpcs;
        const remote = remoteConsoleOf(b.node_type, b.properties);
        if (E.isLeft(remote)) return remote;
        const host = linuxHostOf(b.node_type, b.properties);
        if (E.isLeft(host)) return host;
        return uc.createNode.execute({
          ...host.right,
          projectId: params.project_id,
          name: b.name,
          nodeType: b.node_type,
          computeId: b.compute_id,
          nodeId: b.node_id,
          portsMapping: ports.right,
          consoleType: b.console_type,
          console: b.console,
          startupScript: vpcs.right?.startup_script ?? undefined,
          remoteConsole: remote.right,
          x: b.x,
          y: b.y,
          z: b.z,
          locked: b.locked,
          label: b.label,
          symbol: b.symbol,
        });
      },
      answer: json(201, NodeAnswer, present),
    }),
    route({
      name: "controller.node.list",
      method: "GET",
      path: NODES,
      refusals: LIST_NODES_REFUSALS,
      run: (uc, { params }) => uc.listNodes.execute({ projectId: params.project_id }),
      answer: list(200, NodeAnswer, present),
    }),
    route({
      name: "controller.node.get",
      method: "GET",
      path: NODE,
      refusals: GET_NODE_REFUSALS,
      run: (uc, { params }) => uc.getNode.execute({ projectId: params.project_id, nodeId: params.node_id }),
      answer: json(200, NodeAnswer, (detail: ControllerNodeDetail) => presentNodeDetail(detail, consoleHost)),
    }),
    // The plain link objects (no counters): gns3fy builds its Link models from them, which take no other keys.
    route({
      name: "controller.node.links",
      method: "GET",
      path: `${NODE}/links`,
      refusals: LIST_NODE_LINKS_REFUSALS,
      run: (uc, { params }) => uc.listNodeLinks.execute({ projectId: params.project_id, nodeId: params.node_id }),
      answer: list(200, LinkAnswer, presentLink),
    }),
    route({
      name: "controller.node.update",
      method: "PUT",
      path: NODE,
      body: NodeUpdateBody,
      refusals: UPDATE_NODE_REFUSALS,
      run: async (uc, { params, body: b }) => {
        let portsMapping: readonly NodePortEntry[] | undefined;
        let remoteConsole: RemoteConsoleInput | undefined;
        let host: LinuxHostSettings = {};
        if (b.properties !== undefined) {
          // Which entries fit depends on the node's type, known once the node is found.
          const node = await uc.getNode.execute({ projectId: params.project_id, nodeId: params.node_id });
          if (E.isLeft(node)) return node;
          const ports = portsOf(node.right.node.nodeType, b.properties);
          if (E.isLeft(ports)) return ports;
          portsMapping = ports.right;
          const remote = remoteConsoleOf(node.right.node.nodeType, b.properties);
          if (E.isLeft(remote)) return remote;
          remoteConsole = remote.right;
          const read = linuxHostOf(node.right.node.nodeType, b.properties);
          if (E.isLeft(read)) return read;
          host = read.right;
        }
        return uc.updateNode.execute({
          projectId: params.project_id,
          nodeId: params.node_id,
          name: b.name,
          x: b.x,
          y: b.y,
          z: b.z,
          locked: b.locked,
          label: b.label,
          symbol: b.symbol,
          consoleType: b.console_type,
          console: b.console,
          portsMapping,
          remoteConsole,
          ...host,
        });
      },
      answer: json(200, NodeAnswer, present),
    }),
    route({
      name: "controller.node.delete",
      method: "DELETE",
      path: NODE,
      refusals: DELETE_NODE_REFUSALS,
      run: (uc, { params }) => uc.deleteNode.execute({ projectId: params.project_id, nodeId: params.node_id }),
      answer: empty(204),
    }),
    ...NODE_ACTIONS.flatMap((action) => [
      route({
        name: `controller.nodes.${action}`,
        method: "POST",
        path: `${NODES}/${action}`,
        refusals: CONTROL_ALL_NODES_REFUSALS,
        run: (uc, { params }) => uc.controlAllNodes.execute({ projectId: params.project_id, action }),
        answer: empty(204),
      }),
      route({
        name: `controller.node.${action}`,
        method: "POST",
        path: `${NODE}/${action}`,
        refusals: CONTROL_NODE_REFUSALS,
        run: (uc, { params }) => uc.controlNode.execute({ projectId: params.project_id, nodeId: params.node_id, action }),
        answer: json(200, NodeAnswer, present),
      }),
    ]),
    route({
      name: "controller.nodes.console_reset",
      method: "POST",
      path: `${NODES}/console/reset`,
      refusals: RESET_PROJECT_CONSOLES_REFUSALS,
      run: (uc, { params }) => uc.resetProjectConsoles.execute({ projectId: params.project_id }),
      answer: empty(204),
    }),
    // GNS3 2.2.59 posts it to the node's compute (ADR 0099): 204, or the compute's 404 for a kind without a console.
    route({
      name: "controller.node.console_reset",
      method: "POST",
      path: `${NODE}/console/reset`,
      refusals: RESET_CONTROLLER_NODE_CONSOLE_REFUSALS,
      run: (uc, { params }) => uc.resetControllerNodeConsole.execute({ projectId: params.project_id, nodeId: params.node_id }),
      answer: empty(204),
    }),
    // netemu extension (ADR 0087): a command run inside a Linux host; under `netemu/` as GNS3 has no such route.
    route({
      name: "controller.node.exec",
      method: "POST",
      path: `${NODE}/netemu/exec`,
      body: ExecBody,
      refusals: EXEC_IN_NODE_REFUSALS,
      run: (uc, { params, body }) => uc.execInNode.execute({ projectId: params.project_id, nodeId: params.node_id, argv: body.argv, timeout: body.timeout, maxOutputBytes: body.max_output_bytes }),
      answer: json(200, ExecAnswer, presentExec),
    }),
  ];
  return routes;
}

export function registerControllerNodeRoutes(api: ApiRouter, uc: UseCases, consoleHost: string): void {
  for (const value of controllerNodeRoutes(consoleHost)) api.addRoute(value, uc);
}
