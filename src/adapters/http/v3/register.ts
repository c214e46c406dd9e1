import type { UseCases } from "../../../application/use-cases/index.js";
import type { ApiRouter } from "../api-router.js";
import { registerV3ServerRoutes } from "./server-routes.js";
import { registerV3ProjectRoutes } from "./project-routes.js";
import { registerV3NodeRoutes } from "./node-routes.js";
import { registerV3CloudRoutes } from "./cloud-routes.js";
import { registerV3LinuxHostRoutes } from "./linux-host-routes.js";

/** Every /v3/compute route (ADR 0066). */
export function registerV3ComputeRoutes(api: ApiRouter, uc: UseCases): void {
  registerV3ServerRoutes(api, uc);
  registerV3ProjectRoutes(api, uc);
  registerV3NodeRoutes(api, uc);
  registerV3CloudRoutes(api, uc);
  registerV3LinuxHostRoutes(api, uc);
}
