import { Readable } from "node:stream";
import * as E from "fp-ts/lib/Either.js";
import type { UseCases } from "../../../application/use-cases/index.js";
import type { ProjectVariable } from "../../../domain/topology/project.js";
import type { ApiRouter } from "../api-router.js";
import { empty, json, list, raw, route, UPLOAD } from "../route.js";
import { jsonArray, jsonClosedObject, jsonInteger, jsonString } from "../schema.js";
import { ComputeProjectAnswer } from "./answers.js";
import { ComputeProjectBody, ComputeProjectUpdateBody } from "./codecs.js";
import type { ProjectFileEntry } from "../../../application/ports/project-files.js";
import { CREATE_COMPUTE_PROJECT_REFUSALS } from "../../../application/use-cases/compute/create-compute-project.js";
import { GET_COMPUTE_PROJECT_REFUSALS } from "../../../application/use-cases/compute/get-compute-project.js";
import { UPDATE_COMPUTE_PROJECT_REFUSALS } from "../../../application/use-cases/compute/update-compute-project.js";
import { DELETE_COMPUTE_PROJECT_REFUSALS } from "../../../application/use-cases/compute/delete-compute-project.js";
import { CLOSE_COMPUTE_PROJECT_REFUSALS } from "../../../application/use-cases/compute/close-compute-project.js";
import { RESERVE_UDP_PORT_REFUSALS } from "../../../application/use-cases/compute/reserve-udp-port.js";
import { LIST_PROJECT_FILES_REFUSALS } from "../../../application/use-cases/compute/list-project-files.js";
import { READ_PROJECT_FILE_REFUSALS } from "../../../application/use-cases/compute/read-project-file.js";
import { WRITE_PROJECT_FILE_REFUSALS } from "../../../application/use-cases/compute/write-project-file.js";
import { presentComputeProject } from "./presenters.js";
import { type NotificationBacklogs, NotificationFeed } from "../notification-feed.js";
import { serveNotificationStream } from "../notification-stream.js";

const PROJECT = "/v2/compute/projects/{project_id}";
const FILE = `${PROJECT}/files/{path:.+}` as const;


/** The compute's project routes declared as values (ADR 0076), v2's; /v3/compute serves them through its dialect. */
export const COMPUTE_PROJECT_ROUTES = {
  create: route({
    name: "compute.project.create",
    method: "POST",
    path: "/v2/compute/projects",
    body: ComputeProjectBody,
    refusals: CREATE_COMPUTE_PROJECT_REFUSALS,
    run: (uc, { body }) => uc.createComputeProject.execute({ name: body.name ?? "", projectId: body.project_id, variables: body.variables }),
    answer: json(201, ComputeProjectAnswer, presentComputeProject),
  }),
  list: route({
    name: "compute.project.list",
    method: "GET",
    path: "/v2/compute/projects",
    refusals: [],
    run: async (uc) => E.right(await uc.listComputeProjects.execute()),
    answer: list(200, ComputeProjectAnswer, presentComputeProject),
  }),
  get: route({
    name: "compute.project.get",
    method: "GET",
    path: PROJECT,
    refusals: GET_COMPUTE_PROJECT_REFUSALS,
    run: (uc, { params }) => uc.getComputeProject.execute({ projectId: params.project_id }),
    answer: json(200, ComputeProjectAnswer, presentComputeProject),
  }),
  /** The controller sends `{"variables": ...}` when the project's variables change; GNS3 answers 200. */
  update: route({
    name: "compute.project.update",
    method: "PUT",
    path: PROJECT,
    body: ComputeProjectUpdateBody,
    refusals: UPDATE_COMPUTE_PROJECT_REFUSALS,
    run: (uc, { params, body }) => uc.updateComputeProject.execute({ projectId: params.project_id, variables: (body.variables ?? null) as readonly ProjectVariable[] | null }),
    answer: json(200, ComputeProjectAnswer, presentComputeProject),
  }),
  delete: route({
    name: "compute.project.delete",
    method: "DELETE",
    path: PROJECT,
    refusals: DELETE_COMPUTE_PROJECT_REFUSALS,
    run: (uc, { params }) => uc.deleteComputeProject.execute({ projectId: params.project_id }),
    answer: empty(204),
  }),
  close: route({
    name: "compute.project.close",
    method: "POST",
    path: `${PROJECT}/close`,
    refusals: CLOSE_COMPUTE_PROJECT_REFUSALS,
    run: (uc, { params }) => uc.closeComputeProject.execute({ projectId: params.project_id }),
    answer: empty(204),
  }),
  udpPort: route({
    name: "compute.project.udp_port",
    method: "POST",
    path: `${PROJECT}/ports/udp`,
    refusals: RESERVE_UDP_PORT_REFUSALS,
    run: (uc, { params }) => uc.reserveUdpPort.execute({ projectId: params.project_id }),
    answer: json(201, jsonClosedObject("UdpPort", { udp_port: jsonInteger() }, {}), (udpPort: number) => ({ udp_port: udpPort })),
  }),
  files: route({
    name: "compute.project.files",
    method: "GET",
    path: `${PROJECT}/files`,
    refusals: LIST_PROJECT_FILES_REFUSALS,
    run: (uc, { params }) => uc.listProjectFiles.execute({ projectId: params.project_id }),
    answer: json(200, jsonArray(jsonClosedObject("ProjectFile", { md5sum: jsonString(), path: jsonString() }, {})), (files: readonly ProjectFileEntry[]) => files.map((f) => ({ md5sum: f.md5sum, path: f.path }))),
  }),
  fileRead: route({
    name: "compute.project.file.read",
    method: "GET",
    path: FILE,
    refusals: READ_PROJECT_FILE_REFUSALS,
    run: (uc, { params }) => uc.readProjectFile.execute({ projectId: params.project_id, path: params.path }),
    answer: raw(200, "application/octet-stream", (content: AsyncIterable<Uint8Array>) => Readable.from(content)),
  }),
  /** The body is the file itself, streamed to disk (a controller importing or duplicating a project). */
  fileWrite: route({
    name: "compute.project.file.write",
    method: "POST",
    path: FILE,
    body: UPLOAD,
    refusals: WRITE_PROJECT_FILE_REFUSALS,
    run: (uc, { params, body }) => uc.writeProjectFile.execute({ projectId: params.project_id, path: params.path, content: body.content, declaredBytes: body.declaredBytes }),
    answer: empty(201),
  }),
};

export function registerComputeProjectRoutes(api: ApiRouter, uc: UseCases, backlogs: NotificationBacklogs): void {
  const r = COMPUTE_PROJECT_ROUTES;
  for (const value of [r.create, r.list, r.get, r.update, r.delete, r.close, r.udpPort, r.files, r.fileRead, r.fileWrite]) api.addRoute(value, uc);

  /**
   * GNS3's per-project stream: one JSON message per line, a ping every 5 s while idle. Written on the
   * response itself (Koa steps aside), so that what waits for the reader is in one place, which the
   * backlog bound counts: the response's and its socket's buffers.
   */
  api.add("compute.project.notifications", "GET", `${PROJECT}/notifications`, (x) =>
    serveNotificationStream(x, backlogs, (send) => NotificationFeed.open(uc, { projectId: x.param("project_id"), idleMs: 5000, send })),
  );
}
