import type * as t from "io-ts";
import { RESET_NODE_CONSOLE_REFUSALS } from "../../../application/use-cases/compute/reset-node-console.js";
import type { UseCases } from "../../../application/use-cases/index.js";
import type { PortAddress } from "../../../application/use-cases/compute/compute-lookup.js";
import type { NioRequest } from "../../../application/use-cases/compute/nio-request.js";
import { GET_MAC_TABLE_REFUSALS } from "../../../application/use-cases/compute/get-mac-table.js";
import type { MacTableEntry } from "../../../application/ports/data-plane.js";
import { GET_COMPUTE_NODE_REFUSALS, type ComputeNodeView } from "../../../application/use-cases/compute/get-compute-node.js";
import { DELETE_COMPUTE_NODE_REFUSALS } from "../../../application/use-cases/compute/delete-compute-node.js";
import { DUPLICATE_COMPUTE_NODE_REFUSALS } from "../../../application/use-cases/compute/duplicate-compute-node.js";
import { CHANGE_NODE_STATUS_REFUSALS } from "../../../application/use-cases/compute/change-node-status.js";
import { ADD_NIO_REFUSALS } from "../../../application/use-cases/compute/add-nio.js";
import { UPDATE_NIO_REFUSALS } from "../../../application/use-cases/compute/update-nio.js";
import { REMOVE_NIO_REFUSALS } from "../../../application/use-cases/compute/remove-nio.js";
import { CREATE_SWITCH_REFUSALS } from "../../../application/use-cases/compute/create-switch.js";
import { UPDATE_SWITCH_REFUSALS } from "../../../application/use-cases/compute/update-switch.js";
import { CREATE_HUB_REFUSALS } from "../../../application/use-cases/compute/create-hub.js";
import { UPDATE_HUB_REFUSALS } from "../../../application/use-cases/compute/update-hub.js";
import type { ComputeNode, ComputeNodeType, NodeStatus } from "../../../domain/switching/compute-node.js";
import type { ApiRouter } from "../api-router.js";
import { type AnyRoute, empty, json, route } from "../route.js";
import { DuplicateBody, HubCreateBody, HubUpdateBody, NioBody, SwitchCreateBody, SwitchUpdateBody, VpcsCreateBody, VpcsUpdateBody } from "./codecs.js";
import { EthernetHubAnswer, EthernetSwitchAnswer, MacTableAnswer, NODE_ANSWERS, NioAddedAnswer, NioUpdatedAnswer, VpcsAnswer } from "./answers.js";
import { presentAddedNio, presentComputeNode, presentHub, presentSwitch, presentUpdatedNio, presentVpcs } from "./presenters.js";
import { CREATE_VPCS_REFUSALS } from "../../../application/use-cases/compute/create-vpcs.js";
import { UPDATE_VPCS_REFUSALS } from "../../../application/use-cases/compute/update-vpcs.js";
import type { VpcsNode } from "../../../domain/switching/host-node.js";
import type { EthernetSwitch } from "../../../domain/switching/ethernet-switch.js";
import type { EthernetHub } from "../../../domain/switching/ethernet-hub.js";

/** The NIO a body asks for: GNS3's fields as they are, netemu's direction-specific filters renamed. */
function nioRequest(body: t.TypeOf<typeof NioBody>): NioRequest {
  if (body.type === "nio_tap") return { type: "nio_tap", tapDevice: body.tap_device };
  if (body.type === "nio_ethernet") return { type: "nio_ethernet", ethernetDevice: body.ethernet_device };
  if (body.type !== "nio_udp") return body;
  const { filters_in, filters_out, schedule_in, schedule_out, ...gns3 } = body;
  return { ...gns3, filtersIn: filters_in, filtersOut: filters_out, scheduleIn: schedule_in, scheduleOut: schedule_out };
}

/** The compute routes of a node type: `/v2/compute/projects/{project_id}/<type>/nodes`. */
export const nodesPath = (nodeType: ComputeNodeType) => `/v2/compute/projects/{project_id}/${nodeType}/nodes` as const;
const nodePath = (nodeType: ComputeNodeType) => `${nodesPath(nodeType)}/{node_id}` as const;
export const portPath = (nodeType: ComputeNodeType) => `${nodePath(nodeType)}/adapters/{adapter_number:\\d+}/ports/{port_number:\\d+}` as const;

/** The port a port route names. */
export function portOf(nodeType: ComputeNodeType, params: { readonly project_id: string; readonly node_id: string; readonly adapter_number: number; readonly port_number: number }): PortAddress {
  return { projectId: params.project_id, nodeId: params.node_id, adapterNumber: params.adapter_number, portNumber: params.port_number, nodeType };
}

const STATUS_OF_ACTION: Readonly<Record<string, NodeStatus>> = { start: "started", stop: "stopped", suspend: "suspended" };

/** What the switch and the hub routes share: get, delete, duplicate, status, NIOs. */
export function commonRoutes(nodeType: ComputeNodeType): AnyRoute[] {
  const NODE = nodePath(nodeType);
  const NIO = `${portPath(nodeType)}/nio` as const;
  const node = NODE_ANSWERS[nodeType];
  const at = (action: string) => `compute.${nodeType}.${action}`;
  return [
    route({
      name: at("get"),
      method: "GET",
      path: NODE,
      refusals: GET_COMPUTE_NODE_REFUSALS,
      run: (uc, { params }) => uc.getComputeNode.execute({ projectId: params.project_id, nodeId: params.node_id, nodeType }),
      answer: json(200, node, (v: ComputeNodeView) => presentComputeNode(v.node, v.counters)),
    }),
    route({
      name: at("delete"),
      method: "DELETE",
      path: NODE,
      refusals: DELETE_COMPUTE_NODE_REFUSALS,
      run: (uc, { params }) => uc.deleteComputeNode.execute({ projectId: params.project_id, nodeId: params.node_id, nodeType }),
      answer: empty(204),
    }),
    route({
      name: at("duplicate"),
      method: "POST",
      path: `${NODE}/duplicate`,
      body: DuplicateBody,
      refusals: DUPLICATE_COMPUTE_NODE_REFUSALS,
      run: (uc, { params, body }) => uc.duplicateComputeNode.execute({ projectId: params.project_id, nodeId: params.node_id, destinationNodeId: body.destination_node_id, nodeType }),
      answer: json(201, node, (duplicated: ComputeNode) => presentComputeNode(duplicated)),
    }),
    ...Object.entries(STATUS_OF_ACTION).map(([action, status]) =>
      route({
        name: at(action),
        method: "POST",
        path: `${NODE}/${action}`,
        refusals: CHANGE_NODE_STATUS_REFUSALS,
        run: (uc, { params }) => uc.changeNodeStatus.execute({ projectId: params.project_id, nodeId: params.node_id, status, nodeType }),
        answer: empty(204),
      }),
    ),
    route({
      name: at("nio.create"),
      method: "POST",
      path: NIO,
      body: NioBody,
      refusals: ADD_NIO_REFUSALS,
      run: (uc, { params, body }) => uc.addNio.execute({ port: portOf(nodeType, params), nio: nioRequest(body) }),
      answer: json(201, NioAddedAnswer, presentAddedNio),
    }),
    route({
      name: at("nio.update"),
      method: "PUT",
      path: NIO,
      body: NioBody,
      refusals: UPDATE_NIO_REFUSALS,
      run: (uc, { params, body }) => uc.updateNio.execute({ port: portOf(nodeType, params), nio: nioRequest(body) }),
      answer: json(201, NioUpdatedAnswer, presentUpdatedNio),
    }),
    route({
      name: at("nio.delete"),
      method: "DELETE",
      path: NIO,
      refusals: REMOVE_NIO_REFUSALS,
      run: (uc, { params }) => uc.removeNio.execute({ port: portOf(nodeType, params) }),
      answer: empty(204),
    }),
  ];
}

const SWITCH_NODES = nodesPath("ethernet_switch");

/** The switch's routes, in the order they are registered. */
const ETHERNET_SWITCH_ROUTES: readonly AnyRoute[] = [
  route({
    name: "compute.ethernet_switch.create",
    method: "POST",
    path: SWITCH_NODES,
    body: SwitchCreateBody,
    refusals: CREATE_SWITCH_REFUSALS,
    run: (uc, { params, body }) =>
      uc.createSwitch.execute({ projectId: params.project_id, name: body.name, nodeId: body.node_id, console: body.console, consoleType: body.console_type, portsMapping: body.ports_mapping }),
    answer: json(201, EthernetSwitchAnswer, (sw: EthernetSwitch) => presentSwitch(sw)),
  }),
  route({
    name: "compute.ethernet_switch.update",
    method: "PUT",
    path: `${SWITCH_NODES}/{node_id}`,
    body: SwitchUpdateBody,
    refusals: UPDATE_SWITCH_REFUSALS,
    run: (uc, { params, body }) =>
      uc.updateSwitch.execute({ projectId: params.project_id, nodeId: params.node_id, name: body.name, consoleType: body.console_type, portsMapping: body.ports_mapping }),
    answer: json(200, EthernetSwitchAnswer, (sw: EthernetSwitch) => presentSwitch(sw)),
  }),
];

const HUB_NODES = nodesPath("ethernet_hub");

/** The hub's routes, in the order they are registered. */
const ETHERNET_HUB_ROUTES: readonly AnyRoute[] = [
  route({
    name: "compute.ethernet_hub.create",
    method: "POST",
    path: HUB_NODES,
    body: HubCreateBody,
    refusals: CREATE_HUB_REFUSALS,
    run: (uc, { params, body }) => uc.createHub.execute({ projectId: params.project_id, name: body.name, nodeId: body.node_id, portsMapping: body.ports_mapping }),
    answer: json(201, EthernetHubAnswer, (hub: EthernetHub) => presentHub(hub)),
  }),
  route({
    name: "compute.ethernet_hub.update",
    method: "PUT",
    path: `${HUB_NODES}/{node_id}`,
    body: HubUpdateBody,
    refusals: UPDATE_HUB_REFUSALS,
    run: (uc, { params, body }) => uc.updateHub.execute({ projectId: params.project_id, nodeId: params.node_id, name: body.name, portsMapping: body.ports_mapping }),
    answer: json(200, EthernetHubAnswer, (hub: EthernetHub) => presentHub(hub)),
  }),
];

const VPCS_NODES = nodesPath("vpcs");

/** GNS3 2.2's VPCS routes (`vpcs_handler.py`), in the order they are registered; reload restarts the process. */
const VPCS_ROUTES: readonly AnyRoute[] = [
  route({
    name: "compute.vpcs.create",
    method: "POST",
    path: VPCS_NODES,
    body: VpcsCreateBody,
    refusals: CREATE_VPCS_REFUSALS,
    run: (uc, { params, body }) =>
      uc.createVpcs.execute({ projectId: params.project_id, name: body.name, nodeId: body.node_id, console: body.console, consoleType: body.console_type, startupScript: body.startup_script }),
    answer: json(201, VpcsAnswer, (node: VpcsNode) => presentVpcs(node)),
  }),
  route({
    name: "compute.vpcs.update",
    method: "PUT",
    path: `${VPCS_NODES}/{node_id}`,
    body: VpcsUpdateBody,
    refusals: UPDATE_VPCS_REFUSALS,
    run: (uc, { params, body }) =>
      uc.updateVpcs.execute({ projectId: params.project_id, nodeId: params.node_id, name: body.name ?? undefined, console: body.console, consoleType: body.console_type }),
    answer: json(200, VpcsAnswer, (node: VpcsNode) => presentVpcs(node)),
  }),
  route({
    name: "compute.vpcs.reload",
    method: "POST",
    path: `${VPCS_NODES}/{node_id}/reload`,
    refusals: CHANGE_NODE_STATUS_REFUSALS,
    run: (uc, { params }) => uc.changeNodeStatus.reload({ projectId: params.project_id, nodeId: params.node_id, nodeType: "vpcs" }),
    answer: empty(204),
  }),
  // Drops whoever holds the console (telnet or web), so that a stuck session can be reopened (ADR 0099).
  route({
    name: "compute.vpcs.console_reset",
    method: "POST",
    path: `${VPCS_NODES}/{node_id}/console/reset`,
    refusals: RESET_NODE_CONSOLE_REFUSALS,
    run: (uc, { params }) => uc.resetNodeConsole.execute({ projectId: params.project_id, nodeId: params.node_id, nodeType: "vpcs" }),
    answer: empty(204),
  }),
];

/**
 * The compute's switch and hub routes whose answers the OpenAPI test's walk checks against real ones
 * (the capture routes are in capture-routes.ts; the MAC table, which the walk does not read, is apart).
 */
export const COMPUTE_NODE_ROUTES: readonly AnyRoute[] = [
  ...ETHERNET_SWITCH_ROUTES,
  ...commonRoutes("ethernet_switch"),
  ...ETHERNET_HUB_ROUTES,
  ...commonRoutes("ethernet_hub"),
  ...VPCS_ROUTES,
  ...commonRoutes("vpcs"),
];

/** netemu extension: the learned MAC addresses (GNS3's `mac` console command was never finished). */
const MAC_TABLE_ROUTE = route({
  name: "compute.ethernet_switch.mac_table",
  method: "GET",
  path: `${SWITCH_NODES}/{node_id}/mac_table`,
  refusals: GET_MAC_TABLE_REFUSALS,
  run: (uc, { params }) => uc.getMacTable.execute({ projectId: params.project_id, nodeId: params.node_id }),
  answer: json(200, MacTableAnswer, (entries: readonly MacTableEntry[]) => entries.map((e) => ({ mac: e.mac, vlan: e.vlan, port_number: e.port, age: e.age }))),
});

export function registerEthernetSwitchRoutes(api: ApiRouter, uc: UseCases): void {
  for (const r of [...ETHERNET_SWITCH_ROUTES, MAC_TABLE_ROUTE, ...commonRoutes("ethernet_switch")]) api.addRoute(r, uc);
}

export function registerEthernetHubRoutes(api: ApiRouter, uc: UseCases): void {
  for (const r of [...ETHERNET_HUB_ROUTES, ...commonRoutes("ethernet_hub")]) api.addRoute(r, uc);
}

export function registerVpcsRoutes(api: ApiRouter, uc: UseCases): void {
  for (const r of [...VPCS_ROUTES, ...commonRoutes("vpcs")]) api.addRoute(r, uc);
}
