import * as E from "fp-ts/lib/Either.js";
import type { UseCases } from "../../application/use-cases/index.js";
import type { NetemuError } from "../../application/errors.js";
import type { ComputeNotification } from "../../application/ports/notifications.js";
import type { Logger } from "../../application/ports/system.js";
import { presentNotification, presentPing } from "./compute/presenters.js";

interface FeedOptions {
  /** Only this project's notifications (GET /projects/{p}/notifications); every one when left out. */
  readonly projectId?: string | undefined;
  /** A ping goes out at once, then whenever nothing else went out for this long. */
  readonly idleMs: number;
  /**
   * Sends one message, its JSON text (shared with every other client: never to be changed); false
   * when the client is gone or too slow, which ends the feed.
   */
  readonly send: (message: Buffer) => boolean;
  /** The ping's JSON text, when not GNS3 2.2's (a 3.x compute's carries the disk use too, ADR 0066). */
  readonly ping?: () => Buffer;
  /**
   * What the feed carries, when not the compute's notifications: starts handing each message's JSON
   * text to `deliver`, and answers how to stop (the controller's project events, ADR 0091).
   */
  readonly watch?: (deliver: (message: Buffer) => void) => Promise<E.Either<NetemuError, () => void>>;
}

/**
 * Each notification's JSON text, made once whoever listens: the hub hands the same object to every
 * listener, so 500 clients cost one JSON.stringify and one Buffer, which all their sockets share.
 */
const encodings = new WeakMap<ComputeNotification, Buffer>();

export function encodeNotification(n: ComputeNotification): Buffer {
  let text = encodings.get(n);
  if (text === undefined) {
    text = Buffer.from(JSON.stringify(presentNotification(n)));
    encodings.set(n, text);
  }
  return text;
}

/** How long a ping's figures are reused: the idle clients of one interval share one ping. */
const PING_REUSE_MS = 250;
/** The last ping of each netemu (keyed by its use cases: two in one process read their own host metrics). */
const lastPings = new WeakMap<UseCases, { readonly at: number; readonly text: Buffer }>();

function encodePing(uc: UseCases): Buffer {
  const now = Date.now();
  const last = lastPings.get(uc);
  if (last !== undefined && now - last.at < PING_REUSE_MS && now >= last.at) return last.text;
  const text = Buffer.from(JSON.stringify(presentPing(uc.getHostLoad.execute())));
  lastPings.set(uc, { at: now, text });
  return text;
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
    const deliver = (message: Buffer): void => feed.deliver(message);
    const watching =
      options.watch !== undefined
        ? await options.watch(deliver)
        : await uc.watchNotifications.execute({ projectId: options.projectId, listener: (n) => deliver(encodeNotification(n)) });
    if (E.isLeft(watching)) return watching;
    feed.unsubscribe = watching.right;
    feed.deliver(feed.encodePing());
    // Checked twice per interval so that an idle client hears from us about once per interval.
    feed.timer = setInterval(() => feed.pingIfIdle(), Math.max(10, Math.floor(options.idleMs / 2)));
    feed.timer.unref();
    return E.right(feed);
  }

  private pingIfIdle(): void {
    if (Date.now() - this.lastSentMs >= this.options.idleMs * 0.9) this.deliver(this.encodePing());
  }

  private encodePing(): Buffer {
    return this.options.ping === undefined ? encodePing(this.uc) : this.options.ping();
  }

  private deliver(message: Buffer): void {
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

/** The two doors of the feed: the compute's websocket and a project's HTTP stream. */
export type FeedClientKind = "websocket" | "stream";
/** Why a client was let go: it alone fell too far behind, or all clients together held too much. */
type FeedDropReason = "client_backlog" | "total_backlog";

/** A client of a feed as the backlog bound sees it. */
export interface FeedClient {
  readonly kind: FeedClientKind;
  /** Bytes handed to the client's connection and not yet sent, the socket's own buffer included. */
  unsent(): number;
  /** Closes the client properly (websocket close frame, end of the HTTP stream), then cuts it after `graceMs`. */
  drop(reason: string, graceMs: number): void;
}

export interface BacklogLimits {
  /** A client whose unsent bytes would pass this is dropped. */
  readonly perClientBytes: number;
  /** When the clients together have more unsent than this, the most behind are dropped until they do not. */
  readonly totalBytes: number;
  /** How long a dropped client may still read what was queued and the close, before its socket is cut. */
  readonly dropGraceMs: number;
}

export const DEFAULT_BACKLOG_LIMITS: BacklogLimits = { perClientBytes: 1024 * 1024, totalBytes: 64 * 1024 * 1024, dropGraceMs: 2000 };

const KINDS: readonly FeedClientKind[] = ["websocket", "stream"];
const REASONS: readonly FeedDropReason[] = ["client_backlog", "total_backlog"];

/**
 * The bound on what notification clients that do not read may cost (ADR 0059): each client's unsent
 * bytes, counted where they really wait (ws' bufferedAmount, the stream's and the socket's buffers),
 * and their sum over every client of both doors. A client that passes its own bound is dropped; when
 * the sum passes the total, the clients most behind go first. Shared by the websocket server and the
 * HTTP streams of one netemu.
 */
export class NotificationBacklogs {
  readonly limits: BacklogLimits;
  private readonly live = new Set<FeedClient>();
  /** Dropped clients until their connection is gone: they still hold what was queued for them. */
  private readonly dropping = new Set<FeedClient>();
  private readonly dropCounts = new Map<string, number>();
  /** The live clients' unsent bytes at the last total check, plus what was admitted since. */
  private estimate = 0;

  constructor(
    limits: Partial<BacklogLimits> = {},
    private readonly logger?: Logger,
  ) {
    this.limits = { ...DEFAULT_BACKLOG_LIMITS, ...limits };
  }

  /** Starts counting a client; the returned function forgets it (call it once its connection closed). */
  add(client: FeedClient): () => void {
    this.live.add(client);
    return () => {
      this.live.delete(client);
      this.dropping.delete(client);
    };
  }

  /**
   * Whether `bytes` more may be queued for the client. When not, the client has been dropped (or
   * was already), and nothing must be queued for it any more.
   */
  admit(client: FeedClient, bytes: number): boolean {
    if (!this.live.has(client)) return false;
    const unsent = client.unsent();
    if (unsent + bytes > this.limits.perClientBytes) {
      this.drop(client, "client_backlog", unsent);
      return false;
    }
    this.estimate += bytes;
    // The sum is only walked when it may have passed the bound, so a message costs O(1) per client
    // until the clients together come near it.
    if (this.estimate > this.limits.totalBytes) this.enforceTotal(client, bytes);
    return this.live.has(client);
  }

  /** Bytes queued for every client not yet gone, dropped ones included (the gauge). */
  queuedBytes(): number {
    let sum = 0;
    for (const c of this.live) sum += c.unsent();
    for (const c of this.dropping) sum += c.unsent();
    return sum;
  }

  /** Bytes queued for the clients still served (what the total bound applies to). */
  liveQueuedBytes(): number {
    let sum = 0;
    for (const c of this.live) sum += c.unsent();
    return sum;
  }

  clientCount(kind: FeedClientKind): number {
    let n = 0;
    for (const c of this.live) if (c.kind === kind) n += 1;
    return n;
  }

  /** Clients dropped for being slow since start, by door and reason (every pair, zeros included). */
  dropped(): readonly { readonly kind: FeedClientKind; readonly reason: FeedDropReason; readonly count: number }[] {
    return KINDS.flatMap((kind) => REASONS.map((reason) => ({ kind, reason, count: this.dropCounts.get(`${kind}/${reason}`) ?? 0 })));
  }

  droppedTotal(): number {
    let n = 0;
    for (const count of this.dropCounts.values()) n += count;
    return n;
  }

  /** `offering` is about to queue `bytes` more: they count as its own. */
  private enforceTotal(offering: FeedClient, bytes: number): void {
    const backlogs = [...this.live].map((client) => ({ client, unsent: client.unsent() + (client === offering ? bytes : 0) }));
    let sum = backlogs.reduce((s, b) => s + b.unsent, 0);
    // Walked when the estimate passed the bound, left at 7/8 of it at most: so the next walk is at
    // least an eighth of the bound of messages away, however long the clients hover near it.
    const target = Math.floor((this.limits.totalBytes * 7) / 8);
    if (sum > target) {
      backlogs.sort((a, b) => b.unsent - a.unsent);
      for (const b of backlogs) {
        if (sum <= target || b.unsent === 0) break;
        this.drop(b.client, "total_backlog", b.unsent);
        sum -= b.unsent;
      }
    }
    this.estimate = sum;
  }

  private drop(client: FeedClient, reason: FeedDropReason, unsent: number): void {
    this.live.delete(client);
    this.dropping.add(client);
    const key = `${client.kind}/${reason}`;
    this.dropCounts.set(key, (this.dropCounts.get(key) ?? 0) + 1);
    const limit = reason === "client_backlog" ? this.limits.perClientBytes : this.limits.totalBytes;
    // One line per client dropped (never per message): a client is dropped once.
    this.logger?.warn("notification client too slow: dropped", { kind: client.kind, reason, unsentBytes: unsent, limitBytes: limit });
    client.drop(reason === "client_backlog" ? `too slow: over ${limit} bytes unread` : "too slow: the server's notification backlog is full", this.limits.dropGraceMs);
  }
}
