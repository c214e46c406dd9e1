import { timingSafeEqual, createHash } from "node:crypto";
import type { Middleware } from "koa";

export interface AuthSettings {
  readonly enabled: boolean;
  readonly user: string;
  readonly password: string;
}

const digest = (s: string): Buffer => createHash("sha256").update(s, "utf8").digest();

/** Whether an `Authorization` header value carries the configured credentials (always, when auth is off). */
export function credentialCheck(settings: AuthSettings): (authorization: string | undefined) => boolean {
  if (!settings.enabled) return () => true;
  const expected = digest(`Basic ${Buffer.from(`${settings.user}:${settings.password}`, "utf8").toString("base64")}`);
  const usable = settings.user !== "";
  return (authorization) => usable && timingSafeEqual(digest(authorization ?? ""), expected);
}

/**
 * GNS3's HTTP basic auth: when enabled every route needs `Authorization` equal to
 * `Basic base64(user:password)`; a failure is 401 with an empty body. Compared through fixed-size
 * digests so the time taken does not depend on how much of the secret was guessed.
 */
export function basicAuth(settings: AuthSettings): Middleware {
  if (!settings.enabled) return async (_ctx, next) => next();
  const authorized = credentialCheck(settings);
  return async (ctx, next) => {
    if (authorized(ctx.get("Authorization"))) return next();
    ctx.status = 401;
    ctx.set("WWW-Authenticate", 'Basic realm="GNS3 server"');
    ctx.body = "";
    ctx.remove("Content-Type");
  };
}
