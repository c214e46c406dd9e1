import type { UseCases } from "../../../application/use-cases/index.js";
import type { ApiRouter } from "../api-router.js";
import { presentInterface, presentNetworkPorts, presentStatistics } from "./presenters.js";
import { NOTIFICATION_SOCKET_PATH } from "../notification-socket.js";

/** What a GNS3 controller asks of a compute beyond its projects and nodes (docs: gns3-compute-protocol). */
export function registerComputeServerRoutes(api: ApiRouter, uc: UseCases): void {
  /** The controller's only probe: exactly these three keys (it rejects any other). */
  api.add("compute.capabilities", "GET", "/v2/compute/capabilities", (x) => {
    const c = uc.getCapabilities.execute();
    x.json(200, { node_types: c.nodeTypes, platform: c.platform, version: c.version });
  });

  api.add("compute.statistics", "GET", "/v2/compute/statistics", async (x) => x.json(200, presentStatistics(await uc.getComputeStatistics.execute())));

  api.add("compute.network_interfaces", "GET", "/v2/compute/network/interfaces", (x) => x.json(200, uc.listNetworkInterfaces.execute().map(presentInterface)));

  api.add("compute.network_ports", "GET", "/v2/compute/network/ports", async (x) => x.json(200, presentNetworkPorts(await uc.listNetworkPorts.execute())));

  api.add("compute.debug", "GET", "/v2/compute/debug", async (x) => {
    x.ctx.status = 200;
    x.ctx.set("Content-Type", "text/plain; charset=utf-8");
    x.ctx.body = await uc.describeCompute.execute();
  });

  // The websocket itself is served from the HTTP server's upgrade event; a plain GET lands here.
  api.add("compute.notifications", "GET", NOTIFICATION_SOCKET_PATH, (x) => x.error({ status: 400, message: "This is a websocket: connect with an Upgrade: websocket request" }));
}
