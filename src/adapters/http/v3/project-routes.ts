import { Readable } from "node:stream";
import * as E from "fp-ts/lib/Either.js";
import type { UseCases } from "../../../application/use-cases/index.js";
import type { ProjectVariable } from "../../../domain/topology/project.js";
import { type ApiRouter, withBody } from "../api-router.js";
import { presentComputeProject } from "../compute/presenters.js";
import { V3ProjectCreateBody, V3ProjectUpdateBody } from "./codecs.js";
import { addV3 } from "./routes.js";
import type { V3Exchange } from "./exchange.js";

const PROJECT = "/projects/{project_id}";

/** 3.0.6's compute projects (api/routes/compute/projects.py), on the v2 routes' use cases. */
export function registerV3ProjectRoutes(api: ApiRouter, uc: UseCases): void {
  addV3(api, "compute.project.create", "POST", "/projects", withBody(V3ProjectCreateBody, async (x, body) => {
    const created = await uc.createComputeProject.execute({ name: body.name, projectId: body.project_id, variables: body.variables ?? undefined });
    x.respond(created, 201, presentComputeProject);
  }) as (x: V3Exchange) => Promise<void>);

  addV3(api, "compute.project.list", "GET", "/projects", async (x) => x.jsonList(200, await uc.listComputeProjects.execute(), presentComputeProject));

  addV3(api, "compute.project.get", "GET", PROJECT, async (x) => {
    x.respond(await uc.getComputeProject.execute({ projectId: x.param("project_id") }), 200, presentComputeProject);
  });

  addV3(api, "compute.project.update", "PUT", PROJECT, withBody(V3ProjectUpdateBody, async (x, body) => {
    const variables = (body.variables ?? null) as readonly ProjectVariable[] | null;
    x.respond(await uc.updateComputeProject.execute({ projectId: x.param("project_id"), variables }), 200, presentComputeProject);
  }) as (x: V3Exchange) => Promise<void>);

  addV3(api, "compute.project.close", "POST", `${PROJECT}/close`, async (x) => {
    x.respond(await uc.closeComputeProject.execute({ projectId: x.param("project_id") }), 204, () => undefined);
  });

  addV3(api, "compute.project.delete", "DELETE", PROJECT, async (x) => {
    x.respond(await uc.deleteComputeProject.execute({ projectId: x.param("project_id") }), 204, () => undefined);
  });

  addV3(api, "compute.project.udp_port", "POST", `${PROJECT}/ports/udp`, async (x) => {
    x.respond(await uc.reserveUdpPort.execute({ projectId: x.param("project_id") }), 201, (udpPort) => ({ udp_port: udpPort }));
  });

  addV3(api, "compute.project.files", "GET", `${PROJECT}/files`, async (x) => {
    x.respond(await uc.listProjectFiles.execute({ projectId: x.param("project_id") }), 200, (files) => files.map((f) => ({ md5sum: f.md5sum, path: f.path })));
  });

  addV3(api, "compute.project.file.read", "GET", `${PROJECT}/files/{file_path:.+}`, async (x) => {
    const content = await uc.readProjectFile.execute({ projectId: x.param("project_id"), path: x.param("file_path") });
    if (E.isLeft(content)) return x.fail(content.left);
    x.ctx.status = 200;
    x.ctx.set("Content-Type", "application/octet-stream");
    x.ctx.body = Readable.from(content.right);
  });

  /** An import's upload (import_project.py _upload_file): 3.x answers 204 where 2.2 answered 201. */
  addV3(
    api,
    "compute.project.file.write",
    "POST",
    `${PROJECT}/files/{file_path:.+}`,
    async (x) => {
      const length = x.ctx.get("Content-Length");
      const declaredBytes = /^\d+$/.test(length) ? Number(length) : undefined;
      const content = x.ctx.req.iterator({ destroyOnReturn: false }) as AsyncIterable<Uint8Array>;
      const written = await uc.writeProjectFile.execute({ projectId: x.param("project_id"), path: x.param("file_path"), content, declaredBytes });
      if (E.isLeft(written)) {
        if (written.left._tag === "PayloadTooLarge") x.ctx.set("Connection", "close");
        return x.fail(written.left);
      }
      x.empty(204);
    },
    { rawBody: true },
  );
}
