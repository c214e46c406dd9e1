import { type IncomingMessage, STATUS_CODES } from "node:http";
import type { Duplex } from "node:stream";
import * as E from "fp-ts/lib/Either.js";
import { WebSocketServer, WebSocket } from "ws";
import type { UseCases } from "../../application/use-cases/index.js";
import type { Logger } from "../../application/ports/system.js";
import { type AuthSettings, LoginGate, throttledMessage } from "./auth.js";
import { gns3Json } from "../shared/gns3-json.js";
import { DEFAULT_BACKLOG_LIMITS, type FeedClient, NotificationBacklogs, NotificationFeed } from "./notification-feed.js";
import { V3_DEFAULTS, type V3Settings } from "../../application/ports/server-settings.js";
import { V3_AUTH_OFF_MESSAGE } from "./v3/auth.js";
import { V3Pings } from "./v3/pings.js";
import { toHttpError } from "./error-mapping.js";
import type { FeedSource } from "./controller/project-notifications.js";
import { connectConsole, relayConsole } from "./console-socket.js";
import { type ConsoleRelayLimits, type ConsoleSource, CONSOLE_RELAY_LIMITS } from "./console-relay-options.js";

/** A GNS3 3.x controller's path to the same feed (ADR 0066). */
const V3_NOTIFICATION_SOCKET_PATH = "/v3/compute/notifications/ws";

export const NOTIFICATION_SOCKET_PATH = "/v2/compute/notifications/ws";

export interface NotificationSocketOptions {
  /** Idle interval between pings (GNS3: 1 s). */
  readonly pingIdleMs?: number;
  /** A client that has not answered a ping control frame within this is dropped (a half-open TCP). */
  readonly heartbeatMs?: number;
  /** A client this far behind in reading is dropped rather than buffered (it reconnects); when `backlogs` is not given. */
  readonly maxBufferedBytes?: number;
  /**
   * The bound shared with the HTTP notification streams (ADR 0059); a server of its own, bounded by
   * `maxBufferedBytes` per client and the default total, when left out.
   */
  readonly backlogs?: NotificationBacklogs;
  /** How /v3's websocket checks credentials (ADR 0066); its defaults when left out. */
  readonly v3?: V3Settings;
  /** Idle interval between pings on /v3 (3.x: 5 s). */
  readonly v3PingIdleMs?: number;
  /**
   * The other notification websockets served here, by path (the controller's project and controller
   * sockets, ADR 0091): behind the same credentials, heartbeat and backlog bound as the compute's.
   */
  readonly feeds?: (path: string) => FeedSource | undefined;
  /**
   * Nodes' web consoles by path (GNS3's `.../console/ws`, ADR 0095): behind the same credentials and
   * heartbeat; the telnet console they relay to is on this host.
   */
  readonly consoles?: (path: string) => ConsoleSource | undefined;
  /** Where the nodes' telnet consoles listen (netemu's VPCSs listen on every address). */
  readonly consoleHost?: string;
  readonly consoleLimits?: ConsoleRelayLimits;
}

/**
 * GNS3's compute notification websocket (`GET /v2/compute/notifications/ws`), behind the same
 * basic auth as every route: the controller opens it right after the capabilities probe and reads
 * pings (CPU and memory), node.updated and log messages from it. ws answers the controller's ping
 * control frames (its heartbeat) itself. See ADR 0033.
 */
export class NotificationSocketServer {
  private readonly wss = new WebSocketServer({ noServer: true, maxPayload: 64 * 1024, clientTracking: true });
  private readonly gate: LoginGate;
  private readonly heartbeat: ReturnType<typeof setInterval>;
  private readonly alive = new WeakSet<WebSocket>();
  private readonly backlogs: NotificationBacklogs;
  private closing = false;
  private readonly v3Pings: V3Pings;

  constructor(
    private readonly uc: UseCases,
    auth: AuthSettings | LoginGate,
    private readonly logger: Logger,
    private readonly options: NotificationSocketOptions = {},
  ) {
    this.gate = auth instanceof LoginGate ? auth : new LoginGate(auth);
    this.backlogs = options.backlogs ?? new NotificationBacklogs({ perClientBytes: options.maxBufferedBytes ?? DEFAULT_BACKLOG_LIMITS.perClientBytes }, logger);
    this.heartbeat = setInterval(() => this.checkAlive(), options.heartbeatMs ?? 30_000);
    this.heartbeat.unref();
    this.v3Pings = new V3Pings(uc);
  }

  get clientCount(): number {
    return this.wss.clients.size;
  }

  /** For the HTTP server's `upgrade` event: serves the notification path, refuses anything else. */
  handleUpgrade(req: IncomingMessage, socket: Duplex, head: Buffer): void {
    socket.on("error", () => socket.destroy());
    const path = new URL(req.url ?? "/", "http://netemu").pathname;
    if (this.closing) return refuse(socket, 503, "Service Unavailable", { message: "netemu is shutting down", status: 503 });
    if (path === V3_NOTIFICATION_SOCKET_PATH) {
      return this.upgradeV3(req, socket, head, (ws) => void this.v3Pings.refresh().then(() => this.serve(ws, this.options.v3PingIdleMs ?? 5000, () => this.v3Pings.encode())));
    }
    const source = path === NOTIFICATION_SOCKET_PATH ? undefined : this.options.feeds?.(path);
    const nodeConsole = path === NOTIFICATION_SOCKET_PATH || source !== undefined ? undefined : this.options.consoles?.(path);
    if (path !== NOTIFICATION_SOCKET_PATH && source === undefined && nodeConsole === undefined) return refuse(socket, 404, "Not Found", { message: "404: Not Found", status: 404 });
    if (nodeConsole?.dialect === "v3") return this.upgradeV3(req, socket, head, (ws) => void this.relayV3Console(nodeConsole, ws));
    // Throttled as any request (ADR 0061): a locked-out address gets 429 before any upgrade.
    const login = this.gate.check(req.socket.remoteAddress, req.headers.authorization, "websocket");
    if (login.kind === "throttled") {
      return refuse(socket, 429, "Too Many Requests", { message: throttledMessage(login.retryAfterSeconds), status: 429 }, { "Retry-After": String(login.retryAfterSeconds) });
    }
    if (login.kind === "refused") return refuse(socket, 401, "Unauthorized", undefined);
    if (nodeConsole !== undefined) return this.upgradeConsole(nodeConsole, req, socket, head);
    if (source === undefined) return this.wss.handleUpgrade(req, socket, head, (ws) => void this.serve(ws));
    void source.available().then((available) => {
      if (E.isLeft(available)) {
        const { status, message } = toHttpError(available.left);
        return refuse(socket, status, STATUS_CODES[status] ?? "Error", { message, status });
      }
      if (this.closing || socket.destroyed) return socket.destroy();
      this.wss.handleUpgrade(req, socket, head, (ws) => void this.serve(ws, source.idleMs, undefined, source.watch));
    });
  }

  /**
   * A node's web console: refused before the upgrade when the node is unknown, stopped or has no
   * telnet console, or its console does not answer (GNS3 answers these as HTTP errors too); else the
   * websocket relays the telnet socket (ADR 0095).
   */
  private upgradeConsole(nodeConsole: ConsoleSource, req: IncomingMessage, socket: Duplex, head: Buffer): void {
    void (async () => {
      const opened = await nodeConsole.open();
      if (E.isLeft(opened)) {
        const { status, message } = toHttpError(opened.left);
        return refuse(socket, status, STATUS_CODES[status] ?? "Error", { message, status });
      }
      const telnet = await connectConsole(this.options.consoleHost ?? "127.0.0.1", opened.right.port);
      if (E.isLeft(telnet)) {
        const message = `Cannot connect to node ${opened.right.nodeName} telnet server: ${telnet.left}`;
        return refuse(socket, 409, "Conflict", { message, status: 409 });
      }
      if (this.closing || socket.destroyed) {
        telnet.right.destroy();
        return socket.destroy();
      }
      this.wss.handleUpgrade(req, socket, head, (ws) => {
        this.alive.add(ws);
        ws.on("pong", () => this.alive.add(ws));
        relayConsole(ws, telnet.right, this.options.consoleLimits ?? CONSOLE_RELAY_LIMITS);
        this.logger.info("console websocket client connected", { node: opened.right.nodeName });
      });
    })();
  }

  /**
   * 3.0.6's websocket checks the credentials after the upgrade (ws_compute_authentication): a refused
   * client is told why in a log.error message, then closed with 1008 (policy violation). A throttled
   * address is refused before the upgrade, as on /v2.
   */
  private upgradeV3(req: IncomingMessage, socket: Duplex, head: Buffer, serveAdmitted: (ws: WebSocket) => void): void {
    const v3 = this.options.v3 ?? V3_DEFAULTS;
    let refusal: string | undefined;
    if (!this.gate.settings.enabled) {
      if (!v3.noAuth) refusal = V3_AUTH_OFF_MESSAGE;
    } else {
      const login = this.gate.check(req.socket.remoteAddress, req.headers.authorization, "websocket");
      if (login.kind === "throttled") {
        return refuse(socket, 429, "Too Many Requests", { message: throttledMessage(login.retryAfterSeconds) }, { "Retry-After": String(login.retryAfterSeconds) });
      }
      if (login.kind === "refused") refusal = "Invalid compute username or password";
    }
    this.wss.handleUpgrade(req, socket, head, (ws) => {
      if (refusal === undefined) return serveAdmitted(ws);
      ws.on("error", () => ws.terminate());
      ws.send(gns3Json({ action: "log.error", event: { message: `Could not authenticate while connecting to compute WebSocket: ${refusal}` } }));
      ws.close(1008, "Unauthorized");
      setTimeout(() => ws.terminate(), 2000).unref();
    });
  }

  /**
   * /v3/compute's web console, once admitted: 3.0.6 looks the node up after the upgrade and refuses by
   * ending the websocket (ADR 0099). netemu closes it with 1011 and the refusal's message as the reason,
   * so that a client can tell why; else it relays as /v2 does.
   */
  private async relayV3Console(nodeConsole: ConsoleSource, ws: WebSocket): Promise<void> {
    ws.on("error", () => ws.terminate());
    const refuseOpen = (message: string): void => {
      this.logger.info("console websocket refused", { reason: message });
      ws.close(1011, closeReason(message));
      setTimeout(() => ws.terminate(), 2000).unref();
    };
    const opened = await nodeConsole.open();
    if (E.isLeft(opened)) return refuseOpen(toHttpError(opened.left).message);
    const telnet = await connectConsole(this.options.consoleHost ?? "127.0.0.1", opened.right.port);
    if (E.isLeft(telnet)) return refuseOpen(`Cannot connect to node ${opened.right.nodeName} telnet server: ${telnet.left}`);
    if (this.closing || ws.readyState !== WebSocket.OPEN) {
      telnet.right.destroy();
      return void ws.terminate();
    }
    this.alive.add(ws);
    ws.on("pong", () => this.alive.add(ws));
    relayConsole(ws, telnet.right, this.options.consoleLimits ?? CONSOLE_RELAY_LIMITS);
    this.logger.info("console websocket client connected", { node: opened.right.nodeName });
  }

  private async serve(ws: WebSocket, idleMs = this.options.pingIdleMs ?? 1000, ping?: () => Buffer, watch?: FeedSource["watch"]): Promise<void> {
    this.alive.add(ws);
    ws.on("pong", () => this.alive.add(ws));
    ws.on("error", () => ws.terminate());
    // Messages from the client mean nothing to a compute (GNS3 ignores them too).
    ws.on("message", () => undefined);
    const client: FeedClient = {
      kind: "websocket",
      // ws counts both its own queue and the socket's buffer.
      unsent: () => ws.bufferedAmount,
      drop: (reason, graceMs) => {
        // 1013 (try again later): GNS3's controller reconnects. A client that never reads never sees
        // the close frame behind its backlog, so the socket is cut after the grace.
        ws.close(1013, reason);
        setTimeout(() => ws.terminate(), graceMs).unref();
      },
    };
    const forget = this.backlogs.add(client);
    const feed = await NotificationFeed.open(this.uc, {
      idleMs,
      ...(ping === undefined ? {} : { ping }),
      ...(watch === undefined ? {} : { watch }),
      send: (message) => {
        if (ws.readyState !== WebSocket.OPEN) return false;
        // A text frame's header is at most 10 bytes from the server (no mask).
        if (!this.backlogs.admit(client, message.length + 10)) return false;
        ws.send(message, { binary: false });
        return true;
      },
    });
    if (E.isLeft(feed)) {
      forget();
      return void ws.close(1011);
    }
    this.logger.info("notification websocket client connected", { clients: this.wss.clients.size });
    ws.once("close", () => {
      forget();
      feed.right.close();
      this.logger.info("notification websocket client disconnected", { clients: this.wss.clients.size });
    });
    if (ws.readyState !== WebSocket.OPEN) {
      forget();
      feed.right.close();
    }
  }

  private checkAlive(): void {
    for (const ws of this.wss.clients) {
      if (!this.alive.has(ws)) {
        ws.terminate();
        continue;
      }
      this.alive.delete(ws);
      ws.ping();
    }
  }

  /** Closes every client with 1001 (going away) and waits for them, terminating the slow ones. */
  async close(): Promise<void> {
    this.closing = true;
    clearInterval(this.heartbeat);
    const clients = [...this.wss.clients];
    await Promise.all(
      clients.map(
        (ws) =>
          new Promise<void>((resolve) => {
            if (ws.readyState === WebSocket.CLOSED) return resolve();
            const timer = setTimeout(() => ws.terminate(), 1000);
            ws.once("close", () => {
              clearTimeout(timer);
              resolve();
            });
            ws.close(1001, "netemu is shutting down");
          }),
      ),
    );
    await new Promise<void>((resolve) => this.wss.close(() => resolve()));
  }
}

/** A close frame's reason holds at most 123 bytes (RFC 6455 5.5): a longer message is cut, on a character. */
export function closeReason(message: string): string {
  if (Buffer.byteLength(message) <= 123) return message;
  let cut = message.slice(0, 120);
  while (Buffer.byteLength(`${cut}...`) > 123) cut = cut.slice(0, -1);
  return `${cut}...`;
}

/** An HTTP answer written on the raw socket of a refused upgrade, JSON as every netemu error. */
export function refuse(socket: Duplex, status: number, reason: string, body: Record<string, unknown> | undefined, extraHeaders: Record<string, string> = {}): void {
  const text = body === undefined ? "" : gns3Json(body);
  const headers = [`HTTP/1.1 ${status} ${reason}`, "Connection: close", `Content-Length: ${Buffer.byteLength(text)}`];
  if (body !== undefined) headers.push("Content-Type: application/json");
  if (status === 401) headers.push('WWW-Authenticate: Basic realm="GNS3 server"');
  for (const [name, value] of Object.entries(extraHeaders)) headers.push(`${name}: ${value}`);
  // end() only half-closes: a client keeping its half open would hold the socket (and shutdown) for ever.
  socket.once("finish", () => socket.destroy());
  socket.end(`${headers.join("\r\n")}\r\n\r\n${text}`);
}
