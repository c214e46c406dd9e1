import type { Context, Middleware } from "koa";
import type { V3Settings } from "../../../application/ports/server-settings.js";
import { gns3Json } from "../../shared/gns3-json.js";
import { noteAnswerMessage, noteLoginRefused } from "../answer-log.js";
import { type LoginGate, throttledMessage } from "../auth.js";

const V3_PREFIX = "/v3/";

export const isV3Path = (path: string): boolean => path.startsWith(V3_PREFIX);

const isV3ComputePath = (path: string): boolean => path === "/v3/compute" || path.startsWith("/v3/compute/");

/**
 * A /v3 path outside /v3/compute is GNS3 3.x's controller API (`/v3/projects`, `/v3/templates`,
 * `/v3/access/users/login` ...), which netemu does not serve: a 404 that says so and where to go,
 * before any credentials are asked for (a 401 there would say the path exists behind a login).
 */
export function v3ControllerPathMessage(path: string): string {
  return `${path} is GNS3 3.x's controller API, which netemu does not serve: netemu serves GNS3 3.x's compute API under /v3/compute (add netemu to a GNS3 3.x controller as a compute), and its own controller on the GNS3 2.2 API (/v2/projects ...)`;
}

export const V3_AUTH_OFF_MESSAGE =
  "This netemu checks no credentials and serves /v3/compute only when told so: start it with --auth --user gns3 --password SECRET (the controller's compute_username and compute_password), or with --v3-no-auth";

function refuse(ctx: Context, status: number, message: string): void {
  noteAnswerMessage(ctx, message);
  ctx.status = status;
  ctx.set("Content-Type", "application/json");
  ctx.body = gns3Json({ message });
}

/**
 * Credentials on /v3, as a 3.x compute checks them (ADR 0066): always, with the same user, password
 * and failed-login throttle as the v2 routes; a refusal is a JSON 401 without WWW-Authenticate.
 * With --auth off, /v3 answers only when --v3-no-auth says so: a 3.x controller expects a
 * compute that checks credentials, so serving it without them is the operator's explicit choice.
 */
export function v3ComputeAuth(gate: LoginGate, v3: V3Settings): Middleware {
  return async (ctx, next) => {
    if (!isV3Path(ctx.path)) return next();
    if (!isV3ComputePath(ctx.path)) return refuse(ctx, 404, v3ControllerPathMessage(ctx.path));
    if (!gate.settings.enabled) {
      if (v3.noAuth) return next();
      return refuse(ctx, 401, V3_AUTH_OFF_MESSAGE);
    }
    const authorization = ctx.get("Authorization") || undefined;
    const outcome = gate.check(ctx.req.socket.remoteAddress, authorization, "http");
    if (outcome.kind === "admitted") return next();
    noteLoginRefused(ctx, ctx.req.socket.remoteAddress ?? "unknown");
    if (outcome.kind === "throttled") {
      ctx.set("Retry-After", String(outcome.retryAfterSeconds));
      return refuse(ctx, 429, throttledMessage(outcome.retryAfterSeconds));
    }
    // 3.0.6's two wordings (api/routes/compute/dependencies/authentication.py).
    refuse(ctx, 401, authorization === undefined || !authorization.startsWith("Basic ") ? "Not authenticated" : "Invalid compute username or password");
  };
}
