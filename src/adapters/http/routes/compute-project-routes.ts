import * as E from "fp-ts/lib/Either.js";
import type { UseCases } from "../../../application/use-cases/index.js";
import type { ApiRouter } from "../api-router.js";
import { ComputeProjectBody } from "../codecs/compute.js";
import { presentComputeProject } from "../presenters.js";

const PROJECT = "/v2/compute/projects/{project_id}";

export function registerComputeProjectRoutes(api: ApiRouter, uc: UseCases): void {
  api.add("POST", "/v2/compute/projects", async (x) => {
    const body = x.decode(ComputeProjectBody);
    if (E.isLeft(body)) return;
    const created = await uc.createComputeProject.execute({
      name: body.right.name ?? "",
      projectId: body.right.project_id,
      variables: body.right.variables,
    });
    x.respond(created, 201, presentComputeProject);
  });

  api.add("GET", PROJECT, async (x) => {
    x.respond(await uc.getComputeProject.execute(x.param("project_id")), 200, presentComputeProject);
  });

  api.add("DELETE", PROJECT, async (x) => {
    x.respond(await uc.closeComputeProject.execute(x.param("project_id")), 204, () => undefined);
  });

  api.add("POST", `${PROJECT}/close`, async (x) => {
    x.respond(await uc.closeComputeProject.execute(x.param("project_id")), 204, () => undefined);
  });

  api.add("POST", `${PROJECT}/ports/udp`, async (x) => {
    x.respond(await uc.reserveUdpPort.execute(x.param("project_id")), 201, (udpPort) => ({ udp_port: udpPort }));
  });
}
