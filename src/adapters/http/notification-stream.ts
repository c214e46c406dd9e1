import * as E from "fp-ts/lib/Either.js";
import type { NetemuError } from "../../application/errors.js";
import type { Exchange } from "./exchange.js";
import type { FeedClient, NotificationBacklogs, NotificationFeed } from "./notification-feed.js";

const NEWLINE = Buffer.from("\n");

/**
 * GNS3's notification stream over plain HTTP: one JSON message per line for as long as the client
 * reads (the compute's per-project stream, the controller's project and controller streams). Written
 * on the response itself (Koa steps aside), so that what waits for the reader is in one place, which
 * the backlog bound counts: the response's and its socket's buffers.
 */
export async function serveNotificationStream(x: Exchange, backlogs: NotificationBacklogs, open: (send: (message: Buffer) => boolean) => Promise<E.Either<NetemuError, NotificationFeed>>): Promise<void> {
  const res = x.ctx.res;
  // What comes before the answer starts (the first ping, while the feed opens) waits here.
  let early: Buffer[] | undefined = [];
  const client: FeedClient = {
    kind: "stream",
    unsent: () => res.writableLength + (early === undefined ? 0 : early.reduce((n, b) => n + b.length + NEWLINE.length, 0)),
    drop: (_reason, graceMs) => {
      // The answer ends properly (its last chunk) behind what was queued; a reader that never
      // takes it is cut after the grace.
      res.end();
      setTimeout(() => res.destroy(), graceMs).unref();
    },
  };
  const forget = backlogs.add(client);
  const feed = await open((message) => {
    if (res.destroyed || res.writableEnded) return false;
    if (!backlogs.admit(client, message.length + NEWLINE.length)) return false;
    if (early !== undefined) early.push(message);
    else {
      res.write(message);
      res.write(NEWLINE);
    }
    return true;
  });
  if (E.isLeft(feed)) {
    forget();
    return x.fail(feed.left);
  }
  x.ctx.status = 200;
  x.ctx.set("Content-Type", "application/json");
  x.ctx.respond = false;
  res.writeHead(200);
  if (x.ctx.method === "HEAD") {
    // The headers are the whole answer: nothing to follow.
    forget();
    feed.right.close();
    return void res.end();
  }
  const queued = early;
  early = undefined;
  for (const message of queued) {
    res.write(message);
    res.write(NEWLINE);
  }
  res.once("close", () => {
    forget();
    feed.right.close();
  });
  // Already gone while the feed opened.
  if (res.destroyed) {
    forget();
    feed.right.close();
  }
}
