import { connect, type Socket } from "node:net";
import * as E from "fp-ts/lib/Either.js";
import { WebSocket } from "ws";
import type { UseCases } from "../../application/use-cases/index.js";
import type { NetemuError } from "../../application/errors.js";
import type { NodeConsole } from "../../application/use-cases/compute/open-node-console.js";
import { COMPUTE_NODE_TYPES, type ComputeNodeType, isHostKind } from "../../domain/switching/compute-node.js";

/** GNS3's compute path of a node's web console; only host kinds have one (a switch's path is not found, as on GNS3). */
const COMPUTE_CONSOLE_PATTERN = /^\/v2\/compute\/projects\/([^/]+)\/([^/]+)\/nodes\/([^/]+)\/console\/ws$/;
/** GNS3's controller path, which relays to the compute's. */
const CONTROLLER_CONSOLE_PATTERN = /^\/v2\/projects\/([^/]+)\/nodes\/([^/]+)\/console\/ws$/;

/** What a console websocket path reaches: the node's telnet console, or why not. */
export interface ConsoleSource {
  readonly open: () => Promise<E.Either<NetemuError, NodeConsole>>;
}

/** The console a websocket path names, or undefined when the path is not a console's. */
export function consoleFor(uc: UseCases, path: string): ConsoleSource | undefined {
  const compute = COMPUTE_CONSOLE_PATTERN.exec(path);
  if (compute !== null) {
    const [projectId, nodeType, nodeId] = [compute[1], compute[2], compute[3]].map((p) => decodeURIComponent(p ?? ""));
    if (!(COMPUTE_NODE_TYPES as readonly string[]).includes(nodeType!) || !isHostKind(nodeType as ComputeNodeType)) return undefined;
    return { open: () => uc.openNodeConsole.execute({ projectId: projectId!, nodeId: nodeId!, nodeType: nodeType as ComputeNodeType }) };
  }
  const controller = CONTROLLER_CONSOLE_PATTERN.exec(path);
  if (controller === null) return undefined;
  const [projectId, nodeId] = [controller[1], controller[2]].map((p) => decodeURIComponent(p ?? ""));
  return { open: () => uc.openControllerNodeConsole.execute({ projectId: projectId!, nodeId: nodeId! }) };
}

export interface ConsoleRelayLimits {
  /** Console output waiting for a browser beyond this pauses reading the telnet socket (the node blocks on its console, as on a real line). */
  readonly pauseAboveBytes: number;
  /** A browser that takes nothing for this long while reading is paused is dropped, and the node's console socket freed. */
  readonly stalledMs: number;
}

export const CONSOLE_RELAY_LIMITS: ConsoleRelayLimits = { pauseAboveBytes: 256 * 1024, stalledMs: 30_000 };

/** Opens the node's telnet console; resolves with the socket or the reason it could not be reached. */
export function connectConsole(host: string, port: number): Promise<E.Either<string, Socket>> {
  return new Promise((resolve) => {
    const socket = connect({ host, port });
    socket.once("connect", () => {
      socket.removeAllListeners("error");
      resolve(E.right(socket));
    });
    socket.once("error", (e) => {
      socket.destroy();
      resolve(E.left(e.message));
    });
  });
}

/**
 * Relays bytes both ways as GNS3 does (base_node.start_websocket_console): the console's output as
 * binary frames, the browser's text or binary frames written as bytes. Either side closing closes the other.
 */
export function relayConsole(ws: WebSocket, telnet: Socket, limits: ConsoleRelayLimits = CONSOLE_RELAY_LIMITS): void {
  let stall: ReturnType<typeof setTimeout> | undefined;
  const end = (): void => {
    if (stall !== undefined) clearTimeout(stall);
    telnet.destroy();
    if (ws.readyState === WebSocket.OPEN) ws.close(1000);
    setTimeout(() => ws.terminate(), 2000).unref();
  };
  const resumeWhenDrained = (): void => {
    if (!telnet.isPaused() || ws.bufferedAmount > limits.pauseAboveBytes / 2) return;
    if (stall !== undefined) clearTimeout(stall);
    stall = undefined;
    telnet.resume();
  };
  telnet.on("data", (chunk: Buffer) => {
    if (ws.readyState !== WebSocket.OPEN) return;
    // The callback runs once the frame left for the kernel: the browser is taking what it is sent.
    ws.send(chunk, { binary: true }, resumeWhenDrained);
    if (ws.bufferedAmount > limits.pauseAboveBytes && !telnet.isPaused()) {
      telnet.pause();
      // 1013 (try again later) as the notification sockets drop a client that does not read.
      stall = setTimeout(() => {
        ws.close(1013, "console client too slow");
        end();
      }, limits.stalledMs);
      stall.unref();
    }
  });
  telnet.on("error", end);
  telnet.on("close", end);
  ws.on("message", (data: Buffer | ArrayBuffer | Buffer[]) => {
    const bytes = Array.isArray(data) ? Buffer.concat(data) : Buffer.from(data as ArrayBuffer);
    // A browser typing faster than the node reads waits: ws stops reading its socket meanwhile.
    if (!telnet.write(bytes)) {
      ws.pause();
      telnet.once("drain", () => ws.resume());
    }
  });
  ws.on("close", end);
  ws.on("error", end);
}
