import type { UseCases } from "../../../application/use-cases/index.js";
import type { PortAddress } from "../../../application/use-cases/compute/compute-lookup.js";
import type { ComputeNode, ComputeNodeType, NodeStatus } from "../../../domain/switching/compute-node.js";
import { type ApiRouter, withBody } from "../api-router.js";
import { presentComputeNode, presentNio } from "../compute/presenters.js";
import { streamCapture } from "../pcap-stream.js";
import { V3CaptureBody, V3DuplicateBody, V3HubCreateBody, V3HubUpdateBody, V3SwitchCreateBody, V3SwitchUpdateBody, V3UdpNioBody, v3PortsMapping } from "./codecs.js";
import type { V3Exchange } from "./exchange.js";
import { addV3 } from "./routes.js";

const nodesPath = (nodeType: ComputeNodeType): string => `/projects/{project_id}/${nodeType}/nodes`;
const portPath = (nodeType: ComputeNodeType): string => `${nodesPath(nodeType)}/{node_id}/adapters/{adapter_number:\\d+}/ports/{port_number:\\d+}`;

/**
 * A switch or hub as 3.0.6 answers it: 2.2's keys and `usage` (netemu keeps none: always ""), every
 * switch port with its ethertype, as pydantic fills the default (0x8100, which 2.2's "" stands for).
 */
function presentV3Node(node: ComputeNode): Record<string, unknown> {
  const body = { ...presentComputeNode(node), usage: "" };
  if (node.nodeType !== "ethernet_switch") return body;
  return { ...body, ports_mapping: node.portsMapping.map((p) => ({ ...p, ethertype: "ethertype" in p && p.ethertype !== "" && p.ethertype !== undefined ? p.ethertype : "0x8100" })) };
}

/**
 * The port a request names, or undefined once the 422 is sent: 3.0.6's switch and hub routes take
 * adapter 0 only (`Path(ge=0, le=0)`).
 */
function v3Port(x: V3Exchange, nodeType: ComputeNodeType): PortAddress | undefined {
  const adapterNumber = x.intParam("adapter_number");
  if (adapterNumber !== 0) {
    x.answerV3({ status: 422, detail: [{ type: "less_than_equal", loc: ["path", "adapter_number"], msg: "Input should be less than or equal to 0", input: String(adapterNumber) }] });
    return undefined;
  }
  return { projectId: x.param("project_id"), nodeId: x.param("node_id"), adapterNumber, portNumber: x.intParam("port_number"), nodeType };
}

const STATUS_OF_ACTION: Readonly<Record<string, NodeStatus>> = { start: "started", stop: "stopped", suspend: "suspended" };

function registerCommon(api: ApiRouter, uc: UseCases, nodeType: ComputeNodeType): void {
  const NODE = `${nodesPath(nodeType)}/{node_id}`;
  const PORT = portPath(nodeType);
  const ids = (x: V3Exchange) => ({ projectId: x.param("project_id"), nodeId: x.param("node_id"), nodeType });

  addV3(api, `compute.${nodeType}.get`, "GET", NODE, async (x) => x.respond(await uc.getComputeNode.execute(ids(x)), 200, (v) => presentV3Node(v.node)));

  addV3(api, `compute.${nodeType}.delete`, "DELETE", NODE, async (x) => x.respond(await uc.deleteComputeNode.execute(ids(x)), 204, () => undefined));

  addV3(api, `compute.${nodeType}.duplicate`, "POST", `${NODE}/duplicate`, withBody(V3DuplicateBody, async (x, body) => {
    x.respond(await uc.duplicateComputeNode.execute({ ...ids(x as V3Exchange), destinationNodeId: body.destination_node_id }), 201, presentV3Node);
  }));

  for (const [action, status] of Object.entries(STATUS_OF_ACTION)) {
    addV3(api, `compute.${nodeType}.${action}`, "POST", `${NODE}/${action}`, async (x) => {
      x.respond(await uc.changeNodeStatus.execute({ ...ids(x), status }), 204, () => undefined);
    });
  }

  addV3(api, `compute.${nodeType}.nio.create`, "POST", `${PORT}/nio`, withBody(V3UdpNioBody, async (x, body) => {
    const port = v3Port(x as V3Exchange, nodeType);
    if (port === undefined) return;
    const nio = { type: "nio_udp" as const, lport: body.lport, rhost: body.rhost, rport: body.rport, filters: body.filters, suspend: body.suspend === undefined || body.suspend === null ? undefined : Boolean(body.suspend) };
    x.respond(await uc.addNio.execute({ port, nio }), 201, (added) => presentNio(added, false));
  }));

  addV3(api, `compute.${nodeType}.nio.delete`, "DELETE", `${PORT}/nio`, async (x) => {
    const port = v3Port(x, nodeType);
    if (port !== undefined) x.respond(await uc.removeNio.execute({ port }), 204, () => undefined);
  });

  addV3(api, `compute.${nodeType}.capture.start`, "POST", `${PORT}/capture/start`, withBody(V3CaptureBody, async (x, body) => {
    const port = v3Port(x as V3Exchange, nodeType);
    if (port === undefined) return;
    const started = await uc.startCapture.execute({ port, fileName: body.capture_file_name, dataLinkType: body.data_link_type });
    x.respond(started, 200, (path) => ({ pcap_file_path: path }));
  }));

  addV3(api, `compute.${nodeType}.capture.stop`, "POST", `${PORT}/capture/stop`, async (x) => {
    const port = v3Port(x, nodeType);
    if (port !== undefined) x.respond(await uc.stopCapture.execute({ port }), 204, () => undefined);
  });

  addV3(api, `compute.${nodeType}.capture.stream`, "GET", `${PORT}/capture/stream`, async (x) => {
    const port = v3Port(x, nodeType);
    if (port !== undefined) await streamCapture(x, await uc.locateCapture.execute({ port }));
  });
}

export function registerV3SwitchRoutes(api: ApiRouter, uc: UseCases): void {
  const NODES = nodesPath("ethernet_switch");
  addV3(api, "compute.ethernet_switch.create", "POST", NODES, withBody(V3SwitchCreateBody, async (x, body) => {
    const ports = body.ports_mapping === undefined || body.ports_mapping === null ? undefined : v3PortsMapping(body.ports_mapping);
    if (ports !== undefined && !ports.ok) return (x as V3Exchange).answerV3({ status: 422, detail: [ports.detail] });
    const created = await uc.createSwitch.execute({
      projectId: x.param("project_id"),
      name: body.name,
      nodeId: body.node_id,
      console: body.console,
      consoleType: body.console_type ?? undefined,
      portsMapping: ports?.ports,
    });
    x.respond(created, 201, presentV3Node);
  }));

  /** The controller sends back everything it kept from the last answer (`usage`, `builtin` ...): ignored. */
  addV3(api, "compute.ethernet_switch.update", "PUT", `${NODES}/{node_id}`, withBody(V3SwitchUpdateBody, async (x, body) => {
    const ports = body.ports_mapping === undefined || body.ports_mapping === null ? undefined : v3PortsMapping(body.ports_mapping);
    if (ports !== undefined && !ports.ok) return (x as V3Exchange).answerV3({ status: 422, detail: [ports.detail] });
    const updated = await uc.updateSwitch.execute({
      projectId: x.param("project_id"),
      nodeId: x.param("node_id"),
      name: body.name ?? undefined,
      consoleType: body.console_type ?? undefined,
      portsMapping: ports?.ports,
    });
    x.respond(updated, 200, presentV3Node);
  }));

  /** 3.0.6 answers 204 and does nothing: a switch is always on. The node must exist. */
  addV3(api, "compute.ethernet_switch.reload", "POST", `${NODES}/{node_id}/reload`, async (x) => {
    x.respond(await uc.getComputeNode.execute({ projectId: x.param("project_id"), nodeId: x.param("node_id"), nodeType: "ethernet_switch" }), 204, () => undefined);
  });

  registerCommon(api, uc, "ethernet_switch");
}

export function registerV3HubRoutes(api: ApiRouter, uc: UseCases): void {
  const NODES = nodesPath("ethernet_hub");
  addV3(api, "compute.ethernet_hub.create", "POST", NODES, withBody(V3HubCreateBody, async (x, body) => {
    const created = await uc.createHub.execute({
      projectId: x.param("project_id"),
      name: body.name,
      nodeId: body.node_id,
      portsMapping: body.ports_mapping?.map((p) => ({ name: p.name, port_number: p.port_number })) ?? undefined,
    });
    x.respond(created, 201, presentV3Node);
  }));

  addV3(api, "compute.ethernet_hub.update", "PUT", `${NODES}/{node_id}`, withBody(V3HubUpdateBody, async (x, body) => {
    const updated = await uc.updateHub.execute({
      projectId: x.param("project_id"),
      nodeId: x.param("node_id"),
      name: body.name ?? undefined,
      portsMapping: body.ports_mapping?.map((p) => ({ name: p.name, port_number: p.port_number })) ?? undefined,
    });
    x.respond(updated, 200, presentV3Node);
  }));

  registerCommon(api, uc, "ethernet_hub");
}
