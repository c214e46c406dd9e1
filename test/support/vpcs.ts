import { spawn, spawnSync, type ChildProcessWithoutNullStreams } from "node:child_process";
import { mkdtempSync, readFileSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";

/** Whether a Debian package's command is on PATH; under CI a missing one fails instead of skipping. */
export function requireTool(ctx: Mocha.Context, tool: string, pkg: string): void {
  if (spawnSync("sh", ["-c", `command -v ${tool}`]).status === 0) return;
  const message = `${tool} is not installed: apt-get update && apt-get install -y ${pkg}`;
  if (process.env["CI"] === "true") throw new Error(`${message} (CI=true: a missing tool fails the run)`);
  console.log(`      skipped: ${message}`);
  ctx.skip();
}

export interface PingResult {
  readonly replies: number;
  readonly rttsMs: readonly number[];
  readonly output: string;
}

/**
 * One VPCS host (Debian's vpcs 0.5b2) on a pseudo-terminal made by script(1), driven through its
 * console: it sends its frames to 127.0.0.1:`rport` from `lport`. Ended by pid.
 */
export class VpcsHost {
  private output = "";
  private readonly dir: string;

  private constructor(private readonly child: ChildProcessWithoutNullStreams, dir: string) {
    this.dir = dir;
    child.stdout.on("data", (d: Buffer) => (this.output += d.toString("utf8")));
  }

  /** `macId` must differ between hosts (VPCS derives its MAC 00:50:79:66:68:<id> from it). */
  static async start(lport: number, rport: number, macId: number): Promise<VpcsHost> {
    const dir = mkdtempSync(join(tmpdir(), "netemu-vpcs-"));
    const child = spawn("script", ["-qfec", `vpcs -i 1 -s ${lport} -c ${rport} -t 127.0.0.1 -m ${macId}`, "/dev/null"], {
      cwd: dir,
      stdio: ["pipe", "pipe", "pipe"],
    });
    const host = new VpcsHost(child, dir);
    await host.waitFor(/VPCS> $/, 5000);
    return host;
  }

  private async waitFor(pattern: RegExp, ms: number, from = 0): Promise<string> {
    const deadline = Date.now() + ms;
    for (;;) {
      const text = this.output.slice(from).replace(/\r/g, "");
      if (pattern.test(text)) return text;
      if (Date.now() > deadline) throw new Error(`VPCS did not print ${pattern} within ${ms} ms; it printed: ${JSON.stringify(text)}`);
      await new Promise((r) => setTimeout(r, 50));
    }
  }

  /** Runs a console command and answers what it printed up to the next prompt. */
  async command(line: string, ms = 15000): Promise<string> {
    const from = this.output.length;
    this.child.stdin.write(`${line}\n`);
    const text = await this.waitFor(/\nVPCS> $/, ms, from);
    return text;
  }

  async setIp(cidr: string): Promise<void> {
    const out = await this.command(`ip ${cidr}`);
    if (!/PC1 : /.test(out)) throw new Error(`VPCS refused ip ${cidr}: ${out}`);
  }

  async ping(ip: string, count: number): Promise<PingResult> {
    const out = await this.command(`ping ${ip} -c ${count}`, 5000 + count * 3000);
    const rttsMs = [...out.matchAll(/icmp_seq=\d+ ttl=\d+ time=([\d.]+) ms/g)].map((m) => Number(m[1]));
    return { replies: rttsMs.length, rttsMs, output: out };
  }

  async stop(): Promise<void> {
    const pid = this.child.pid;
    const exited = (ms: number): Promise<boolean> =>
      this.child.exitCode !== null || this.child.signalCode !== null
        ? Promise.resolve(true)
        : new Promise((resolve) => {
            const timer = setTimeout(() => resolve(false), ms);
            this.child.once("exit", () => {
              clearTimeout(timer);
              resolve(true);
            });
          });
    if (pid !== undefined) {
      // Ask VPCS to quit, so script(1) reaps it and exits; else end vpcs by its pid, then script.
      const children = readChildren(pid);
      this.child.stdin.write("quit\n");
      if (!(await exited(1000))) {
        for (const c of children) tryKill(c);
        if (!(await exited(1000))) {
          tryKill(pid);
          if (!(await exited(1000))) {
            for (const c of children) tryKill(c, "SIGKILL");
            tryKill(pid, "SIGKILL");
          }
        }
      }
    }
    rmSync(this.dir, { recursive: true, force: true });
  }
}

function readChildren(pid: number): number[] {
  try {
    return readFileSync(`/proc/${pid}/task/${pid}/children`, "utf8").trim().split(/\s+/).filter(Boolean).map(Number);
  } catch {
    return [];
  }
}

function tryKill(pid: number, signal: NodeJS.Signals = "SIGTERM"): void {
  try {
    process.kill(pid, signal);
  } catch {
    /* already gone */
  }
}
