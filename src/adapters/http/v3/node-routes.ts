import type * as t from "io-ts";
import * as E from "fp-ts/lib/Either.js";
import type { UseCases } from "../../../application/use-cases/index.js";
import { GET_COMPUTE_NODE_REFUSALS, type ComputeNodeView } from "../../../application/use-cases/compute/get-compute-node.js";
import { COMPUTE_NODE_TYPES, type ComputeNode, type ComputeNodeType } from "../../../domain/switching/compute-node.js";
import type { EthernetSwitch } from "../../../domain/switching/ethernet-switch.js";
import type { EthernetHub } from "../../../domain/switching/ethernet-hub.js";
import type { ApiRouter } from "../api-router.js";
import { type AnyRoute, empty, json, route } from "../route.js";
import { COMPUTE_NODE_ROUTES } from "../compute/node-routes.js";
import { captureRoutes } from "../compute/capture-routes.js";
import { presentHub, presentSwitch, presentVpcs } from "../compute/presenters.js";
import type { VpcsNode } from "../../../domain/switching/host-node.js";
import { jsonArray, jsonClosedObject, jsonEnum, jsonInteger, jsonString, nullable } from "../schema.js";
import { Uuid } from "../compute/codecs.js";
import { V3CaptureBody, V3DuplicateBody, V3HubCreateBody, V3HubUpdateBody, V3SwitchCreateBody, V3SwitchUpdateBody, V3UdpNioBody, v3UdpNio, V3VpcsCreateBody, V3VpcsUpdateBody, v3PortsMapping } from "./codecs.js";
import type { V3ValidationDetail } from "./error-mapping.js";
import { onV3, registerOnV3, sameBody, v3Body, type V3Route } from "./dialect.js";

/** A switch or hub as 3.0.6 answers it: 2.2's keys and `usage`, every switch port with its ethertype. */
const nodeFields = { name: jsonString(), node_id: Uuid, project_id: Uuid, status: jsonEnum(["started", "stopped", "suspended"] as const), usage: jsonString() };
const V3SwitchPortAnswer = jsonClosedObject(
  "EthernetSwitchPortV3",
  { name: jsonString(), port_number: jsonInteger(), type: jsonEnum(["access", "dot1q", "qinq"] as const), ethertype: jsonEnum(["0x8100", "0x88A8", "0x9100", "0x9200"] as const) },
  { vlan: jsonInteger() },
);
const V3SwitchAnswer = jsonClosedObject(
  "EthernetSwitchV3",
  { ...nodeFields, ports_mapping: jsonArray(V3SwitchPortAnswer), console: nullable(jsonInteger({ nullable: true })), console_type: jsonEnum(["telnet", "none"] as const) },
  {},
);
const V3HubAnswer = jsonClosedObject("EthernetHubV3", { ...nodeFields, ports_mapping: jsonArray(jsonClosedObject("EthernetHubPort", { name: jsonString(), port_number: jsonInteger() }, {})) }, {});
/**
 * A VPCS as 3.0.6 answers it (response_model `schemas.VPCS`): 2.2's keys, `usage` as every 3.x node has it,
 * and `startup_script`, a field of the model that the node's own answer does not fill (pydantic's null).
 */
const V3VpcsAnswer = jsonClosedObject(
  "VpcsV3",
  {
    ...nodeFields,
    node_directory: jsonString(),
    console: nullable(jsonInteger({ nullable: true })),
    console_type: jsonEnum(["telnet", "none"] as const),
    command_line: jsonString(),
    startup_script: nullable(jsonString()),
  },
  {},
);
type V3NodeAnswer = t.TypeOf<typeof V3SwitchAnswer> | t.TypeOf<typeof V3HubAnswer> | t.TypeOf<typeof V3VpcsAnswer>;
/** The kinds /v3/compute serves. */
type V3NodeType = Extract<ComputeNodeType, "ethernet_switch" | "ethernet_hub" | "vpcs">;
/**
 * What the 3.x capabilities list: GNS3's kinds /v3/compute has routes for (the cloud's: v3/cloud-routes.ts).
 * netemu_host has routes too (v3/linux-host-routes.ts) but, as on v2, the capabilities name GNS3's kinds only (ADR 0087, 0090).
 */
export const V3_NODE_TYPES: readonly ComputeNodeType[] = ["ethernet_hub", "ethernet_switch", "vpcs", "cloud"] satisfies readonly (V3NodeType | "cloud")[];
const V3_NODE_ANSWERS: { readonly [K in V3NodeType]: t.Mixed & { readonly _A: V3NodeAnswer } } = { ethernet_switch: V3SwitchAnswer, ethernet_hub: V3HubAnswer, vpcs: V3VpcsAnswer };

/** netemu keeps no `usage`: always "". A port's ethertype as pydantic fills the default (0x8100, which 2.2's "" stands for). */
function presentV3Switch(node: EthernetSwitch): t.TypeOf<typeof V3SwitchAnswer> {
  return { ...presentSwitch(node), usage: "", ports_mapping: node.portsMapping.map((p) => ({ ...p, ethertype: p.ethertype !== "" && p.ethertype !== undefined ? p.ethertype : "0x8100" })) };
}

function presentV3Hub(node: EthernetHub): t.TypeOf<typeof V3HubAnswer> {
  return { ...presentHub(node), usage: "" };
}

function presentV3Vpcs(node: VpcsNode): t.TypeOf<typeof V3VpcsAnswer> {
  return { ...presentVpcs(node), usage: "", startup_script: null };
}

/** A v3 route finds its node by its type (a switch route never answers a hub, nor a VPCS). */
function presentV3Node(node: ComputeNode): V3NodeAnswer {
  switch (node.nodeType) {
    case "ethernet_switch":
      return presentV3Switch(node);
    case "ethernet_hub":
      return presentV3Hub(node);
    case "vpcs":
      return presentV3Vpcs(node);
    case "cloud":
    case "netemu_host":
      // Presented by v3/cloud-routes.ts and v3/linux-host-routes.ts: a v3 switch, hub or VPCS route never finds either.
      throw new Error(`no v3 node answer for a ${node.nodeType}`);
  }
}

/** The v2 route values, by name: /v3 serves the same ones. */
const V2 = new Map([...COMPUTE_NODE_ROUTES, ...COMPUTE_NODE_TYPES.flatMap(captureRoutes)].map((r) => [r.name, r] as const));
function v2(name: string): AnyRoute {
  const found = V2.get(name);
  if (found === undefined) throw new Error(`no route value named ${name}`);
  return found;
}

/** 3.0.6's check_ethertype on the ports of a switch's body, as v2's ports_mapping. */
type V3SwitchPort = Parameters<typeof v3PortsMapping>[0][number];
function switchPorts(ports: readonly V3SwitchPort[] | null | undefined): E.Either<V3ValidationDetail, V3SwitchPort[] | undefined> {
  if (ports === undefined || ports === null) return E.right(undefined);
  const checked = v3PortsMapping(ports);
  return checked.ok ? E.right(checked.ports) : E.left(checked.detail);
}

const hubPorts = (ports: readonly { readonly name: string; readonly port_number: number }[] | null | undefined) => ports?.map((p) => ({ name: p.name, port_number: p.port_number })) ?? undefined;

/** What 3.0.6 shares between the switch, the hub and the VPCS: the v2 values, with 3.x's bodies, answers and names. */
function commonV3Routes(nodeType: V3NodeType): V3Route[] {
  const at = (action: string) => `compute.${nodeType}.${action}`;
  const node = V3_NODE_ANSWERS[nodeType];
  return [
    // 3.0.6 answers a node without netemu's counters.
    onV3(v2(at("get")), { answer: json(200, node, (v: ComputeNodeView) => presentV3Node(v.node)) }),
    onV3(v2(at("delete"))),
    onV3(v2(at("duplicate")), { body: sameBody(V3DuplicateBody), answer: json(201, node, presentV3Node) }),
    ...["start", "stop", "suspend"].map((action) => onV3(v2(at(action)))),
    onV3(v2(at("nio.create")), { body: v3Body(V3UdpNioBody, v3UdpNio), adapterZero: true }),
    // 3.0.6 updates a NIO (its filters) on a VPCS only: a switch's and a hub's NIO never get filters.
    ...(nodeType === "vpcs" ? [onV3(v2(at("nio.update")), { body: v3Body(V3UdpNioBody, v3UdpNio), adapterZero: true })] : []),
    onV3(v2(at("nio.delete")), { adapterZero: true }),
    onV3(v2(at("start_capture")), { as: { action: "capture.start", segments: "capture/start" }, body: sameBody(V3CaptureBody), adapterZero: true }),
    onV3(v2(at("stop_capture")), { as: { action: "capture.stop", segments: "capture/stop" }, adapterZero: true }),
    onV3(v2(at("pcap")), { as: { action: "capture.stream", segments: "capture/stream" }, adapterZero: true }),
  ];
}

/** 3.0.6 answers 204 and does nothing: a switch is always on. The node must exist. */
const RELOAD = route({
  name: "compute.ethernet_switch.reload",
  method: "POST",
  path: "/projects/{project_id}/ethernet_switch/nodes/{node_id}/reload",
  refusals: GET_COMPUTE_NODE_REFUSALS,
  run: (uc, { params }) => uc.getComputeNode.execute({ projectId: params.project_id, nodeId: params.node_id, nodeType: "ethernet_switch" }),
  answer: empty(204),
});

/** Every /v3/compute switch, hub and VPCS route: v2's values through the 3.x dialect (ADR 0076). */
export const V3_NODE_ROUTES: readonly V3Route[] = [
  /** The controller sends back everything it kept from the last answer (`usage`, `builtin` ...): ignored. */
  onV3(v2("compute.ethernet_switch.create"), {
    body: v3Body(V3SwitchCreateBody, (b) =>
      E.map((ports) => ({ name: b.name, node_id: b.node_id, console: b.console, console_type: b.console_type ?? undefined, ports_mapping: ports }))(switchPorts(b.ports_mapping)),
    ),
    answer: json(201, V3SwitchAnswer, presentV3Switch),
  }),
  onV3(v2("compute.ethernet_switch.update"), {
    body: v3Body(V3SwitchUpdateBody, (b) => E.map((ports) => ({ name: b.name ?? undefined, console_type: b.console_type ?? undefined, ports_mapping: ports }))(switchPorts(b.ports_mapping))),
    answer: json(200, V3SwitchAnswer, presentV3Switch),
  }),
  onV3(RELOAD),
  ...commonV3Routes("ethernet_switch"),
  onV3(v2("compute.ethernet_hub.create"), {
    body: v3Body(V3HubCreateBody, (b) => E.right({ name: b.name, node_id: b.node_id, ports_mapping: hubPorts(b.ports_mapping) })),
    answer: json(201, V3HubAnswer, presentV3Hub),
  }),
  onV3(v2("compute.ethernet_hub.update"), {
    body: v3Body(V3HubUpdateBody, (b) => E.right({ name: b.name ?? undefined, ports_mapping: hubPorts(b.ports_mapping) })),
    answer: json(200, V3HubAnswer, presentV3Hub),
  }),
  ...commonV3Routes("ethernet_hub"),
  onV3(v2("compute.vpcs.create"), {
    body: v3Body(V3VpcsCreateBody, (b) => E.right({ name: b.name, node_id: b.node_id, console: b.console, console_type: b.console_type ?? undefined, startup_script: b.startup_script })),
    answer: json(201, V3VpcsAnswer, presentV3Vpcs),
  }),
  onV3(v2("compute.vpcs.update"), {
    body: v3Body(V3VpcsUpdateBody, (b) => E.right({ name: b.name ?? undefined, console: b.console, console_type: b.console_type ?? undefined })),
    answer: json(200, V3VpcsAnswer, presentV3Vpcs),
  }),
  onV3(v2("compute.vpcs.reload")),
  // 3.0.6 restarts its telnet proxy, dropping its clients: netemu drops them at the VPCS (ADR 0099).
  onV3(v2("compute.vpcs.console_reset")),
  ...commonV3Routes("vpcs"),
];

export function registerV3NodeRoutes(api: ApiRouter, uc: UseCases): void {
  registerOnV3(api, uc, V3_NODE_ROUTES);
}
