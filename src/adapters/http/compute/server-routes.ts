import * as E from "fp-ts/lib/Either.js";
import type { UseCases } from "../../../application/use-cases/index.js";
import type { Capabilities } from "../../../application/use-cases/compute/get-capabilities.js";
import type { HostStatistics, NetworkInterface } from "../../../application/ports/host.js";
import type { NetworkPorts } from "../../../application/use-cases/compute/list-network-ports.js";
import type { ApiRouter } from "../api-router.js";
import { json, raw, route } from "../route.js";
import { jsonArray, jsonClosedObject, jsonString } from "../schema.js";
import { NetworkInterfaceAnswer, NetworkPortsAnswer, StatisticsAnswer } from "./answers.js";
import { presentInterface, presentNetworkPorts, presentStatistics } from "./presenters.js";
import { NOTIFICATION_SOCKET_PATH } from "../notification-socket.js";

/** What a GNS3 controller asks of a compute beyond its projects and nodes (docs: gns3-compute-protocol); /v3 serves the same values. */
export const COMPUTE_SERVER_ROUTES = {
  /** The controller's only probe: exactly these three keys (it rejects any other). */
  capabilities: route({
    name: "compute.capabilities",
    method: "GET",
    path: "/v2/compute/capabilities",
    refusals: [],
    run: async (uc) => E.right(uc.getCapabilities.execute()),
    answer: json(200, jsonClosedObject("Capabilities", { node_types: jsonArray(jsonString()), platform: jsonString(), version: jsonString() }, {}), (c: Capabilities) => ({
      node_types: [...c.nodeTypes],
      platform: c.platform,
      version: c.version,
    })),
  }),
  statistics: route({
    name: "compute.statistics",
    method: "GET",
    path: "/v2/compute/statistics",
    refusals: [],
    run: async (uc) => E.right(await uc.getComputeStatistics.execute()),
    answer: json(200, StatisticsAnswer, (s: HostStatistics) => presentStatistics(s)),
  }),
  networkInterfaces: route({
    name: "compute.network_interfaces",
    method: "GET",
    path: "/v2/compute/network/interfaces",
    refusals: [],
    run: async (uc) => E.right(uc.listNetworkInterfaces.execute()),
    answer: json(200, jsonArray(NetworkInterfaceAnswer), (list: readonly NetworkInterface[]) => list.map(presentInterface)),
  }),
  networkPorts: route({
    name: "compute.network_ports",
    method: "GET",
    path: "/v2/compute/network/ports",
    refusals: [],
    run: async (uc) => E.right(await uc.listNetworkPorts.execute()),
    answer: json(200, NetworkPortsAnswer, (p: NetworkPorts) => presentNetworkPorts(p)),
  }),
  debug: route({
    name: "compute.debug",
    method: "GET",
    path: "/v2/compute/debug",
    refusals: [],
    run: async (uc) => E.right(await uc.describeCompute.execute()),
    answer: raw(200, "text/plain; charset=utf-8", (text: string) => text),
  }),
};

export function registerComputeServerRoutes(api: ApiRouter, uc: UseCases): void {
  const r = COMPUTE_SERVER_ROUTES;
  for (const value of [r.capabilities, r.statistics, r.networkInterfaces, r.networkPorts, r.debug]) api.addRoute(value, uc);
  // The websocket itself is served from the HTTP server's upgrade event; a plain GET lands here.
  api.add("compute.notifications", "GET", NOTIFICATION_SOCKET_PATH, (x) => x.error({ status: 400, message: "This is a websocket: connect with an Upgrade: websocket request" }));
}
