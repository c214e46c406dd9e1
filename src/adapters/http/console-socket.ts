import { connect, type Socket } from "node:net";
import * as E from "fp-ts/lib/Either.js";
import { WebSocket } from "ws";
import type { UseCases } from "../../application/use-cases/index.js";
import type { NodeConsole } from "../../application/use-cases/compute/open-node-console.js";
import { type ComputeNodeType, KINDS_WITH_A_CONSOLE } from "../../domain/switching/compute-node.js";
import { TelnetLine } from "../shared/telnet.js";
import { CONSOLE_RELAY_LIMITS, type ConsoleRelayLimits, type ConsoleSource } from "./console-relay-options.js";

/** GNS3's compute path of a node's web console: 2.2's, and 3.x's (`/v3/compute/...`, ADR 0099). */
const COMPUTE_CONSOLE_PATTERN = /^\/(v2|v3)\/compute\/projects\/([^/]+)\/([^/]+)\/nodes\/([^/]+)\/console\/ws$/;
/** GNS3's controller path, which relays to the compute's. */
const CONTROLLER_CONSOLE_PATTERN = /^\/v2\/projects\/([^/]+)\/nodes\/([^/]+)\/console\/ws$/;


/**
 * The console a websocket path names, or undefined when the path is not a console's. /v3/compute's path
 * reaches the same use case and relay as /v2/compute's; only its handshake differs (`dialect`).
 */
export function consoleFor(uc: UseCases, path: string): ConsoleSource | undefined {
  const compute = COMPUTE_CONSOLE_PATTERN.exec(path);
  if (compute !== null) {
    const [projectId, nodeType, nodeId] = [compute[2], compute[3], compute[4]].map((p) => decodeURIComponent(p ?? ""));
    // Only a kind with a telnet console has the route, as on GNS3 (its switch, hub and cloud have none: 404).
    if (!(KINDS_WITH_A_CONSOLE as readonly string[]).includes(nodeType!)) return undefined;
    return {
      dialect: compute[1] === "v3" ? "v3" : "v2",
      open: () => uc.openNodeConsole.execute({ projectId: projectId!, nodeId: nodeId!, nodeType: nodeType as ComputeNodeType }),
    };
  }
  const controller = CONTROLLER_CONSOLE_PATTERN.exec(path);
  if (controller === null) return undefined;
  const [projectId, nodeId] = [controller[1], controller[2]].map((p) => decodeURIComponent(p ?? ""));
  return { dialect: "v2", open: () => uc.openControllerNodeConsole.execute({ projectId: projectId!, nodeId: nodeId! }) };
}


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
 * binary frames, the browser's text or binary frames written as bytes, telnet spoken here (`TelnetLine`).
 * Either side closing closes the other.
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
  // A browser's terminal is no telnet client: the node's option requests are answered here and telnet
  // commands never reach the page (a VPCS waits for these answers before printing its banner).
  const line = new TelnetLine();
  telnet.on("data", (received: Buffer) => {
    if (ws.readyState !== WebSocket.OPEN) return;
    const { text: chunk, answers } = line.receive(received);
    if (answers.length > 0) telnet.write(answers);
    if (chunk.length === 0) return;
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
    if (!telnet.write(TelnetLine.send(bytes))) {
      ws.pause();
      telnet.once("drain", () => ws.resume());
    }
  });
  ws.on("close", end);
  ws.on("error", end);
}
