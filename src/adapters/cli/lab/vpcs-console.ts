import * as E from "fp-ts/lib/Either.js";
import { connect, type Socket } from "node:net";
import { StringDecoder } from "node:string_decoder";

/** Why a line could not be typed into a console, or its answer not read. */
type ConsoleFailure =
  | { readonly _tag: "ConsoleUnreachable"; readonly host: string; readonly port: number; readonly reason: string }
  | { readonly _tag: "ConsoleTimedOut"; readonly host: string; readonly port: number; readonly waitingFor: string; readonly printed: string }
  | { readonly _tag: "ConsoleClosed"; readonly host: string; readonly port: number; readonly printed: string };

// Telnet (RFC 854/855) bytes.
const IAC = 255;
const DONT = 254;
const WILL = 251;
const SB = 250;
const SE = 240;

/** A VPCS prompt (`VPCS> `, `pc1> `) at the very end of the output. */
const PROMPT = /(?:^|\n)\S+> $/;

/**
 * Types one line into a VPCS telnet console and answers what the command printed, without its echo and
 * the prompt after it (what `netemu lab exec pc1 -- ping 10.0.0.2` prints). Telnet commands are read
 * and dropped; option requests are not answered (see Session.receive).
 */
export async function typeIntoConsole(host: string, port: number, line: string, timeoutMs: number): Promise<E.Either<ConsoleFailure, string>> {
  const deadline = Date.now() + timeoutMs;
  let socket: Socket | undefined;
  // A PC just started may not listen yet: connecting is tried again until the time is up.
  while (socket === undefined) {
    try {
      socket = await open(host, port, Math.max(100, Math.min(deadline - Date.now(), 10_000)));
    } catch (e) {
      if (Date.now() + 200 >= deadline) return E.left({ _tag: "ConsoleUnreachable", host, port, reason: (e as Error).message });
      await new Promise((r) => setTimeout(r, 200));
    }
  }
  const session = new Session(socket);
  try {
    // A first connection gets the banner, then the prompt once the startup script has run (its `ip` checks
    // for a duplicate address for seconds, and a key typed meanwhile interrupts it): while text comes, wait.
    // A later connection may get nothing until a line is sent.
    if (!(await session.waitFor(() => PROMPT.test(session.text), Math.min(1000, timeoutMs)))) {
      if (session.text.trim() === "") session.send("");
      if (!(await session.waitFor(() => PROMPT.test(session.text), deadline - Date.now()))) return E.left(session.failure(host, port, "a prompt"));
    }
    const from = session.text.length;
    session.send(line);
    let output = "";
    const answered = await session.waitFor(() => {
      const since = session.text.slice(from);
      // The prompt after the line: the first line break (the echo's end, or the answer's first line) comes before it.
      const prompt = since.includes("\n") ? PROMPT.exec(since) : null;
      if (prompt === null) return false;
      const answer = since.slice(0, prompt.index);
      // VPCS echoes what is typed; a console that does not is answered from its first line.
      const echoed = answer.indexOf(line);
      const start = echoed >= 0 && answer.slice(0, echoed).trim() === "" ? answer.indexOf("\n", echoed) + 1 : 0;
      output = answer.slice(start).replace(/^\n+|\n+$/g, "");
      return true;
    }, deadline - Date.now());
    return answered ? E.right(output) : E.left(session.failure(host, port, `the prompt after \`${line}\``));
  } finally {
    socket.destroy();
  }
}

function open(host: string, port: number, ms: number): Promise<Socket> {
  return new Promise((resolve, reject) => {
    const socket = connect({ host, port });
    const timer = setTimeout(() => {
      socket.destroy();
      reject(new Error(`no connection within ${ms} ms`));
    }, ms);
    socket.once("connect", () => {
      clearTimeout(timer);
      resolve(socket);
    });
    socket.once("error", (e) => {
      clearTimeout(timer);
      reject(e);
    });
  });
}

type TelnetState = "data" | "iac" | "option" | "sb" | "sb-iac";

class Session {
  text = "";
  closed = false;
  private state: TelnetState = "data";
  private readonly decoder = new StringDecoder("utf8");

  constructor(private readonly socket: Socket) {
    socket.on("data", (chunk: Buffer) => this.receive(chunk));
    socket.on("close", () => (this.closed = true));
    socket.on("error", () => (this.closed = true));
  }

  failure(host: string, port: number, waitingFor: string): ConsoleFailure {
    const printed = this.text.slice(-2000);
    return this.closed ? { _tag: "ConsoleClosed", host, port, printed } : { _tag: "ConsoleTimedOut", host, port, waitingFor, printed };
  }

  /** Sends a line as CR LF (telnet's end of line; VPCS takes it as one Enter), 0xFF doubled. */
  send(line: string): void {
    const escaped: number[] = [];
    for (const b of Buffer.from(`${line}\r\n`, "utf8")) escaped.push(...(b === IAC ? [IAC, IAC] : [b]));
    this.socket.write(Buffer.from(escaped));
  }

  /** Whether `done` holds before `ms` pass (false as soon as the console closes). */
  async waitFor(done: () => boolean, ms: number): Promise<boolean> {
    const deadline = Date.now() + Math.max(0, ms);
    for (;;) {
      if (done()) return true;
      if (this.closed || Date.now() >= deadline) return false;
      await new Promise((r) => setTimeout(r, 20));
    }
  }

  private receive(chunk: Buffer): void {
    const data: number[] = [];
    for (const b of chunk) {
      switch (this.state) {
        case "data":
          if (b === IAC) this.state = "iac";
          else data.push(b);
          break;
        case "iac":
          if (b === IAC) {
            data.push(IAC);
            this.state = "data";
          } else if (b >= WILL && b <= DONT) this.state = "option";
          else this.state = b === SB ? "sb" : "data";
          break;
        case "option":
          // Left unanswered: netemu runs VPCS with its console on the port itself (no telnet proxy in front,
          // as GNS3 has), and VPCS reads a reply's bytes as keys typed, which interrupts the startup script's
          // duplicate-address check and garbles the prompt. Unanswered, each option stays off.
          this.state = "data";
          break;
        case "sb":
          if (b === IAC) this.state = "sb-iac";
          break;
        case "sb-iac":
          this.state = b === SE ? "data" : "sb";
          break;
      }
    }
    this.text += this.decoder.write(Buffer.from(data)).replace(/\r/g, "");
  }
}

/**
 * A PC's address and gateway as VPCS's `show ip` prints them (`IP/MASK : 10.0.0.1/24`, `GATEWAY : 10.0.0.254`),
 * as the startup script line that sets them; undefined when it has no address (0.0.0.0/0).
 */
export function addressLineOf(showIp: string): string | undefined {
  const address = /^IP\/MASK\s*:\s*(\d+\.\d+\.\d+\.\d+\/\d+)\s*$/m.exec(showIp)?.[1];
  const gateway = /^GATEWAY\s*:\s*(\d+\.\d+\.\d+\.\d+)\s*$/m.exec(showIp)?.[1];
  if (address === undefined || address.startsWith("0.0.0.0/")) return undefined;
  return gateway === undefined || gateway === "0.0.0.0" ? `ip ${address}` : `ip ${address} ${gateway}`;
}
