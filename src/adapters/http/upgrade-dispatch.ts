import type { IncomingMessage, ServerResponse } from "node:http";
import type { Duplex } from "node:stream";
import type Koa from "koa";
import { answerIgnoringUpgrade } from "./upgrade-offer.js";

type RequestHandler = (req: IncomingMessage, res: ServerResponse) => void;

/**
 * The Koa app as a request handler, composed when it first serves a request, so that the middleware
 * an embedder adds to `app` before listening counts.
 */
export function servedWhenFirstCalled(app: Pick<Koa, "callback">): RequestHandler {
  let composed: RequestHandler | undefined;
  return (req, res) => (composed ??= app.callback())(req, res);
}

/**
 * Where a request that asks to upgrade goes: a websocket to the notification sockets; any other
 * protocol offered (`h2c`) is ignored and the request answered by the app as plain HTTP/1.1.
 */
export function upgradeDispatch(
  websockets: { handleUpgrade(req: IncomingMessage, socket: Duplex, head: Buffer): void },
  serveHttp: RequestHandler,
): (req: IncomingMessage, socket: Duplex, head: Buffer) => void {
  return (req, socket, head) => {
    if ((req.headers.upgrade ?? "").toLowerCase() === "websocket") websockets.handleUpgrade(req, socket, head);
    else answerIgnoringUpgrade(serveHttp, req, socket);
  };
}
