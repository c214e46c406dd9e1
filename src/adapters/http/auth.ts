import { timingSafeEqual, createHash } from "node:crypto";
import type { Middleware } from "koa";
import { gns3Json } from "../shared/gns3-json.js";
import { noteAnswerMessage, noteLoginRefused } from "./answer-log.js";
import type { LoginThrottle } from "./login-throttle.js";

export interface AuthSettings {
  readonly enabled: boolean;
  readonly user: string;
  readonly password: string;
}

const digest = (s: string): Buffer => createHash("sha256").update(s, "utf8").digest();

/** Whether an `Authorization` header value carries the configured credentials (always, when auth is off). */
function credentialCheck(settings: AuthSettings): (authorization: string | undefined) => boolean {
  if (!settings.enabled) return () => true;
  const expected = digest(`Basic ${Buffer.from(`${settings.user}:${settings.password}`, "utf8").toString("base64")}`);
  const usable = settings.user !== "";
  return (authorization) => usable && timingSafeEqual(digest(authorization ?? ""), expected);
}

/** An IPv4 client of a dual-stack socket arrives as ::ffff:a.b.c.d: logged and keyed as a.b.c.d. */
function clientAddress(socketAddress: string | undefined): string {
  if (socketAddress === undefined) return "unknown";
  return socketAddress.startsWith("::ffff:") ? socketAddress.slice(7) : socketAddress;
}

/** Where a login was tried: a request, or the upgrade of the compute notification websocket. */
type LoginDoor = "http" | "websocket";

/** The Prometheus counters of logins (ADR 0061). */
interface LoginCounters {
  loginFailed(door: LoginDoor): void;
  loginThrottled(door: LoginDoor): void;
}

type LoginOutcome =
  | { readonly kind: "admitted" }
  | { readonly kind: "refused" }
  | { readonly kind: "throttled"; readonly retryAfterSeconds: number };

/**
 * The credential check behind every door, with the failed-login throttle (ADR 0061): a locked-out
 * address is answered without its credentials being looked at, so that answer says nothing of
 * whether the password was right; otherwise the check compares fixed-size digests, so the time
 * taken does not depend on how much of the secret was guessed.
 */
export class LoginGate {
  private readonly authorized: (authorization: string | undefined) => boolean;

  constructor(
    readonly settings: AuthSettings,
    private readonly throttle?: LoginThrottle,
    private readonly counters?: LoginCounters,
  ) {
    this.authorized = credentialCheck(settings);
  }

  /** `address` is the socket's remote address (a proxy's header is the client's to write). */
  check(address: string | undefined, authorization: string | undefined, door: LoginDoor): LoginOutcome {
    if (!this.settings.enabled) return { kind: "admitted" };
    const who = clientAddress(address);
    const admission = this.throttle?.admit(who);
    if (admission?.throttled === true) {
      this.counters?.loginThrottled(door);
      return { kind: "throttled", retryAfterSeconds: admission.retryAfterSeconds };
    }
    if (this.authorized(authorization)) {
      this.throttle?.succeeded(who);
      return { kind: "admitted" };
    }
    this.counters?.loginFailed(door);
    this.throttle?.failed(who);
    return { kind: "refused" };
  }
}

export const throttledMessage = (retryAfterSeconds: number): string =>
  `Too many failed logins from this address: retry after ${retryAfterSeconds} s`;

/**
 * GNS3's HTTP basic auth: when enabled every route needs `Authorization` equal to
 * `Basic base64(user:password)`; a failure is 401 with an empty body. An address locked out for its
 * failed logins gets 429 with `Retry-After` (not GNS3's: it has no throttle).
 */
export function basicAuth(gate: LoginGate): Middleware {
  if (!gate.settings.enabled) return async (_ctx, next) => next();
  return async (ctx, next) => {
    const outcome = gate.check(ctx.req.socket.remoteAddress, ctx.get("Authorization") || undefined, "http");
    if (outcome.kind === "admitted") return next();
    // The throttle logs these a few lines per address; a line per request would be a flood.
    noteLoginRefused(ctx, clientAddress(ctx.req.socket.remoteAddress));
    if (outcome.kind === "throttled") {
      const message = throttledMessage(outcome.retryAfterSeconds);
      noteAnswerMessage(ctx, message);
      ctx.status = 429;
      ctx.set("Retry-After", String(outcome.retryAfterSeconds));
      ctx.set("Content-Type", "application/json");
      ctx.body = gns3Json({ message, status: 429 });
      return;
    }
    ctx.status = 401;
    ctx.set("WWW-Authenticate", 'Basic realm="GNS3 server"');
    ctx.body = "";
    ctx.remove("Content-Type");
  };
}
