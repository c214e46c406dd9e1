import * as E from "fp-ts/lib/Either.js";
import type { UseCases } from "../../../application/use-cases/index.js";
import type { ApiRouter } from "../api-router.js";
import { empty } from "../route.js";
import { COMPUTE_PROJECT_ROUTES } from "../compute/project-routes.js";
import { V3ProjectCreateBody, V3ProjectUpdateBody } from "./codecs.js";
import { onV3, registerOnV3, sameBody, v3Body } from "./dialect.js";

const v2 = COMPUTE_PROJECT_ROUTES;
const FILE_PATH = { v2: "path", v3: "file_path" } as const;

/** 3.0.6's compute projects (api/routes/compute/projects.py): v2's route values through the 3.x dialect. */
export const V3_PROJECT_ROUTES = {
  create: onV3(v2.create, { body: v3Body(V3ProjectCreateBody, (b) => E.right({ name: b.name, project_id: b.project_id, variables: b.variables ?? undefined })) }),
  list: onV3(v2.list),
  get: onV3(v2.get),
  update: onV3(v2.update, { body: sameBody(V3ProjectUpdateBody) }),
  close: onV3(v2.close),
  delete: onV3(v2.delete),
  udpPort: onV3(v2.udpPort),
  files: onV3(v2.files),
  fileRead: onV3(v2.fileRead, { param: FILE_PATH }),
  /** An import's upload (import_project.py _upload_file): 3.x answers 204 where 2.2 answered 201. */
  fileWrite: onV3(v2.fileWrite, { param: FILE_PATH, answer: empty(204) }),
};

export function registerV3ProjectRoutes(api: ApiRouter, uc: UseCases): void {
  const r = V3_PROJECT_ROUTES;
  registerOnV3(api, uc, [r.create, r.list, r.get, r.update, r.close, r.delete, r.udpPort, r.files, r.fileRead, r.fileWrite]);
}
