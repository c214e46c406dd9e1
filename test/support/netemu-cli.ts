import { spawn, type ChildProcessWithoutNullStreams } from "node:child_process";
import { join } from "node:path";
import { fileURLToPath } from "node:url";

const ROOT = fileURLToPath(new URL("../../../", import.meta.url));
export const CLI = join(ROOT, "dist", "cli.js");

export interface Served {
  readonly child: ChildProcessWithoutNullStreams;
  readonly url: string;
  /** The "netemu listening" log line. */
  readonly listening: { readonly url: string; readonly dataPlaneWorkers: number; readonly datagramPath?: string };
  readonly exit: Promise<{ code: number | null; ms: number }>;
  stderr(): string;
  /** What it logged so far (the log goes to stdout). */
  stdout(): string;
}

/** Starts `netemu serve` on 127.0.0.1:0 and reads the URL from its "netemu listening" log line. */
export async function serve(configDir: string, extra: string[] = [], env: Record<string, string> = {}): Promise<Served> {
  const child = spawn(process.execPath, [CLI, "serve", "--host", "127.0.0.1", "--port", "0", "--config-dir", configDir, ...extra], {
    env: { ...process.env, ...env },
  });
  let out = "";
  let err = "";
  let stoppedAt = 0;
  child.stdout.on("data", (d: Buffer) => (out += d.toString()));
  child.stderr.on("data", (d: Buffer) => (err += d.toString()));
  const exit = new Promise<{ code: number | null; ms: number }>((resolve) =>
    child.once("exit", (code) => resolve({ code, ms: stoppedAt === 0 ? 0 : Date.now() - stoppedAt })),
  );
  const deadline = Date.now() + 10_000;
  for (;;) {
    const line = out.split("\n").find((l) => l.includes('"msg":"netemu listening"'));
    if (line !== undefined) {
      const listening = JSON.parse(line) as Served["listening"];
      const served: Served = { child, url: listening.url, listening, exit, stderr: () => err, stdout: () => out };
      const kill = child.kill.bind(child);
      child.kill = (signal?: NodeJS.Signals | number) => {
        stoppedAt = Date.now();
        return kill(signal);
      };
      return served;
    }
    if (child.exitCode !== null || Date.now() > deadline) {
      // A server that did not say it listens is ended here: the caller never gets it to stop.
      if (child.exitCode === null) child.kill("SIGKILL");
      throw new Error(`netemu serve did not start: ${out}${err}`);
    }
    await new Promise((r) => setTimeout(r, 50));
  }
}

