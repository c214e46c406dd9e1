import { connect as tcpConnect, type Socket } from "node:net";
import { StringDecoder } from "node:string_decoder";

export interface ConsolePing {
  readonly replies: number;
  readonly rttsMs: readonly number[];
  readonly output: string;
}

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

/** A prompt such as `VPCS> ` or `PC1> ` at the very end of the output. */
const PROMPT = /(?:^|\n)\S+> $/;

const sleep = (ms: number): Promise<void> => new Promise((r) => setTimeout(r, ms));

type TelnetState = "data" | "iac" | "option" | "sb" | "sb-iac";

/**
 * A telnet client for a VPCS console that GNS3 serves on 127.0.0.1:<console>. GNS3 2.2 puts its own
 * telnet proxy in front of VPCS's telnet daemon, so the first connection sees GNS3's options (WILL ECHO,
 * WILL SGA, WILL BINARY, DO BINARY) then VPCS's (DO ECHO, WILL ECHO, DO SGA, WILL SGA) before the banner.
 * Output VPCS printed while nobody was connected is delivered to the next connection.
 */
export class TelnetConsole {
  private text = "";
  private state: TelnetState = "data";
  private verb = 0;
  private readonly answered = new Set<string>();
  private readonly decoder = new StringDecoder("utf8");
  private closed = false;

  private constructor(private readonly socket: Socket) {
    socket.on("data", (chunk: Buffer) => this.receive(chunk));
    socket.on("close", () => (this.closed = true));
    socket.on("error", () => (this.closed = true));
  }

  /** Connects (retrying for up to 10 s while the console is not listening yet) and waits for a prompt. */
  static async connect(port: number, host = "127.0.0.1"): Promise<TelnetConsole> {
    const deadline = Date.now() + 10_000;
    let socket: Socket | undefined;
    let lastError: unknown;
    while (socket === undefined) {
      try {
        socket = await openSocket(port, host, Math.max(500, deadline - Date.now()));
      } catch (e) {
        lastError = e;
        if (Date.now() >= deadline) throw new Error(`no telnet console on ${host}:${port} within 10 s: ${String(lastError)}`);
        await sleep(200);
      }
    }
    const c = new TelnetConsole(socket);
    try {
      // A first connection gets the banner and a prompt at once; a later one may get nothing, so ask for one.
      const prompted = await c.waitFor(() => PROMPT.test(c.text), 1000).then(
        () => true,
        () => false,
      );
      if (!prompted) {
        const from = c.text.length;
        c.send("");
        await c.waitFor(() => PROMPT.test(c.text.slice(from)), 10_000, `a prompt on ${host}:${port}`);
      }
    } catch (e) {
      await c.close();
      throw e;
    }
    return c;
  }

  /** Everything printed so far, telnet commands and carriage returns removed. */
  get output(): string {
    return this.text;
  }

  /**
   * Sends `line` and waits for the prompt that follows its echo; answers what the command printed
   * (without the echoed line and the prompt). The echo anchors the wait, so a prompt left over from
   * earlier output cannot end it too soon.
   */
  async command(line: string, ms = 15_000): Promise<string> {
    const from = this.text.length;
    this.send(line);
    let result = "";
    await this.waitFor(
      () => {
        const since = this.text.slice(from);
        const echo = since.indexOf(line);
        const eol = echo < 0 ? -1 : since.indexOf("\n", echo + line.length);
        if (eol < 0) return false;
        const after = since.slice(eol + 1);
        const prompt = PROMPT.exec(after);
        if (prompt === null) return false;
        result = after.slice(0, prompt.index).replace(/^\n+|\n+$/g, "");
        return true;
      },
      ms,
      `the prompt after \`${line}\``,
    );
    return result;
  }

  /** `ip <cidr>` (VPCS checks for a duplicate address first, about 3 s); throws unless VPCS took it. */
  async setIp(cidr: string): Promise<void> {
    const address = cidr.split("/")[0] ?? cidr;
    const out = await this.command(`ip ${cidr}`, 20_000);
    // VPCS answers `<name> : 10.0.0.1 255.255.255.0`.
    if (!new RegExp(`: ${address.replace(/\./g, "\\.")} \\d`).test(out)) throw new Error(`VPCS refused ip ${cidr}: ${out}`);
  }

  /** `ping <ip> -c <count>`: replies read from lines like `84 bytes from 10.0.0.2 icmp_seq=1 ttl=64 time=0.456 ms`. */
  async ping(ip: string, count: number): Promise<ConsolePing> {
    const out = await this.command(`ping ${ip} -c ${count}`, 5000 + count * 3000);
    const rttsMs = [...out.matchAll(/\d+ bytes from (\S+) icmp_seq=\d+ ttl=\d+ time=([\d.]+) ms/g)]
      .filter((m) => m[1] === ip)
      .map((m) => Number(m[2]));
    return { replies: rttsMs.length, rttsMs, output: out };
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

  /** Sends a line, CR LF as telnet's NVT wants (VPCS takes it as one Enter); 0xFF doubled. */
  private send(line: string): void {
    const bytes = Buffer.from(`${line}\r\n`, "utf8");
    const escaped: number[] = [];
    for (const b of bytes) escaped.push(...(b === IAC ? [IAC, IAC] : [b]));
    this.socket.write(Buffer.from(escaped));
  }

  private async waitFor(done: () => boolean, ms: number, what = "console output"): Promise<void> {
    const deadline = Date.now() + ms;
    for (;;) {
      if (done()) return;
      if (this.closed) throw new Error(`the console closed while waiting for ${what}; it printed: ${JSON.stringify(this.text.slice(-2000))}`);
      if (Date.now() >= deadline) throw new Error(`no ${what} within ${ms} ms; the console printed: ${JSON.stringify(this.text.slice(-2000))}`);
      await sleep(20);
    }
  }

  /** Strips telnet commands (even split across chunks) and answers option requests. */
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
          } else this.state = b === SB ? "sb" : "data"; // other two-byte commands (NOP, GA, ...) carry nothing
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

  /**
   * Lets the server echo and suppress go-ahead (the echo is how command() finds its output), refuses
   * every other option, and answers each request once so that no negotiation loop can start. GNS3's
   * proxy swallows whatever the client answers, so VPCS never sees these.
   */
  private answer(verb: number, option: number): void {
    let reply: number | undefined;
    if (verb === WILL) reply = option === ECHO || option === SGA ? DO : DONT;
    else if (verb === DO) reply = WONT;
    if (reply === undefined) return; // WONT/DONT: the option is off, as we want
    const key = `${verb}/${option}`;
    if (this.answered.has(key)) return;
    this.answered.add(key);
    if (!this.socket.destroyed) this.socket.write(Buffer.from([IAC, reply, option]));
  }
}

function openSocket(port: number, host: string, ms: number): Promise<Socket> {
  return new Promise((resolve, reject) => {
    const socket = tcpConnect({ port, host });
    const timer = setTimeout(() => {
      socket.destroy();
      reject(new Error(`connect timed out after ${ms} ms`));
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
