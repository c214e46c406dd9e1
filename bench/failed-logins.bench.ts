/**
 * Guessed passwords (issue 17, ADR 0061): 2,000 wrong logins from one address over keep-alive HTTP
 * (10 at a time) against `netemu serve --auth`, counted by answer, with the log lines they cost;
 * then the time of a wrong, a right and a throttled login from fresh addresses.
 *
 *   node build/bench/failed-logins.bench.js [--cli PATH_TO_cli.js] [--requests N]
 *
 * `--cli` runs another build (the figures "before" in docs/reliability.md came from main's dist/cli.js).
 */
import { spawn } from "node:child_process";
import { Agent, request } from "node:http";
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { fileURLToPath } from "node:url";

const argv = process.argv.slice(2);
const arg = (name: string): string | undefined => (argv.indexOf(name) >= 0 ? argv[argv.indexOf(name) + 1] : undefined);
const CLI = arg("--cli") ?? join(fileURLToPath(new URL("../../", import.meta.url)), "dist", "cli.js");
const REQUESTS = Number(arg("--requests") ?? 2000);
const CONCURRENCY = 10;
const basic = (password: string): string => `Basic ${Buffer.from(`admin:${password}`).toString("base64")}`;

function get(url: string, from: string, authorization: string, agent: Agent): Promise<number> {
  return new Promise((resolve, reject) => {
    const req = request(`${url}/v2/version`, { localAddress: from, agent, headers: { Authorization: authorization } }, (res) => {
      res.resume();
      res.on("end", () => resolve(res.statusCode ?? 0));
    });
    req.on("error", reject);
    req.end();
  });
}

async function main(): Promise<void> {
  const dir = mkdtempSync(join(tmpdir(), "netemu-bench-logins-"));
  const child = spawn(process.execPath, [CLI, "serve", "--host", "127.0.0.1", "--port", "0", "--config-dir", dir, "--dataplane-workers", "0", "--auth", "--user", "admin", "--password", "s3cret"]);
  let log = "";
  child.stdout.on("data", (d: Buffer) => (log += d.toString()));
  try {
    const deadline = Date.now() + 10_000;
    let url: string | undefined;
    while (url === undefined) {
      const line = log.split("\n").find((l) => l.includes('"msg":"netemu listening"'));
      if (line !== undefined) url = (JSON.parse(line) as { url: string }).url;
      else if (Date.now() > deadline || child.exitCode !== null) throw new Error(`netemu did not start: ${log}`);
      else await new Promise((r) => setTimeout(r, 50));
    }
    const linesBefore = log.split("\n").length;
    const agent = new Agent({ keepAlive: true, maxSockets: CONCURRENCY });
    const statuses = new Map<number, number>();
    let sent = 0;
    const began = performance.now();
    await Promise.all(
      Array.from({ length: CONCURRENCY }, async () => {
        while (sent < REQUESTS) {
          sent++;
          const status = await get(url, "127.0.0.1", basic("guess"), agent);
          statuses.set(status, (statuses.get(status) ?? 0) + 1);
        }
      }),
    );
    const seconds = (performance.now() - began) / 1000;
    await new Promise((r) => setTimeout(r, 200));
    const logLines = log.split("\n").length - linesBefore;
    const checked = statuses.get(401) ?? 0;
    console.log(`${REQUESTS} wrong logins from 127.0.0.1 in ${seconds.toFixed(2)} s (${Math.round(REQUESTS / seconds)}/s):`);
    console.log(`  answers: ${[...statuses].map(([s, n]) => `${n} × ${s}`).join(", ")}`);
    console.log(`  passwords actually checked: ${checked} (${(checked / seconds).toFixed(1)}/s)`);
    console.log(`  log lines at info and above: ${logLines}`);
    // One login per fresh address, a few hundred times each: the time of each kind of answer.
    const timed = async (from: string, authorization: string, n: number): Promise<number> => {
      const a = new Agent({ keepAlive: true, maxSockets: 1 });
      await get(url, from, authorization, a);
      const t0 = performance.now();
      for (let i = 0; i < n; i++) await get(url, from, authorization, a);
      a.destroy();
      return ((performance.now() - t0) / n) * 1000;
    };
    const right = await timed("127.0.0.3", basic("s3cret"), 500);
    const wrong = await timed("127.0.0.4", basic("guesses"), 500);
    console.log(`  mean answer time, one keep-alive client: right password ${right.toFixed(0)} µs, throttled (after 10 wrong) ${wrong.toFixed(0)} µs`);
    agent.destroy();
  } finally {
    child.kill("SIGTERM");
    await new Promise((r) => child.once("exit", r));
    rmSync(dir, { recursive: true, force: true });
  }
}

await main();
