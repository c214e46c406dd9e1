import * as E from "fp-ts/lib/Either.js";
import { type ConsoleFailure, VpcsConsoleSession } from "../../src/adapters/cli/lab/vpcs-console.js";
import type { PingResult } from "./vpcs.js";

/** VPCS 0.8.3, as GNS3 2.2 runs it (`../shared/gns3-peer`). */
export const GNS3_PEER_VPCS = "/opt/gns3-peer/bin/vpcs";
/** Debian's VPCS 0.5b2: no -F, it daemonizes (ADR 0088). */
export const DEBIAN_VPCS = "/usr/bin/vpcs";

function thrown(f: ConsoleFailure): Error {
  switch (f._tag) {
    case "ConsoleUnreachable":
      return new Error(`no telnet console on ${f.host}:${f.port}: ${f.reason}`);
    case "ConsoleTimedOut":
      return new Error(`no ${f.waitingFor} on ${f.host}:${f.port}; the console printed: ${JSON.stringify(f.printed)}`);
    case "ConsoleClosed":
      return new Error(`the console ${f.host}:${f.port} closed; it printed: ${JSON.stringify(f.printed)}`);
  }
}

/**
 * A VPCS telnet console for tests, as a GUI user types into it: netemu's own console client
 * (`VpcsConsoleSession`, what `netemu lab exec` uses), failures thrown. `open` talks to VPCS's own console
 * (netemu's compute), `connect` to one behind GNS3 2.2's telnet proxy (its options answered).
 */
export class VpcsConsole {
  private constructor(private readonly session: VpcsConsoleSession) {}

  /** A console VPCS serves itself (netemu runs it so): telnet options left unanswered. */
  static async open(port: number, host = "127.0.0.1", ms = 10_000): Promise<VpcsConsole> {
    const opened = await VpcsConsoleSession.open(host, port, { timeoutMs: ms });
    if (E.isLeft(opened)) throw thrown(opened.left);
    return new VpcsConsole(opened.right);
  }

  /** A console behind GNS3 2.2's telnet proxy, which asks for ECHO and SGA: answered. */
  static async connect(port: number, host = "127.0.0.1"): Promise<VpcsConsole> {
    const opened = await VpcsConsoleSession.open(host, port, { timeoutMs: 10_000, answerOptions: true });
    if (E.isLeft(opened)) throw thrown(opened.left);
    return new VpcsConsole(opened.right);
  }

  /** Everything printed so far. */
  get output(): string {
    return this.session.output;
  }

  /** Types a line and answers what it printed (without its echo and the prompt). */
  async command(line: string, ms = 15_000): Promise<string> {
    const r = await this.session.type(line, ms);
    if (E.isLeft(r)) throw thrown(r.left);
    return r.right;
  }

  /** `ip <cidr>` (VPCS checks for a duplicate address first, about 3 s); throws unless VPCS took it. */
  async setIp(cidr: string): Promise<void> {
    const address = cidr.split("/")[0] ?? cidr;
    const out = await this.command(`ip ${cidr}`, 20_000);
    // VPCS answers `<name> : 10.0.0.1 255.255.255.0`.
    if (!new RegExp(`: ${address.replace(/\./g, "\\.")} \\d`).test(out)) throw new Error(`VPCS refused ip ${cidr}: ${out}`);
  }

  /**
   * `ping <ip> -c <count>`: replies read from lines like `84 bytes from 10.0.0.2 icmp_seq=1 ttl=64 time=0.456 ms`
   * (0.8.3) or `10.0.0.2 icmp_seq=1 ttl=64 time=0.626 ms` (0.5b2).
   */
  async ping(ip: string, count: number): Promise<PingResult> {
    const out = await this.command(`ping ${ip} -c ${count}`, 5000 + count * 3000);
    const rttsMs = [...out.matchAll(/^(?:\d+ bytes from )?(\S+) icmp_seq=\d+ ttl=\d+ time=([\d.]+) ms/gm)].filter((m) => m[1] === ip).map((m) => Number(m[2]));
    return { replies: rttsMs.length, rttsMs, output: out };
  }

  /** Closes the connection (VPCS keeps running). */
  async close(): Promise<void> {
    await this.session.close();
  }
}
