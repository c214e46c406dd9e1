import { Readable } from "node:stream";
import * as E from "fp-ts/lib/Either.js";
import type { UseCases } from "../../../application/use-cases/index.js";
import type { ProjectVariable } from "../../../domain/topology/project.js";
import { type ApiRouter, withBody } from "../api-router.js";
import { ComputeProjectBody, ComputeProjectUpdateBody } from "./codecs.js";
import { presentComputeProject } from "./presenters.js";
import { type FeedClient, type NotificationBacklogs, NotificationFeed } from "../notification-feed.js";

const PROJECT = "/v2/compute/projects/{project_id}";
const FILE = `${PROJECT}/files/{path:.+}`;
const NEWLINE = Buffer.from("\n");

export function registerComputeProjectRoutes(api: ApiRouter, uc: UseCases, backlogs: NotificationBacklogs): void {
  api.add("compute.project.create", "POST", "/v2/compute/projects", withBody(ComputeProjectBody, async (x, body) => {
    const created = await uc.createComputeProject.execute({
      name: body.name ?? "",
      projectId: body.project_id,
      variables: body.variables,
    });
    x.respond(created, 201, presentComputeProject);
  }));

  api.add("compute.project.list", "GET", "/v2/compute/projects", async (x) => x.jsonList(200, await uc.listComputeProjects.execute(), presentComputeProject));

  api.add("compute.project.get", "GET", PROJECT, async (x) => {
    x.respond(await uc.getComputeProject.execute({ projectId: x.param("project_id") }), 200, presentComputeProject);
  });

  /** The controller sends `{"variables": ...}` when the project's variables change; GNS3 answers 200. */
  api.add("compute.project.update", "PUT", PROJECT, withBody(ComputeProjectUpdateBody, async (x, body) => {
    const variables = (body.variables ?? null) as readonly ProjectVariable[] | null;
    x.respond(await uc.updateComputeProject.execute({ projectId: x.param("project_id"), variables }), 200, presentComputeProject);
  }));

  api.add("compute.project.delete", "DELETE", PROJECT, async (x) => {
    x.respond(await uc.deleteComputeProject.execute({ projectId: x.param("project_id") }), 204, () => undefined);
  });

  api.add("compute.project.close", "POST", `${PROJECT}/close`, async (x) => {
    x.respond(await uc.closeComputeProject.execute({ projectId: x.param("project_id") }), 204, () => undefined);
  });

  api.add("compute.project.udp_port", "POST", `${PROJECT}/ports/udp`, async (x) => {
    x.respond(await uc.reserveUdpPort.execute({ projectId: x.param("project_id") }), 201, (udpPort) => ({ udp_port: udpPort }));
  });

  api.add("compute.project.files", "GET", `${PROJECT}/files`, async (x) => {
    x.respond(await uc.listProjectFiles.execute({ projectId: x.param("project_id") }), 200, (files) => files.map((f) => ({ md5sum: f.md5sum, path: f.path })));
  });

  api.add("compute.project.file.read", "GET", FILE, async (x) => {
    const content = await uc.readProjectFile.execute({ projectId: x.param("project_id"), path: x.param("path") });
    if (E.isLeft(content)) return x.fail(content.left);
    x.ctx.status = 200;
    x.ctx.set("Content-Type", "application/octet-stream");
    x.ctx.body = Readable.from(content.right);
  });

  /** The body is the file itself, streamed to disk (a controller importing or duplicating a project). */
  api.add(
    "compute.project.file.write",
    "POST",
    FILE,
    async (x) => {
      const length = x.ctx.get("Content-Length");
      const declaredBytes = /^\d+$/.test(length) ? Number(length) : undefined;
      // Not destroyed when the upload stops early: the socket must still carry the answer.
      const content = x.ctx.req.iterator({ destroyOnReturn: false }) as AsyncIterable<Uint8Array>;
      const written = await uc.writeProjectFile.execute({ projectId: x.param("project_id"), path: x.param("path"), content, declaredBytes });
      if (E.isLeft(written)) {
        // The rest of a refused body is not read: the connection ends after the answer.
        if (written.left._tag === "PayloadTooLarge") x.ctx.set("Connection", "close");
        return x.fail(written.left);
      }
      x.empty(201);
    },
    { rawBody: true },
  );

  /**
   * GNS3's per-project stream: one JSON message per line, a ping every 5 s while idle. Written on the
   * response itself (Koa steps aside), so that what waits for the reader is in one place, which the
   * backlog bound counts: the response's and its socket's buffers.
   */
  api.add("compute.project.notifications", "GET", `${PROJECT}/notifications`, async (x) => {
    const res = x.ctx.res;
    // What comes before the answer starts (the first ping, while the feed opens) waits here.
    let early: Buffer[] | undefined = [];
    const client: FeedClient = {
      kind: "stream",
      unsent: () => res.writableLength + (early === undefined ? 0 : early.reduce((n, b) => n + b.length + NEWLINE.length, 0)),
      drop: (_reason, graceMs) => {
        // The answer ends properly (its last chunk) behind what was queued; a reader that never
        // takes it is cut after the grace.
        res.end();
        setTimeout(() => res.destroy(), graceMs).unref();
      },
    };
    const forget = backlogs.add(client);
    const feed = await NotificationFeed.open(uc, {
      projectId: x.param("project_id"),
      idleMs: 5000,
      send: (message) => {
        if (res.destroyed || res.writableEnded) return false;
        if (!backlogs.admit(client, message.length + NEWLINE.length)) return false;
        if (early !== undefined) early.push(message);
        else {
          res.write(message);
          res.write(NEWLINE);
        }
        return true;
      },
    });
    if (E.isLeft(feed)) {
      forget();
      return x.fail(feed.left);
    }
    x.ctx.status = 200;
    x.ctx.set("Content-Type", "application/json");
    x.ctx.respond = false;
    res.writeHead(200);
    if (x.ctx.method === "HEAD") {
      // The headers are the whole answer: nothing to follow.
      forget();
      feed.right.close();
      return void res.end();
    }
    const queued = early;
    early = undefined;
    for (const message of queued) {
      res.write(message);
      res.write(NEWLINE);
    }
    res.once("close", () => {
      forget();
      feed.right.close();
    });
    // Already gone while the feed opened.
    if (res.destroyed) {
      forget();
      feed.right.close();
    }
  });
}
