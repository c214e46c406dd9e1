import { execFileSync } from "node:child_process";
import { WebSocket } from "ws";

/** A browser's web console: what the node printed (binary frames, as GNS3 sends), and typing. */
export class WebConsole {
  printed = "";
  readonly binary: boolean[] = [];
  readonly closed: Promise<number>;
  /** The close frame's reason, once closed. */
  closeReason = "";
  private constructor(readonly ws: WebSocket) {
    ws.on("message", (data: Buffer, isBinary) => {
      this.binary.push(isBinary);
      this.printed += data.toString("latin1");
    });
    this.closed = new Promise((resolve) =>
      ws.once("close", (code, reason: Buffer) => {
        this.closeReason = reason.toString();
        resolve(code);
      }),
    );
  }

  static open(url: string, headers: Record<string, string> = {}): Promise<WebConsole> {
    return new Promise((resolve, reject) => {
      const ws = new WebSocket(url, { headers });
      const c = new WebConsole(ws);
      ws.once("open", () => resolve(c));
      ws.once("unexpected-response", (_req, res) => {
        let body = "";
        res.on("data", (d: Buffer) => (body += d.toString()));
        res.on("end", () => reject(Object.assign(new Error(`refused ${res.statusCode}: ${body}`), { status: res.statusCode, body })));
      });
      ws.once("error", reject);
    });
  }

  /** Types a line once the prompt is up (a text frame, Enter as xterm sends it) and waits for `expected` in what follows. */
  async type(line: string, expected: RegExp, ms = 15_000): Promise<string> {
    await this.printedMatching(/VPCS> $/, ms);
    const from = this.printed.length;
    this.ws.send(`${line}\r`);
    const deadline = Date.now() + ms;
    while (!expected.test(this.printed.slice(from))) {
      if (Date.now() > deadline) throw new Error(`no ${expected} after ${JSON.stringify(line)}; printed: ${JSON.stringify(this.printed.slice(from))}`);
      await new Promise((r) => setTimeout(r, 50));
    }
    return this.printed.slice(from);
  }

  private async printedMatching(pattern: RegExp, ms: number): Promise<void> {
    const deadline = Date.now() + ms;
    while (!pattern.test(this.printed)) {
      if (Date.now() > deadline) throw new Error(`no ${pattern}; printed: ${JSON.stringify(this.printed)}`);
      await new Promise((r) => setTimeout(r, 50));
    }
  }
}

/** How many TCP connections are established to a local port (the node's console). */
export function connectionsTo(port: number): number {
  const out = execFileSync("ss", ["-Htn", "state", "established", `( dport = :${port} )`], { encoding: "utf8" });
  return out.split("\n").filter((l) => l.trim() !== "").length;
}

export async function until(what: string, check: () => boolean, ms = 10_000): Promise<void> {
  const deadline = Date.now() + ms;
  while (!check()) {
    if (Date.now() > deadline) throw new Error(`${what} did not happen within ${ms} ms`);
    await new Promise((r) => setTimeout(r, 50));
  }
}

