import * as E from "fp-ts/lib/Either.js";
import type { UseCases } from "../../../application/use-cases/index.js";
import type { DarkWorker } from "../../../application/ports/data-plane-health.js";
import type { UnwrittenProject } from "../../../application/ports/project-writes.js";
import type { Readiness } from "../../../application/use-cases/server/check-readiness.js";
import type { BroughtBack } from "../../../application/use-cases/server/bring-back-data-plane.js";
import type { ApiRouter } from "../api-router.js";
import { choice, json, route } from "../route.js";
import { DataPlaneBroughtBackAnswer, NotReadyAnswer, ReadyAnswer } from "./answers.js";

function presentDarkWorker(w: DarkWorker) {
  return {
    worker: w.worker,
    state: w.state,
    reason: w.reason,
    exit_code: w.exitCode,
    since: w.since.toISOString(),
    deaths: w.deaths,
    next_attempt: w.nextAttempt?.toISOString() ?? null,
    nodes: w.nodes.map((n) => ({ node_id: n.nodeId, project_id: n.projectId, name: n.name, frames_per_second: n.framesPerSecond ?? null })),
  };
}

function presentUnwritten(u: UnwrittenProject) {
  return { project_id: u.projectId, file: u.file ?? null, code: u.code, since: u.since.toISOString(), failed_writes: u.failedWrites };
}

function presentReadiness(r: Readiness) {
  return { ready: r.ready, unwritten_projects: r.unwrittenProjects.map(presentUnwritten), dark_workers: r.darkWorkers.map(presentDarkWorker) };
}

/** What a client that reads only GNS3's error body learns of why the server is not ready. */
function notReadyMessage(r: Readiness): string {
  const said: string[] = [];
  if (r.unwrittenProjects.length > 0) {
    const codes = [...new Set(r.unwrittenProjects.map((u) => u.code))].join(", ");
    said.push(`${r.unwrittenProjects.length} project file(s) cannot be written (${codes}): their latest changes are in memory only, and retried`);
  }
  if (r.darkWorkers.length > 0) {
    const nodes = r.darkWorkers.reduce((n, w) => n + w.nodes.length, 0);
    const which = r.darkWorkers.map((w) => `worker ${w.worker} ${w.state.replace("_", " ")}: ${w.reason}`).join("; ");
    said.push(`${nodes} node(s) forward nothing: their data plane worker died (${which})`);
  }
  return said.join("; ");
}

/**
 * `GET /v2/netemu/ready`: 200 while the disk holds every acknowledged change and every node forwards;
 * 503 while a project's file cannot be written (ADR 0057), naming the projects, the error code and
 * since when, or while a data-plane worker's death leaves nodes dark (ADR 0073), naming the workers,
 * their nodes, why and since when. The 503 is a report, not a refusal (the request is answered in
 * full): a choice of two answers by the value (ADR 0080), the 503's body also a GNS3 error body
 * (message and status), for clients that only read those.
 *
 * `POST /v2/netemu/data-plane/restart`: the way back for a worker given up on (ADR 0073), answered once
 * its nodes are back or dark again.
 */
export const READINESS_ROUTES = {
  ready: route({
    name: "netemu.ready",
    method: "GET",
    path: "/v2/netemu/ready",
    refusals: [],
    run: async (uc) => E.right(uc.checkReadiness.execute()),
    answer: choice(
      {
        ready: json(200, ReadyAnswer, presentReadiness),
        notReady: json(503, NotReadyAnswer, (r: Readiness) => ({ message: notReadyMessage(r), status: 503, ...presentReadiness(r) })),
      },
      (r) => (r.ready ? "ready" : "notReady"),
    ),
  }),
  restart: route({
    name: "netemu.data_plane.restart",
    method: "POST",
    path: "/v2/netemu/data-plane/restart",
    refusals: [],
    run: async (uc) => E.right(await uc.bringBackDataPlane.execute()),
    answer: json(200, DataPlaneBroughtBackAnswer, (b: BroughtBack) => ({ restarted_workers: [...b.restartedWorkers], dark_workers: b.darkWorkers.map(presentDarkWorker) })),
  }),
};

export function registerReadinessRoute(api: ApiRouter, uc: UseCases): void {
  api.addRoute(READINESS_ROUTES.ready, uc);
  api.addRoute(READINESS_ROUTES.restart, uc);
}
