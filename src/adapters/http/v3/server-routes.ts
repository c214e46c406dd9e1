import type { UseCases } from "../../../application/use-cases/index.js";
import type { ApiRouter } from "../api-router.js";
import { presentInterface, presentNetworkPorts, presentStatistics } from "../compute/presenters.js";
import { addV3 } from "./routes.js";

/** What a 3.x controller asks of a compute beyond projects and nodes (gns3-v3-compute-protocol.md). */
export function registerV3ServerRoutes(api: ApiRouter, uc: UseCases): void {
  /**
   * The controller's only probe (api/routes/compute/capabilities.py get_capabilities): 3.x adds the
   * machine's size; a stable controller compares `version` with its own, exactly.
   */
  addV3(api, "compute.capabilities", "GET", "/capabilities", (x) => {
    const c = uc.getCapabilities.execute();
    x.json(200, {
      cpus: c.capacity.cpus,
      disk_size: c.capacity.diskBytes,
      memory: c.capacity.memoryBytes,
      node_types: c.nodeTypes,
      platform: c.platform,
      version: c.v3Version,
    });
  });

  /** 3.x's `{version}` (compute.py compute_version): no `local`. */
  addV3(api, "compute.version", "GET", "/version", (x) => x.json(200, { version: uc.getCapabilities.execute().v3Version }));

  addV3(api, "compute.statistics", "GET", "/statistics", async (x) => x.json(200, presentStatistics(await uc.getComputeStatistics.execute())));

  addV3(api, "compute.network_interfaces", "GET", "/network/interfaces", (x) => x.json(200, uc.listNetworkInterfaces.execute().map(presentInterface)));

  addV3(api, "compute.network_ports", "GET", "/network/ports", async (x) => x.json(200, presentNetworkPorts(await uc.listNetworkPorts.execute())));
}
