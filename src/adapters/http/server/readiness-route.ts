import type { UseCases } from "../../../application/use-cases/index.js";
import type { ApiRouter } from "../api-router.js";
import { noteAnswerMessage } from "../answer-log.js";

const READINESS_PATH = "/v2/netemu/ready";

/**
 * `GET /v2/netemu/ready`: 200 while the disk holds every acknowledged change, 503 while a project's
 * file cannot be written (ADR 0057), naming the projects, the error code and since when. The 503 is
 * also a GNS3 error body (message and status), for clients that only read those.
 */
export function registerReadinessRoute(api: ApiRouter, uc: UseCases): void {
  api.add("netemu.ready", "GET", READINESS_PATH, (x) => {
    const { ready, unwrittenProjects } = uc.checkReadiness.execute();
    const unwritten_projects = unwrittenProjects.map((u) => ({
      project_id: u.projectId,
      file: u.file ?? null,
      code: u.code,
      since: u.since.toISOString(),
      failed_writes: u.failedWrites,
    }));
    if (ready) x.json(200, { ready, unwritten_projects });
    else {
      const codes = [...new Set(unwrittenProjects.map((u) => u.code))].join(", ");
      const message = `${unwrittenProjects.length} project file(s) cannot be written (${codes}): their latest changes are in memory only, and retried`;
      noteAnswerMessage(x.ctx, message);
      x.json(503, { message, status: 503, ready, unwritten_projects });
    }
  });
}
