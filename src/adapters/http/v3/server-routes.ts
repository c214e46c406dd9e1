import { V3_NODE_TYPES } from "./node-routes.js";
import * as E from "fp-ts/lib/Either.js";
import type { UseCases } from "../../../application/use-cases/index.js";
import type { Capabilities } from "../../../application/use-cases/compute/get-capabilities.js";
import type { ApiRouter } from "../api-router.js";
import { json, route } from "../route.js";
import { jsonArray, jsonClosedObject, jsonInteger, jsonString } from "../schema.js";
import { COMPUTE_SERVER_ROUTES } from "../compute/server-routes.js";
import { onV3, registerOnV3, type V3Route } from "./dialect.js";

const v2 = COMPUTE_SERVER_ROUTES;

/** 3.x's `{version}` (compute.py compute_version): no `local`. */
const VERSION = route({
  name: "compute.version",
  method: "GET",
  path: "/version",
  refusals: [],
  run: async (uc) => E.right(uc.getCapabilities.execute().v3Version),
  answer: json(200, jsonClosedObject("VersionV3", { version: jsonString() }, {}), (version: string) => ({ version })),
});

/**
 * What a 3.x controller asks of a compute beyond projects and nodes (gns3-v3-compute-protocol.md):
 * v2's route values through the 3.x dialect. The controller's only probe (capabilities.py
 * get_capabilities) adds the machine's size; a stable controller compares `version` with its own, exactly.
 */
export const V3_SERVER_ROUTES = {
  capabilities: onV3(v2.capabilities, {
    answer: json(
      200,
      jsonClosedObject("CapabilitiesV3", { cpus: jsonInteger(), disk_size: jsonInteger(), memory: jsonInteger(), node_types: jsonArray(jsonString()), platform: jsonString(), version: jsonString() }, {}),
      (c: Capabilities) => ({ cpus: c.capacity.cpus, disk_size: c.capacity.diskBytes, memory: c.capacity.memoryBytes, node_types: c.nodeTypes.filter((t) => V3_NODE_TYPES.includes(t)), platform: c.platform, version: c.v3Version }),
    ),
  }),
  version: onV3(VERSION),
  statistics: onV3(v2.statistics),
  networkInterfaces: onV3(v2.networkInterfaces),
  networkPorts: onV3(v2.networkPorts),
} satisfies Record<string, V3Route>;

export function registerV3ServerRoutes(api: ApiRouter, uc: UseCases): void {
  registerOnV3(api, uc, Object.values(V3_SERVER_ROUTES));
}
