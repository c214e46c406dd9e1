import * as t from "io-ts";
import * as E from "fp-ts/lib/Either.js";
import type { UseCases } from "../../../application/use-cases/index.js";
import type { ApiRouter } from "../api-router.js";
import { json } from "../route.js";
import { captureRoutes } from "../compute/capture-routes.js";
import { type CloudWithInterfaces, cloudRoutes } from "../compute/cloud-routes.js";
import { CloudPortEntry, HostInterfaceEntry, Uuid } from "../compute/codecs.js";
import { presentCloud } from "../compute/presenters.js";
import { jsonArray, jsonClosedObject, jsonEnum, jsonInteger, jsonOpenObject, jsonString, nullable } from "../schema.js";
import { V3CaptureBody, V3UdpNioBody, v3UdpNio } from "./codecs.js";
import { onV3, registerOnV3, sameBody, v3Body, type V3Route } from "./dialect.js";

const REMOTE_CONSOLE_TYPES = ["telnet", "vnc", "spice", "http", "https", "none"] as const;
const open = { additional: true } as const;

/** 3.0.6's CloudCreate / CloudUpdate (schemas/compute/cloud_nodes.py): every field optional but a create's name, unknown keys ignored. */
const cloudFields = {
  node_id: Uuid,
  usage: nullable(jsonString()),
  remote_console_host: nullable(jsonString()),
  remote_console_port: nullable(jsonInteger({ minimum: 1, maximum: 65535, nullable: true })),
  remote_console_type: nullable(jsonEnum(REMOTE_CONSOLE_TYPES)),
  remote_console_http_path: nullable(jsonString()),
  // Each entry is read by the domain's one parse (ADR 0082): the controller's extra keys go there.
  ports_mapping: nullable(jsonArray(jsonOpenObject("V3CloudPort", { name: jsonString(), port_number: jsonInteger(), type: jsonString() }))),
  // The host interfaces a 3.x controller echoes back (HostInterface: name, type, special): read, then ignored.
  interfaces: nullable(jsonArray(jsonOpenObject("V3CloudInterface", { name: jsonString() }))),
};
const V3CloudCreateBody = jsonClosedObject("V3CloudCreate", { name: jsonString() }, cloudFields, open);
const V3CloudUpdateBody = jsonClosedObject("V3CloudUpdate", {}, { name: nullable(jsonString()), ...cloudFields }, open);

/** 3.0.6's Cloud answer: its base fields, `usage`, no `node_directory` (FastAPI's response model leaves it out). */
const V3CloudAnswer = jsonClosedObject(
  "CloudV3",
  {
    name: jsonString(),
    node_id: Uuid,
    project_id: Uuid,
    status: jsonEnum(["started", "stopped", "suspended"] as const),
    usage: jsonString(),
    ports_mapping: jsonArray(CloudPortEntry),
    remote_console_host: jsonString(),
    remote_console_port: nullable(jsonInteger({ nullable: true })),
    remote_console_type: jsonEnum(REMOTE_CONSOLE_TYPES),
    remote_console_http_path: jsonString(),
    interfaces: jsonArray(HostInterfaceEntry),
  },
  {},
);

function presentV3Cloud(v: CloudWithInterfaces): t.TypeOf<typeof V3CloudAnswer> {
  const { node_directory: _directory, ports_statistics: _statistics, ...answer } = presentCloud(v.node, undefined, v.interfaces);
  return { ...answer, usage: "", interfaces: answer.interfaces ?? [] };
}

/** null is "not given" in 3.x's bodies. */
const given = <T>(v: T | null | undefined): T | undefined => (v === null ? undefined : v);
const remoteConsole = (b: t.TypeOf<typeof V3CloudUpdateBody>) => ({
  remote_console_host: given(b.remote_console_host),
  remote_console_port: given(b.remote_console_port),
  remote_console_type: given(b.remote_console_type),
  remote_console_http_path: given(b.remote_console_http_path),
});

const v2 = new Map([...cloudRoutes(), ...captureRoutes("cloud")].map((r) => [r.name, r] as const));
function route(name: string) {
  const found = v2.get(name);
  if (found === undefined) throw new Error(`no route value named ${name}`);
  return found;
}

/** 3.0.6's cloud routes (api/routes/compute/cloud_nodes.py): v2's values through the 3.x dialect (no duplicate, no reload there). */
export const V3_CLOUD_ROUTES: readonly V3Route[] = [
  onV3(route("compute.cloud.create"), {
    body: v3Body(V3CloudCreateBody, (b) => E.right({ name: b.name, node_id: b.node_id, ports_mapping: given(b.ports_mapping), ...remoteConsole(b) })),
    answer: json(201, V3CloudAnswer, presentV3Cloud),
  }),
  onV3(route("compute.cloud.get"), { answer: json(200, V3CloudAnswer, presentV3Cloud) }),
  onV3(route("compute.cloud.update"), {
    body: v3Body(V3CloudUpdateBody, (b) => E.right({ name: given(b.name), ports_mapping: given(b.ports_mapping), ...remoteConsole(b) })),
    answer: json(200, V3CloudAnswer, presentV3Cloud),
  }),
  onV3(route("compute.cloud.delete")),
  ...["start", "stop", "suspend"].map((action) => onV3(route(`compute.cloud.${action}`))),
  ...["nio.create", "nio.update"].map((action) => onV3(route(`compute.cloud.${action}`), { body: v3Body(V3UdpNioBody, v3UdpNio) })),
  onV3(route("compute.cloud.nio.delete")),
  onV3(route("compute.cloud.start_capture"), { as: { action: "capture.start", segments: "capture/start" }, body: sameBody(V3CaptureBody) }),
  onV3(route("compute.cloud.stop_capture"), { as: { action: "capture.stop", segments: "capture/stop" } }),
  onV3(route("compute.cloud.pcap"), { as: { action: "capture.stream", segments: "capture/stream" } }),
];

export function registerV3CloudRoutes(api: ApiRouter, uc: UseCases): void {
  registerOnV3(api, uc, V3_CLOUD_ROUTES);
}
