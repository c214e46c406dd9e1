import type * as t from "io-ts";
import * as E from "fp-ts/lib/Either.js";
import type { UseCases } from "../../../application/use-cases/index.js";
import type { ComputeNodeView } from "../../../application/use-cases/compute/get-compute-node.js";
import type { ComputeNode } from "../../../domain/switching/compute-node.js";
import type { NetemuHostNode } from "../../../domain/switching/netemu-host-node.js";
import type { ApiRouter } from "../api-router.js";
import { json } from "../route.js";
import { captureRoutes } from "../compute/capture-routes.js";
import { LINUX_HOST_ROUTES } from "../compute/linux-host-routes.js";
import { ExecBody, HostInterfaceBody } from "../compute/linux-host-codecs.js";
import { HostInterfaceAnswer, HubPortAnswer } from "../compute/answers.js";
import { Uuid } from "../compute/codecs.js";
import { presentLinuxHost } from "../compute/presenters.js";
import { jsonArray, jsonClosedObject, jsonEnum, jsonString, nullable } from "../schema.js";
import { V3CaptureBody, V3DuplicateBody, V3UdpNioBody, v3UdpNio } from "./codecs.js";
import { onV3, registerOnV3, sameBody, v3Body, type V3Route } from "./dialect.js";

const open = { additional: true } as const;

/**
 * netemu's Linux host (ADR 0087) in 3.x's form (ADR 0090): the bodies open and nullable as pydantic reads
 * them (a 3.x controller sends back every key it kept, `usage` among them), the interfaces checked by the
 * same domain parse as on v2.
 */
const hostFields = { node_id: Uuid, usage: nullable(jsonString()), interfaces: nullable(jsonArray(HostInterfaceBody)), gateway: nullable(jsonString()) };
const V3LinuxHostCreateBody = jsonClosedObject("V3LinuxHostCreate", { name: jsonString({ minLength: 1 }) }, hostFields, open);
const V3LinuxHostUpdateBody = jsonClosedObject("V3LinuxHostUpdate", {}, { name: nullable(jsonString({ minLength: 1 })), ...hostFields }, open);

/** A host as every 3.x node answers: `usage`, and no counters (3.x has none). */
const V3LinuxHostAnswer = jsonClosedObject(
  "LinuxHostV3",
  {
    name: jsonString(),
    node_id: Uuid,
    project_id: Uuid,
    status: jsonEnum(["started", "stopped", "suspended"] as const),
    usage: jsonString(),
    ports_mapping: jsonArray(HubPortAnswer),
    interfaces: jsonArray(HostInterfaceAnswer),
    gateway: nullable(jsonString()),
    node_directory: jsonString(),
  },
  {},
);

function presentV3LinuxHost(node: NetemuHostNode): t.TypeOf<typeof V3LinuxHostAnswer> {
  const { ports_statistics: _statistics, ...answer } = presentLinuxHost(node);
  return { ...answer, usage: "" };
}

/** The v2 routes (get, duplicate) find a node by its type: on a netemu_host route, always a host. */
const asHost = (node: ComputeNode): NetemuHostNode => node as NetemuHostNode;

const v2 = new Map([...LINUX_HOST_ROUTES, ...captureRoutes("netemu_host")].map((r) => [r.name, r] as const));
function route(name: string) {
  const found = v2.get(name);
  if (found === undefined) throw new Error(`no route value named ${name}`);
  return found;
}

/** null is "not given" in 3.x's bodies, but a gateway's null is "none" (v2 reads it so too). */
const given = <T>(v: T | null | undefined): T | undefined => (v === null ? undefined : v);

/** Every /v3/compute route of netemu's Linux host: v2's values through the 3.x dialect, exec included. */
export const V3_LINUX_HOST_ROUTES: readonly V3Route[] = [
  onV3(route("compute.netemu_host.create"), {
    body: v3Body(V3LinuxHostCreateBody, (b) => E.right({ name: b.name, node_id: b.node_id, interfaces: b.interfaces, gateway: b.gateway })),
    answer: json(201, V3LinuxHostAnswer, presentV3LinuxHost),
  }),
  onV3(route("compute.netemu_host.get"), { answer: json(200, V3LinuxHostAnswer, (v: ComputeNodeView) => presentV3LinuxHost(asHost(v.node))) }),
  onV3(route("compute.netemu_host.update"), {
    body: v3Body(V3LinuxHostUpdateBody, (b) => E.right({ name: given(b.name), interfaces: b.interfaces, gateway: b.gateway })),
    answer: json(200, V3LinuxHostAnswer, presentV3LinuxHost),
  }),
  onV3(route("compute.netemu_host.delete")),
  onV3(route("compute.netemu_host.duplicate"), { body: sameBody(V3DuplicateBody), answer: json(201, V3LinuxHostAnswer, (node: ComputeNode) => presentV3LinuxHost(asHost(node))) }),
  ...["start", "stop", "suspend", "reload"].map((action) => onV3(route(`compute.netemu_host.${action}`))),
  onV3(route("compute.netemu_host.exec"), { body: sameBody(ExecBody) }),
  ...["nio.create", "nio.update"].map((action) => onV3(route(`compute.netemu_host.${action}`), { body: v3Body(V3UdpNioBody, v3UdpNio) })),
  onV3(route("compute.netemu_host.nio.delete")),
  onV3(route("compute.netemu_host.start_capture"), { as: { action: "capture.start", segments: "capture/start" }, body: sameBody(V3CaptureBody) }),
  onV3(route("compute.netemu_host.stop_capture"), { as: { action: "capture.stop", segments: "capture/stop" } }),
  onV3(route("compute.netemu_host.pcap"), { as: { action: "capture.stream", segments: "capture/stream" } }),
];

export function registerV3LinuxHostRoutes(api: ApiRouter, uc: UseCases): void {
  registerOnV3(api, uc, V3_LINUX_HOST_ROUTES);
}
