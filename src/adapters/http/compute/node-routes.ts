import type * as t from "io-ts";
import type { UseCases } from "../../../application/use-cases/index.js";
import type { PortAddress } from "../../../application/use-cases/compute/compute-lookup.js";
import type { ComputeNodeType, NodeStatus } from "../../../domain/switching/compute-node.js";
import { type ApiRouter, withBody } from "../api-router.js";
import type { Exchange } from "../exchange.js";
import { DuplicateBody, HubCreateBody, HubUpdateBody, NioBody, SwitchCreateBody, SwitchUpdateBody } from "./codecs.js";
import type { NioRequest } from "../../../application/use-cases/compute/nio-request.js";

/** The NIO a body asks for: GNS3's fields as they are, netemu's direction-specific filters renamed. */
function nioRequest(body: t.TypeOf<typeof NioBody>): NioRequest {
  if (body.type !== "nio_udp") return body;
  const { filters_in, filters_out, ...gns3 } = body;
  return { ...gns3, filtersIn: filters_in, filtersOut: filters_out };
}
import { presentComputeNode, presentNio } from "./presenters.js";

/** The compute routes of a node type: `/v2/compute/projects/{project_id}/<type>/nodes`. */
const nodesRoute = (nodeType: ComputeNodeType): string => `/v2/compute/projects/{project_id}/${nodeType}/nodes`;
export const portRoute = (nodeType: ComputeNodeType): string =>
  `${nodesRoute(nodeType)}/{node_id}/adapters/{adapter_number:\\d+}/ports/{port_number:\\d+}`;

export function portAddress(x: Exchange, nodeType: ComputeNodeType): PortAddress {
  return {
    projectId: x.param("project_id"),
    nodeId: x.param("node_id"),
    adapterNumber: x.intParam("adapter_number"),
    portNumber: x.intParam("port_number"),
    nodeType,
  };
}

const STATUS_OF_ACTION: Readonly<Record<string, NodeStatus>> = { start: "started", stop: "stopped", suspend: "suspended" };

/** What the switch and the hub routes share: get, delete, duplicate, status, NIOs. */
function registerCommonRoutes(api: ApiRouter, uc: UseCases, nodeType: ComputeNodeType): void {
  const NODE = `${nodesRoute(nodeType)}/{node_id}`;
  const NIO = `${portRoute(nodeType)}/nio`;
  const ids = (x: Exchange) => ({ projectId: x.param("project_id"), nodeId: x.param("node_id"), nodeType });

  api.add(`compute.${nodeType}.get`, "GET", NODE, async (x) => {
    x.respond(await uc.getComputeNode.execute(ids(x)), 200, (v) => presentComputeNode(v.node, v.counters));
  });

  api.add(`compute.${nodeType}.delete`, "DELETE", NODE, async (x) => {
    x.respond(await uc.deleteComputeNode.execute({ projectId: x.param("project_id"), nodeId: x.param("node_id"), nodeType }), 204, () => undefined);
  });

  api.add(`compute.${nodeType}.duplicate`, "POST", `${NODE}/duplicate`, withBody(DuplicateBody, async (x, body) => {
    const duplicated = await uc.duplicateComputeNode.execute({ projectId: x.param("project_id"), nodeId: x.param("node_id"), destinationNodeId: body.destination_node_id, nodeType });
    x.respond(duplicated, 201, (node) => presentComputeNode(node));
  }));

  for (const [action, status] of Object.entries(STATUS_OF_ACTION)) {
    api.add(`compute.${nodeType}.${action}`, "POST", `${NODE}/${action}`, async (x) => {
      x.respond(await uc.changeNodeStatus.execute({ projectId: x.param("project_id"), nodeId: x.param("node_id"), status, nodeType }), 204, () => undefined);
    });
  }

  api.add(`compute.${nodeType}.nio.create`, "POST", NIO, withBody(NioBody, async (x, body) => {
    x.respond(await uc.addNio.execute({ port: portAddress(x, nodeType), nio: nioRequest(body) }), 201, (nio) => presentNio(nio, false));
  }));

  api.add(`compute.${nodeType}.nio.update`, "PUT", NIO, withBody(NioBody, async (x, body) => {
    x.respond(await uc.updateNio.execute({ port: portAddress(x, nodeType), nio: nioRequest(body) }), 201, (nio) => presentNio(nio, true));
  }));

  api.add(`compute.${nodeType}.nio.delete`, "DELETE", NIO, async (x) => {
    x.respond(await uc.removeNio.execute({ port: portAddress(x, nodeType) }), 204, () => undefined);
  });
}

export function registerEthernetSwitchRoutes(api: ApiRouter, uc: UseCases): void {
  const NODES = nodesRoute("ethernet_switch");
  api.add("compute.ethernet_switch.create", "POST", NODES, withBody(SwitchCreateBody, async (x, body) => {
    const created = await uc.createSwitch.execute({
      projectId: x.param("project_id"),
      name: body.name,
      nodeId: body.node_id,
      console: body.console,
      consoleType: body.console_type,
      portsMapping: body.ports_mapping,
    });
    x.respond(created, 201, (sw) => presentComputeNode(sw));
  }));

  api.add("compute.ethernet_switch.update", "PUT", `${NODES}/{node_id}`, withBody(SwitchUpdateBody, async (x, body) => {
    const updated = await uc.updateSwitch.execute({
      projectId: x.param("project_id"),
      nodeId: x.param("node_id"),
      name: body.name,
      consoleType: body.console_type,
      portsMapping: body.ports_mapping,
    });
    x.respond(updated, 200, (sw) => presentComputeNode(sw));
  }));

  /** netemu extension: the learned MAC addresses (GNS3's `mac` console command was never finished). */
  api.add("compute.ethernet_switch.mac_table", "GET", `${NODES}/{node_id}/mac_table`, async (x) => {
    const table = await uc.getMacTable.execute({ projectId: x.param("project_id"), nodeId: x.param("node_id") });
    x.respond(table, 200, (entries) => entries.map((e) => ({ mac: e.mac, vlan: e.vlan, port_number: e.port, age: e.age })));
  });

  registerCommonRoutes(api, uc, "ethernet_switch");
}

export function registerEthernetHubRoutes(api: ApiRouter, uc: UseCases): void {
  const NODES = nodesRoute("ethernet_hub");
  api.add("compute.ethernet_hub.create", "POST", NODES, withBody(HubCreateBody, async (x, body) => {
    const created = await uc.createHub.execute({
      projectId: x.param("project_id"),
      name: body.name,
      nodeId: body.node_id,
      portsMapping: body.ports_mapping,
    });
    x.respond(created, 201, (hub) => presentComputeNode(hub));
  }));

  api.add("compute.ethernet_hub.update", "PUT", `${NODES}/{node_id}`, withBody(HubUpdateBody, async (x, body) => {
    const updated = await uc.updateHub.execute({
      projectId: x.param("project_id"),
      nodeId: x.param("node_id"),
      name: body.name,
      portsMapping: body.ports_mapping,
    });
    x.respond(updated, 200, (hub) => presentComputeNode(hub));
  }));

  registerCommonRoutes(api, uc, "ethernet_hub");
}
