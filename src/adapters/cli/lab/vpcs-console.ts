import * as E from "fp-ts/lib/Either.js";
import { connect, type Socket } from "node:net";
import { StringDecoder } from "node:string_decoder";

/** Why a line could not be typed into a console, or its answer not read. */
export type ConsoleFailure =
  | { readonly _tag: "ConsoleUnreachable"; readonly host: string; readonly port: number; readonly reason: string }
  | { readonly _tag: "ConsoleTimedOut"; readonly host: string; readonly port: number; readonly waitingFor: string; readonly printed: string }
  | { readonly _tag: "ConsoleClosed"; readonly host: string; readonly port: number; readonly printed: string };

// Telnet (RFC 854/855) bytes.
const IAC = 255;
const DONT = 254;
const DO = 253;
const WONT = 252;
const WILL = 251;
const SB = 250;
const SE = 240;
const ECHO = 1;
const SGA = 3;

/** A VPCS prompt (`VPCS> `, `pc1> `) at the very end of the output. */
const PROMPT = /(?:^|\n)\S+> $/;

/**
 * Types one line into a VPCS telnet console and answers what the command printed, without its echo and
 * the prompt after it (what `netemu lab exec pc1 -- ping 10.0.0.2` prints). Telnet options are answered
 * once each: echo and suppress-go-ahead accepted (the echo anchors where the output starts), every other
 * refused, so no negotiation can loop.
 */
export async function typeIntoConsole(host: string, port: number, line: string, timeoutMs: number): Promise<E.Either<ConsoleFailure, string>> {
  let socket: Socket;
  try {
    socket = await open(host, port, Math.min(timeoutMs, 10_000));
  } catch (e) {
    return E.left({ _tag: "ConsoleUnreachable", host, port, reason: (e as Error).message });
  }
  const session = new Session(socket);
  try {
    const deadline = Date.now() + timeoutMs;
    // A first connection gets the banner and a prompt; a later one may get nothing until a line is sent.
    if (!(await session.waitFor(() => PROMPT.test(session.text), Math.min(1000, timeoutMs)))) {
      const from = session.text.length;
      session.send("");
      if (!(await session.waitFor(() => PROMPT.test(session.text.slice(from)), deadline - Date.now()))) return E.left(session.failure(host, port, "a prompt"));
    }
    const from = session.text.length;
    session.send(line);
    let output = "";
    const answered = await session.waitFor(() => {
      const since = session.text.slice(from);
      const echo = since.indexOf(line);
      const eol = echo < 0 ? -1 : since.indexOf("\n", echo + line.length);
      if (eol < 0) return false;
      const after = since.slice(eol + 1);
      const prompt = PROMPT.exec(after);
      if (prompt === null) return false;
      output = after.slice(0, prompt.index).replace(/^\n+|\n+$/g, "");
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
  private verb = 0;
  private readonly answered = new Set<string>();
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
          } else if (b >= WILL && b <= DONT) {
            this.verb = b;
            this.state = "option";
          } else this.state = b === SB ? "sb" : "data";
          break;
        case "option":
          this.answer(this.verb, b);
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

  private answer(verb: number, option: number): void {
    let reply: number | undefined;
    if (verb === WILL) reply = option === ECHO || option === SGA ? DO : DONT;
    else if (verb === DO) reply = WONT;
    if (reply === undefined) return;
    const key = `${verb}/${option}`;
    if (this.answered.has(key)) return;
    this.answered.add(key);
    if (!this.socket.destroyed) this.socket.write(Buffer.from([IAC, reply, option]));
  }
}
