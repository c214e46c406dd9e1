import * as E from "fp-ts/lib/Either.js";
import { connect, type Socket } from "node:net";
import { StringDecoder } from "node:string_decoder";
import { TelnetLine } from "../../shared/telnet.js";

/** Why a console could not be reached, a line typed into it, or its answer read. */
export type ConsoleFailure =
  | { readonly _tag: "ConsoleUnreachable"; readonly host: string; readonly port: number; readonly reason: string }
  | { readonly _tag: "ConsoleTimedOut"; readonly host: string; readonly port: number; readonly waitingFor: string; readonly printed: string }
  | { readonly _tag: "ConsoleClosed"; readonly host: string; readonly port: number; readonly printed: string };

/** A VPCS prompt (`VPCS> `, `pc1> `) at the very end of the output. */
const PROMPT = /(?:^|\n)\S+> $/;

const sleep = (ms: number): Promise<void> => new Promise((r) => setTimeout(r, ms));

interface ConsoleOptions {
  /** How long connecting (tried again while nothing listens yet) and the first prompt may take. */
  readonly timeoutMs: number;
  /**
   * Whether telnet option requests are answered. Not for a VPCS whose console netemu serves as VPCS's own:
   * VPCS reads a reply's bytes as keys typed, which interrupts the startup script's duplicate-address
   * check and garbles the prompt. GNS3 2.2 puts its own telnet proxy in front of VPCS, which asks for
   * ECHO and SGA and swallows the answers: there, they are answered (ECHO and SGA taken, the rest refused,
   * each once so no negotiation loop can start).
   */
  readonly answerOptions?: boolean;
}

/**
 * A VPCS telnet console as a user types into it: a line sent (CR LF, 0xFF doubled), what it printed read
 * until the next prompt, telnet commands dropped. What `netemu lab exec` and `lab deploy` use, and the
 * tests' consoles (test/support/vpcs-console.ts).
 */
export class VpcsConsoleSession {
  private received = "";
  private closed = false;
  private readonly line: TelnetLine;
  private readonly decoder = new StringDecoder("utf8");

  private constructor(
    private readonly socket: Socket,
    readonly host: string,
    readonly port: number,
    answerOptions: boolean,
  ) {
    this.line = new TelnetLine(answerOptions);
    socket.on("data", (chunk: Buffer) => this.receive(chunk));
    socket.on("close", () => (this.closed = true));
    socket.on("error", () => (this.closed = true));
  }

  /** Connects (again while nothing listens yet: a PC just started) and waits for a prompt. */
  static async open(host: string, port: number, options: ConsoleOptions): Promise<E.Either<ConsoleFailure, VpcsConsoleSession>> {
    const deadline = Date.now() + options.timeoutMs;
    let socket: Socket | undefined;
    while (socket === undefined) {
      try {
        socket = await openSocket(host, port, Math.max(100, Math.min(deadline - Date.now(), 10_000)));
      } catch (e) {
        if (Date.now() + 200 >= deadline) return E.left({ _tag: "ConsoleUnreachable", host, port, reason: (e as Error).message });
        await sleep(200);
      }
    }
    const session = new VpcsConsoleSession(socket, host, port, options.answerOptions === true);
    // A first connection gets the banner, then the prompt once the startup script has run (its `ip` checks
    // for a duplicate address for seconds, and a key typed meanwhile interrupts it): while text comes, wait.
    // A later connection may get nothing until a line is sent.
    if (!(await session.waitFor(() => PROMPT.test(session.received), Math.min(1000, options.timeoutMs)))) {
      if (session.received.trim() === "") session.send("");
      if (!(await session.waitFor(() => PROMPT.test(session.received), deadline - Date.now()))) {
        const failure = session.failure("a prompt");
        session.destroy();
        return E.left(failure);
      }
    }
    return E.right(session);
  }

  /** Everything printed so far, telnet commands and carriage returns removed. */
  get output(): string {
    return this.received;
  }

  /** Types a line and answers what it printed: without its echo and the prompt after it. */
  async type(line: string, timeoutMs: number): Promise<E.Either<ConsoleFailure, string>> {
    const from = this.received.length;
    this.send(line);
    let output = "";
    const answered = await this.waitFor(() => {
      const since = this.received.slice(from);
      // The prompt after the line: the first line break (the echo's end, or the answer's first line) comes before it.
      const prompt = since.includes("\n") ? PROMPT.exec(since) : null;
      if (prompt === null) return false;
      const answer = since.slice(0, prompt.index);
      // VPCS echoes what is typed; a console that does not is answered from its first line.
      const echoed = answer.indexOf(line);
      const start = echoed >= 0 && answer.slice(0, echoed).trim() === "" ? answer.indexOf("\n", echoed) + 1 : 0;
      output = answer.slice(start).replace(/^\n+|\n+$/g, "");
      return true;
    }, timeoutMs);
    return answered ? E.right(output) : E.left(this.failure(`the prompt after \`${line}\``));
  }

  /** Closes the connection (VPCS keeps running); bounded to 2 s. */
  async close(): Promise<void> {
    if (this.socket.destroyed) return;
    await new Promise<void>((resolve) => {
      const timer = setTimeout(() => {
        this.socket.destroy();
        resolve();
      }, 2000);
      this.socket.once("close", () => {
        clearTimeout(timer);
        resolve();
      });
      this.socket.end();
    });
  }

  /** Drops the connection at once. */
  destroy(): void {
    this.socket.destroy();
  }

  private failure(waitingFor: string): ConsoleFailure {
    const printed = this.received.slice(-2000);
    return this.closed ? { _tag: "ConsoleClosed", host: this.host, port: this.port, printed } : { _tag: "ConsoleTimedOut", host: this.host, port: this.port, waitingFor, printed };
  }

  /** Sends a line as CR LF (telnet's end of line; VPCS takes it as one Enter), 0xFF doubled. */
  private send(line: string): void {
    this.socket.write(TelnetLine.send(Buffer.from(`${line}\r\n`, "utf8")));
  }

  /** Whether `done` holds before `ms` pass (false as soon as the console closes). */
  private async waitFor(done: () => boolean, ms: number): Promise<boolean> {
    const deadline = Date.now() + Math.max(0, ms);
    for (;;) {
      if (done()) return true;
      if (this.closed || Date.now() >= deadline) return false;
      await sleep(20);
    }
  }

  /** Strips telnet commands (even split across chunks), answering option requests when told to. */
  private receive(chunk: Buffer): void {
    const { text, answers } = this.line.receive(chunk);
    if (answers.length > 0 && !this.socket.destroyed) this.socket.write(answers);
    this.received += this.decoder.write(text).replace(/\r/g, "");
  }
}

/**
 * Types one line into a VPCS telnet console and answers what the command printed, without its echo and
 * the prompt after it (what `netemu lab exec pc1 -- ping 10.0.0.2` prints).
 */
export async function typeIntoConsole(host: string, port: number, line: string, timeoutMs: number): Promise<E.Either<ConsoleFailure, string>> {
  const deadline = Date.now() + timeoutMs;
  const opened = await VpcsConsoleSession.open(host, port, { timeoutMs });
  if (E.isLeft(opened)) return opened;
  try {
    return await opened.right.type(line, deadline - Date.now());
  } finally {
    opened.right.destroy();
  }
}

function openSocket(host: string, port: number, ms: number): Promise<Socket> {
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
      socket.destroy();
      reject(e);
    });
  });
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
