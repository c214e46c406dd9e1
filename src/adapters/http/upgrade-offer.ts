import { ServerResponse, type IncomingMessage } from "node:http";
import type { Socket } from "node:net";
import type { Duplex } from "node:stream";
import { refuse } from "./notification-socket.js";

/**
 * A request that offers another protocol than websocket (`Upgrade: h2c` from `curl --http2`): the
 * server may ignore the offer (RFC 9110 §7.8), so it is answered by the app as plain HTTP/1.1 on its
 * socket, which is then closed. Node hands every request with an Upgrade header to the upgrade
 * event once anyone listens to it, so without this the API would refuse such clients.
 */
export function answerIgnoringUpgrade(app: (req: IncomingMessage, res: ServerResponse) => void, req: IncomingMessage, socket: Duplex): void {
  // Node stops parsing at an upgrade: a body after the headers cannot be read as a request body.
  const hasBody = req.headers["transfer-encoding"] !== undefined || (req.headers["content-length"] ?? "0") !== "0";
  if (hasBody) {
    return refuse(socket, 400, "Bad Request", { message: `Upgrade to ${req.headers.upgrade} is not supported: send the request without an Upgrade header`, status: 400 });
  }
  socket.on("error", () => socket.destroy());
  const res = new ServerResponse(req);
  res.shouldKeepAlive = false;
  res.assignSocket(socket as Socket);
  res.once("finish", () => {
    res.detachSocket(socket as Socket);
    socket.once("finish", () => socket.destroy());
    socket.end();
  });
  // The parser is gone, so the request never ends by itself: it has no body, end it now.
  req.push(null);
  app(req, res);
}
