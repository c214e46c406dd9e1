import type { Context, Middleware } from "koa";
import bodyParser from "koa-bodyparser";
import type { Exchange } from "./exchange.js";
import { JSON_DEPTH_LIMIT, jsonDepthExceeds } from "../shared/gns3-json.js";

interface BodyState {
  gns3Body?: unknown;
  bodyError?: { status: number; message: string; raw?: string };
}

/**
 * GNS3 reads every request body as JSON whatever its Content-Type (curl -d sends a form type),
 * takes an empty body as {}, and accepts any JSON value (the schema then says what is wrong).
 */
export function createBodyParser(limitBytes: number): Middleware {
  return bodyParser({
    enableTypes: ["json"],
    detectJSON: () => true,
    strict: false,
    jsonLimit: `${limitBytes}b`,
    onerror: (err: Error & { status?: number; body?: string; type?: string }, ctx: Context) => {
      const state = ctx.state as BodyState;
      if (err.status === 413 || err.type === "entity.too.large") {
        state.bodyError = { status: 413, message: `Request body is larger than the limit of ${limitBytes} bytes` };
      } else if (typeof err.body === "string") {
        state.bodyError = { status: 400, message: `Invalid JSON ${err.message}`, raw: err.body };
      } else {
        state.bodyError = { status: 400, message: `Invalid request body: ${err.message}` };
      }
    },
  }) as unknown as Middleware;
}

/** Query parameters are merged into an object body as strings, overriding its keys (GNS3 does so). */
function mergeQuery(body: unknown, query: Record<string, string | string[] | undefined>): unknown {
  const keys = Object.keys(query);
  if (keys.length === 0) return body;
  if (typeof body !== "object" || body === null || Array.isArray(body)) return body;
  const merged: Record<string, unknown> = { ...(body as Record<string, unknown>) };
  for (const key of keys) {
    const value = query[key];
    merged[key] = Array.isArray(value) ? value[value.length - 1] : value;
  }
  return merged;
}

/** Parses the body into ctx.state; answers the 400/413 itself and says false when it did. */
export async function readBody(ctx: Context, parser: Middleware, x: Exchange): Promise<boolean> {
  // A request without Content-Length or Transfer-Encoding has no body: skip the parser's stream read.
  const headers = ctx.req.headers;
  const hasBody = headers["transfer-encoding"] !== undefined || (headers["content-length"] !== undefined && headers["content-length"] !== "0");
  if (!hasBody) {
    (ctx.state as BodyState).gns3Body = mergeQuery({}, ctx.query as Record<string, string | string[] | undefined>);
    return true;
  }
  await parser(ctx as never, async () => undefined);
  const state = ctx.state as BodyState;
  if (state.bodyError !== undefined) {
    const { status, message, raw } = state.bodyError;
    state.gns3Body = raw === undefined ? {} : { malformed_json: raw };
    // A JSON parser's message quotes the body, which may carry a password: the log gets the status only.
    x.refuseBody({ status, message }, raw === undefined ? message : "Invalid JSON (the body is left out of the log)");
    return false;
  }
  const raw = (ctx.request as unknown as { body?: unknown }).body;
  if (jsonDepthExceeds(raw, JSON_DEPTH_LIMIT)) {
    state.gns3Body = {};
    x.refuseBody({ status: 400, message: `Invalid JSON: nested deeper than ${JSON_DEPTH_LIMIT} levels` });
    return false;
  }
  state.gns3Body = mergeQuery(raw === "" || raw === undefined ? {} : raw, ctx.query as Record<string, string | string[] | undefined>);
  return true;
}
