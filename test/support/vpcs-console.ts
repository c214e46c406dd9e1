import { connect, type Socket } from "node:net";
import type { PingResult } from "./vpcs.js";

/** VPCS 0.8.3, as GNS3 2.2 runs it (`../shared/gns3-peer`). */
export const GNS3_PEER_VPCS = "/opt/gns3-peer/bin/vpcs";
/** Debian's VPCS 0.5b2: no -F, it daemonizes (ADR 0088). */
export const DEBIAN_VPCS = "/usr/bin/vpcs";

/**
 * A VPCS telnet console, as a GUI user types into it: a line sent, its output read until the prompt.
 * Telnet negotiation bytes (IAC ...) are dropped from what it answers.
 */
export class VpcsConsole {
  private output = "";

  private constructor(private readonly socket: Socket) {
    socket.on("data", (d: Buffer) => (this.output += d.toString("latin1").replace(/\xff[\xfb-\xfe][\s\S]/g, "")));
  }

  /** Connects (retrying while the console is not yet listening) and waits for the first prompt. */
  static async open(port: number, host = "127.0.0.1", ms = 10_000): Promise<VpcsConsole> {
    const deadline = Date.now() + ms;
    for (;;) {
      try {
        const socket = await new Promise<Socket>((resolve, reject) => {
          const s = connect({ port, host }, () => resolve(s));
          s.once("error", reject);
        });
        const console = new VpcsConsole(socket);
        socket.write("\r\n");
        await console.waitFor(/> $/, Math.max(1000, deadline - Date.now()), 0);
        return console;
      } catch (e) {
        if (Date.now() > deadline) throw e;
        await new Promise((r) => setTimeout(r, 200));
      }
    }
  }

  private async waitFor(pattern: RegExp, ms: number, from: number): Promise<string> {
    const deadline = Date.now() + ms;
    for (;;) {
      const text = this.output.slice(from).replace(/\r/g, "");
      if (pattern.test(text)) return text;
      if (this.socket.destroyed || Date.now() > deadline) throw new Error(`the VPCS console did not print ${pattern} within ${ms} ms; it printed: ${JSON.stringify(text)}`);
      await new Promise((r) => setTimeout(r, 50));
    }
  }

  /** Types a line and answers what it printed up to the next prompt. */
  async command(line: string, ms = 15_000): Promise<string> {
    const from = this.output.length;
    this.socket.write(`${line}\r\n`);
    return this.waitFor(/\n[^\n]*> $/, ms, from);
  }

  async ping(ip: string, count: number): Promise<PingResult> {
    const out = await this.command(`ping ${ip} -c ${count}`, 5000 + count * 3000);
    const rttsMs = [...out.matchAll(/icmp_seq=\d+ ttl=\d+ time=([\d.]+) ms/g)].map((m) => Number(m[1]));
    return { replies: rttsMs.length, rttsMs, output: out };
  }

  close(): void {
    this.socket.destroy();
  }
}
