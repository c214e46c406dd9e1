import * as E from "fp-ts/lib/Either.js";
import type { UseCases } from "../../application/use-cases/index.js";
import type { NetemuError } from "../../application/errors.js";
import { presentNotification, presentPing } from "./compute/presenters.js";

interface FeedOptions {
  /** Only this project's notifications (GET /projects/{p}/notifications); every one when left out. */
  readonly projectId?: string | undefined;
  /** A ping goes out at once, then whenever nothing else went out for this long. */
  readonly idleMs: number;
  /** Sends one message; false when the client is gone or too slow, which ends the feed. */
  readonly send: (message: Record<string, unknown>) => boolean;
}

/**
 * What GNS3's compute streams to a listener: a ping with the host's CPU and memory use at once and
 * on every idle interval, and each notification as it happens. Shared by the websocket and the
 * project's HTTP stream.
 */
export class NotificationFeed {
  private unsubscribe: () => void = () => undefined;
  private timer: ReturnType<typeof setInterval> | undefined;
  private lastSentMs = 0;
  private closed = false;

  private constructor(
    private readonly uc: UseCases,
    private readonly options: FeedOptions,
  ) {}

  static async open(uc: UseCases, options: FeedOptions): Promise<E.Either<NetemuError, NotificationFeed>> {
    const feed = new NotificationFeed(uc, options);
    const watching = await uc.watchNotifications.execute({
      projectId: options.projectId,
      listener: (n) => feed.deliver(presentNotification(n)),
    });
    if (E.isLeft(watching)) return watching;
    feed.unsubscribe = watching.right;
    feed.deliver(presentPing(uc.getHostLoad.execute()));
    // Checked twice per interval so that an idle client hears from us about once per interval.
    feed.timer = setInterval(() => feed.pingIfIdle(), Math.max(10, Math.floor(options.idleMs / 2)));
    feed.timer.unref();
    return E.right(feed);
  }

  private pingIfIdle(): void {
    if (Date.now() - this.lastSentMs >= this.options.idleMs * 0.9) this.deliver(presentPing(this.uc.getHostLoad.execute()));
  }

  private deliver(message: Record<string, unknown>): void {
    if (this.closed) return;
    this.lastSentMs = Date.now();
    if (!this.options.send(message)) this.close();
  }

  close(): void {
    if (this.closed) return;
    this.closed = true;
    this.unsubscribe();
    if (this.timer !== undefined) clearInterval(this.timer);
  }
}
