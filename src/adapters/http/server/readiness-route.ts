import type { UseCases } from "../../../application/use-cases/index.js";
import type { DarkWorker } from "../../../application/ports/data-plane-health.js";
import type { ApiRouter } from "../api-router.js";
import { noteAnswerMessage } from "../answer-log.js";

const READINESS_PATH = "/v2/netemu/ready";
const BRING_BACK_PATH = "/v2/netemu/data-plane/restart";

function presentDarkWorker(w: DarkWorker): Record<string, unknown> {
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

/**
 * `GET /v2/netemu/ready`: 200 while the disk holds every acknowledged change and every node forwards;
 * 503 while a project's file cannot be written (ADR 0057), naming the projects, the error code and
 * since when, or while a data-plane worker's death leaves nodes dark (ADR 0073), naming the workers,
 * their nodes, why and since when. The 503 is also a GNS3 error body (message and status), for
 * clients that only read those.
 *
 * `POST /v2/netemu/data-plane/restart`: the way back for a worker given up on (ADR 0073), answered once
 * its nodes are back or dark again.
 */
export function registerReadinessRoute(api: ApiRouter, uc: UseCases): void {
  api.add("netemu.ready", "GET", READINESS_PATH, (x) => {
    const { ready, unwrittenProjects, darkWorkers } = uc.checkReadiness.execute();
    const unwritten_projects = unwrittenProjects.map((u) => ({
      project_id: u.projectId,
      file: u.file ?? null,
      code: u.code,
      since: u.since.toISOString(),
      failed_writes: u.failedWrites,
    }));
    const dark_workers = darkWorkers.map(presentDarkWorker);
    if (ready) x.json(200, { ready, unwritten_projects, dark_workers });
    else {
      const said: string[] = [];
      if (unwrittenProjects.length > 0) {
        const codes = [...new Set(unwrittenProjects.map((u) => u.code))].join(", ");
        said.push(`${unwrittenProjects.length} project file(s) cannot be written (${codes}): their latest changes are in memory only, and retried`);
      }
      if (darkWorkers.length > 0) {
        const nodes = darkWorkers.reduce((n, w) => n + w.nodes.length, 0);
        const which = darkWorkers.map((w) => `worker ${w.worker} ${w.state.replace("_", " ")}: ${w.reason}`).join("; ");
        said.push(`${nodes} node(s) forward nothing: their data plane worker died (${which})`);
      }
      const message = said.join("; ");
      noteAnswerMessage(x.ctx, message);
      x.json(503, { message, status: 503, ready, unwritten_projects, dark_workers });
    }
  });

  api.add("netemu.data_plane.restart", "POST", BRING_BACK_PATH, async (x) => {
    const { restartedWorkers, darkWorkers } = await uc.bringBackDataPlane.execute();
    x.json(200, { restarted_workers: restartedWorkers, dark_workers: darkWorkers.map(presentDarkWorker) });
  });
}
