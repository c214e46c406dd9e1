import { connect, type Socket } from "node:net";
import * as E from "fp-ts/lib/Either.js";
import { WebSocket } from "ws";
import type { UseCases } from "../../application/use-cases/index.js";
import type { NodeConsole } from "../../application/use-cases/compute/open-node-console.js";
import { type ComputeNodeType, KINDS_WITH_A_CONSOLE } from "../../domain/switching/compute-node.js";
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


const IAC = 255, SB = 250, SE = 240, WILL = 251, WONT = 252, DO = 253, DONT = 254, ECHO = 1, SGA = 3;

/**
 * The telnet side of a web console: a browser's terminal is no telnet client, so the node's option
 * requests are answered here (the node echoes and suppresses go-ahead, every other option refused, as
 * `netemu lab exec` answers them) and telnet commands never reach the page. A VPCS waits for these
 * answers before printing its banner.
 */
export class TelnetLine {
  private state: "data" | "iac" | "option" | "sb" | "sb-iac" = "data";
  private verb = 0;
  private readonly answered = new Set<number>();

  /** The bytes for the terminal out of what the node sent, and the answers to send back to the node. */
  receive(chunk: Buffer): { readonly text: Buffer; readonly answers: Buffer } {
    const text: number[] = [];
    const answers: number[] = [];
    for (const b of chunk) {
      switch (this.state) {
        case "data":
          if (b === IAC) this.state = "iac";
          else text.push(b);
          break;
        case "iac":
          if (b === IAC) {
            text.push(IAC);
            this.state = "data";
          } else if (b >= WILL && b <= DONT) {
            this.verb = b;
            this.state = "option";
          } else this.state = b === SB ? "sb" : "data";
          break;
        case "option": {
          const reply = this.verb === WILL ? (b === ECHO || b === SGA ? DO : DONT) : this.verb === DO ? WONT : undefined;
          const key = this.verb * 256 + b;
          if (reply !== undefined && !this.answered.has(key)) {
            this.answered.add(key);
            answers.push(IAC, reply, b);
          }
          this.state = "data";
          break;
        }
        case "sb":
          if (b === IAC) this.state = "sb-iac";
          break;
        case "sb-iac":
          this.state = b === SE ? "data" : "sb";
          break;
      }
    }
    return { text: Buffer.from(text), answers: Buffer.from(answers) };
  }

  /** What the terminal typed, as telnet data (a 255 byte doubled). */
  static send(typed: Buffer): Buffer {
    if (!typed.includes(IAC)) return typed;
    const out: number[] = [];
    for (const b of typed) out.push(...(b === IAC ? [IAC, IAC] : [b]));
    return Buffer.from(out);
  }
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
