import { STATUS_CODES } from "node:http";
import Koa from "koa";
import type { UseCases } from "../../application/use-cases/index.js";
import type { ServerSettings } from "../../application/ports/server-settings.js";
import type { Logger } from "../../application/ports/system.js";
import { ApiRouter } from "./api-router.js";
import { gns3Json } from "../shared/gns3-json.js";
import { createBodyParser } from "./request-body.js";
import { basicAuth, LoginGate } from "./auth.js";
import { LoginThrottle } from "./login-throttle.js";
import { registerServerRoutes } from "./server/routes.js";
import { registerComputeProjectRoutes } from "./compute/project-routes.js";
import { registerCloudRoutes } from "./compute/cloud-routes.js";
import { registerLinuxHostRoutes } from "./compute/linux-host-routes.js";
import { registerEthernetHubRoutes, registerEthernetSwitchRoutes, registerVpcsRoutes } from "./compute/node-routes.js";
import { registerComputeServerRoutes } from "./compute/server-routes.js";
import { registerControllerProjectRoutes } from "./controller/project-routes.js";
import { registerControllerNodeRoutes } from "./controller/node-routes.js";
import { registerControllerDrawingRoutes } from "./controller/drawing-routes.js";
import { registerControllerNotificationRoutes } from "./controller/project-notifications.js";
import { registerControllerLinkRoutes } from "./controller/link-routes.js";
import { registerCaptureRoutes } from "./compute/capture-routes.js";
import { registerLinkCaptureRoutes } from "./controller/capture-routes.js";
import { type HttpMetrics, registerMetricsRoute } from "./server/metrics-route.js";
import { answerMessageOf, loginRefusedFrom, noteAnswerMessage } from "./answer-log.js";
import { NotificationBacklogs } from "./notification-feed.js";
import { registerOpenApiRoute } from "./openapi/routes.js";
import { registerReadinessRoute } from "./server/readiness-route.js";
import { registerImpairmentRoutes } from "./server/impairment-routes.js";
import { registerTraceRoutes } from "./server/trace-routes.js";
import { registerLabRoutes } from "./page/lab-routes.js";
import { servePage } from "./page/page-files.js";
import { registerControllerTemplateRoutes } from "./controller/template-routes.js";
import { registerControllerComputeRoutes } from "./controller/compute-routes.js";
import { registerV3ComputeRoutes } from "./v3/register.js";
import { isV3Path, v3ComputeAuth } from "./v3/auth.js";
import { registerControllerSymbolRoutes } from "./controller/symbol-routes.js";
import { webUiRoutes } from "./web-ui.js";
import { V3_DEFAULTS } from "../../application/ports/server-settings.js";

export interface HttpAppOptions {
  readonly useCases: UseCases;
  readonly settings: ServerSettings;
  readonly logger: Logger;
  readonly packageVersion: string;
  /** Largest accepted request body, in bytes. */
  readonly bodyLimitBytes?: number;
  /** Counts requests and serves `GET /metrics`; without it there is no such route. */
  readonly metrics?: HttpMetrics;
  /** The credential check and failed-login throttle, shared with the websocket; one of its own when absent. */
  readonly loginGate?: LoginGate;
  /** The bound on slow notification clients, shared with the compute websocket (ADR 0059); one of the app's own when left out. */
  readonly notificationBacklogs?: NotificationBacklogs;
  /** Where netemu's page bundle is (ADR 0094); the one the build wrote beside the code when left out. */
  readonly pageDirectory?: string;
}

function sendJson(ctx: Koa.Context, status: number, body: { message: string; status: number }): void {
  noteAnswerMessage(ctx, body.message);
  ctx.status = status;
  ctx.set("Content-Type", "application/json");
  // /v3 answers as a 3.x compute's exception handler does: the message alone (ADR 0066).
  ctx.body = gns3Json(isV3Path(ctx.path) ? { message: body.message } : body);
}

/** The name of the handler that answered, when one did (an unrouted path has none). */
function routeOf(ctx: Koa.Context): string | undefined {
  return (ctx.state as { route?: string }).route;
}

const READS = new Set(["GET", "HEAD", "OPTIONS"]);

/**
 * The request line, at a level by what it tells the operator: a refusal at warn with its reason, a
 * change at info, a successful read at debug (a polling client would otherwise fill the log).
 */
function logRequest(logger: Logger, ctx: Koa.Context, ms: number): void {
  const fields: Record<string, unknown> = { method: ctx.method, url: ctx.originalUrl, route: routeOf(ctx), status: ctx.status, ms };
  const refusedFrom = loginRefusedFrom(ctx);
  if (refusedFrom !== undefined) {
    fields["message"] = answerMessageOf(ctx) ?? STATUS_CODES[ctx.status] ?? "";
    fields["address"] = refusedFrom;
    logger.debug("request", fields);
  } else if (ctx.status >= 400) {
    fields["message"] = answerMessageOf(ctx) ?? STATUS_CODES[ctx.status] ?? "";
    (ctx.status >= 500 ? logger.error : logger.warn).call(logger, "request", fields);
  } else if (READS.has(ctx.method)) logger.debug("request", fields);
  else logger.info("request", fields);
}

/** Every route netemu serves, registered on one router (the OpenAPI document lists them from it). */
export function createApiRouter(options: Omit<HttpAppOptions, "logger">): ApiRouter {
  const { useCases, settings } = options;
  const api = new ApiRouter(createBodyParser(options.bodyLimitBytes ?? 1024 * 1024));
  registerServerRoutes(api, useCases);
  registerComputeServerRoutes(api, useCases);
  const backlogs = options.notificationBacklogs ?? new NotificationBacklogs();
  registerComputeProjectRoutes(api, useCases, backlogs);
  registerEthernetSwitchRoutes(api, useCases);
  registerEthernetHubRoutes(api, useCases);
  registerVpcsRoutes(api, useCases);
  registerCloudRoutes(api, useCases);
  registerLinuxHostRoutes(api, useCases);
  registerControllerProjectRoutes(api, useCases);
  registerControllerNodeRoutes(api, useCases, settings.host);
  registerControllerLinkRoutes(api, useCases);
  registerControllerDrawingRoutes(api, useCases);
  registerControllerNotificationRoutes(api, useCases, settings.host, backlogs);
  registerCaptureRoutes(api, useCases);
  registerLinkCaptureRoutes(api, useCases);
  registerControllerTemplateRoutes(api, useCases, settings.host);
  registerControllerComputeRoutes(api, useCases);
  registerControllerSymbolRoutes(api, useCases);
  if (options.metrics !== undefined) registerMetricsRoute(api, useCases, options.metrics);
  registerReadinessRoute(api, useCases);
  // GNS3 3.x controllers' compute API, on the same use cases (ADR 0066).
  registerV3ComputeRoutes(api, useCases);
  registerImpairmentRoutes(api, useCases);
  registerTraceRoutes(api, useCases);
  registerLabRoutes(api, useCases);
  registerOpenApiRoute(api, useCases, { version: options.packageVersion, gns3Version: settings.gns3Version, auth: settings.auth.enabled });
  return api;
}

/** The Koa application serving the GNS3 v2 API. */
export function createHttpApp(options: HttpAppOptions): Koa {
  const { settings, logger } = options;
  const app = new Koa();
  app.silent = true;
  const api = createApiRouter({ ...options, notificationBacklogs: options.notificationBacklogs ?? new NotificationBacklogs({}, logger) });

  // One line per request; defects become one logged 500, never a stack trace on the wire.
  const serverHeader = `netemu/${options.packageVersion} GNS3/${settings.gns3Version}`;
  app.use(async (ctx, next) => {
    const started = process.hrtime.bigint();
    ctx.set("Server", serverHeader);
    try {
      await next();
    } catch (err) {
      logger.error("request failed", { method: ctx.method, url: ctx.originalUrl, route: routeOf(ctx), err: err instanceof Error ? err.stack : String(err) });
      sendJson(ctx, 500, { message: "Internal server error: the failure was logged", status: 500 });
    }
    const ms = Number(process.hrtime.bigint() - started) / 1e6;
    options.metrics?.requestAnswered(routeOf(ctx), ctx.status, ms / 1000);
    logRequest(logger, ctx, Math.round(ms * 1000) / 1000);
  });
  const gate = options.loginGate ?? new LoginGate(settings.auth, new LoginThrottle(logger, () => performance.now()));
  // /v3 checks credentials its own way, always (ADR 0066); the rest as GNS3 2.2 does, when --auth is on.
  app.use(v3ComputeAuth(gate, settings.v3 ?? V3_DEFAULTS));
  if (settings.auth.enabled) {
    const v2Auth = basicAuth(gate);
    app.use(async (ctx, next) => (isV3Path(ctx.path) ? next() : v2Auth(ctx, next)));
  }
  // GNS3's web UI, from the directory the user gave (ADR 0092): behind --auth, as GNS3 2.2 serves it.
  app.use(webUiRoutes(settings.webUiDir));
  // Unrouted paths and wrong methods still answer JSON (405 keeps the router's Allow header).
  app.use(async (ctx, next) => {
    await next();
    if (routeOf(ctx) !== undefined) return;
    if (ctx.status === 405 && !api.isUnroutedPath(ctx.path)) {
      sendJson(ctx, 405, { message: "405: Method Not Allowed", status: 405 });
    } else if (ctx.status === 404 || ctx.status === 405) {
      ctx.remove("Allow");
      sendJson(ctx, 404, { message: "404: Not Found", status: 404 });
    }
  });
  // netemu's own page, behind the same credential check as the API (ADR 0094).
  app.use(servePage(options.pageDirectory));
  app.use(api.router.routes());
  app.use(api.router.allowedMethods({ throw: false }));
  return app;
}
