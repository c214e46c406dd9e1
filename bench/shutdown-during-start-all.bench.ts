/**
 * A SIGTERM during a start all of N real VPCS (issue 27, ADR 0090): one `netemu serve` of the given build
 * in a fresh directory, a project of N VPCS, POST nodes/start, and SIGTERM `--after` ms later. Prints one
 * JSON line: the VPCS processes running at the SIGTERM, the time to the server's exit (SIGKILL after 20 s,
 * as a service manager would), the start all's answer, and the VPCS processes of this server left after
 * its exit (those whose working directory is in its directory: never anyone else's; killed after).
 *
 *   node build/bench/shutdown-during-start-all.bench.js [--nodes 150] [--after 2000] [--cli build/src/cli.js]
 *     [--port 39180] [--udp 39200] [--consoles 38000] [--vpcs /opt/gns3-peer/bin/vpcs]
 *
 * `npm run bench:shutdown-during-start -- <options>` builds first. `--cli` names the server to run, so a
 * build of the commit before a change is measured the same way.
 */
import { execFileSync, spawn } from "node:child_process";
import { mkdtempSync, readlinkSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { fileURLToPath } from "node:url";

const argv = process.argv.slice(2);
const option = (name: string, fallback: string): string => {
  const at = argv.indexOf(name);
  return at >= 0 ? (argv[at + 1] ?? fallback) : fallback;
};
const NODES = Number(option("--nodes", "150"));
const AFTER_MS = Number(option("--after", "2000"));
const CLI = option("--cli", fileURLToPath(new URL("../src/cli.js", import.meta.url)));
const PORT = Number(option("--port", "39180"));
const UDP = Number(option("--udp", "39200"));
const CONSOLES = Number(option("--consoles", "38000"));
const VPCS = option("--vpcs", "/opt/gns3-peer/bin/vpcs");

const cwdOf = (pid: number): string => {
  try {
    return readlinkSync(`/proc/${pid}/cwd`);
  } catch {
    return "";
  }
};

async function main(): Promise<void> {
  const dir = mkdtempSync(join(tmpdir(), "netemu-bench-shutdown-"));
  /** This server's VPCS: by working directory (each runs in its node's), never by name alone. */
  const ours = (): number[] => {
    let out = "";
    try {
      out = execFileSync("pgrep", ["-x", "vpcs"]).toString();
    } catch {
      // none at all
    }
    return out.split("\n").filter(Boolean).map(Number).filter((pid) => cwdOf(pid).startsWith(dir));
  };
  const args = ["-r", "reflect-metadata", CLI, "serve", "--host", "127.0.0.1", "--port", String(PORT), "--config-dir", dir, "--projects-path", join(dir, "projects")];
  const ranges = ["--udp-start-port", String(UDP), "--udp-end-port", String(UDP + 2 * NODES + 50), "--console-start-port", String(CONSOLES), "--console-end-port", String(CONSOLES + NODES + 50), "--vpcs-path", VPCS];
  const child = spawn(process.execPath, [...args, ...ranges], { stdio: ["ignore", "ignore", "inherit"] });
  const url = `http://127.0.0.1:${PORT}`;
  try {
    for (let i = 0; i < 600; i++) {
      try {
        if ((await fetch(`${url}/v2/version`)).ok) break;
      } catch {
        // not listening yet
      }
      await new Promise((r) => setTimeout(r, 100));
    }
    const call = async (method: string, path: string, body: unknown = {}): Promise<Record<string, unknown>> =>
      (await (await fetch(url + path, { method, headers: { "Content-Type": "application/json" }, body: JSON.stringify(body) })).json()) as Record<string, unknown>;
    const projectId = String((await call("POST", "/v2/projects", { name: "shutdown-during-start" }))["project_id"]);
    for (let i = 0; i < NODES; i++) await call("POST", `/v2/projects/${projectId}/nodes`, { name: `PC${i + 1}`, node_type: "vpcs", compute_id: "local" });
    const answer = fetch(`${url}/v2/projects/${projectId}/nodes/start`, { method: "POST", headers: { "Content-Type": "application/json" }, body: "{}" }).then(
      async (r) => `${r.status} ${((await r.json().catch(() => ({}))) as { message?: string }).message ?? ""}`,
      (e: Error) => `no answer: ${e.message}`,
    );
    await new Promise((r) => setTimeout(r, AFTER_MS));
    const runningAtSigterm = ours().length;
    const exited = new Promise((r) => child.once("exit", r));
    const t0 = performance.now();
    child.kill("SIGTERM");
    let sigkilled = false;
    const timer = setTimeout(() => {
      sigkilled = true;
      child.kill("SIGKILL");
    }, 20_000);
    await exited;
    clearTimeout(timer);
    const exitMs = Math.round(performance.now() - t0);
    const left = ours();
    console.log(JSON.stringify({ nodes: NODES, afterMs: AFTER_MS, vpcsProcessesAtSigterm: runningAtSigterm, exitMs, sigkilled, startAllAnswer: await answer, vpcsProcessesLeft: left.length }));
    for (const pid of left) {
      try {
        process.kill(pid, "SIGKILL");
      } catch {
        // ended meanwhile
      }
    }
  } finally {
    if (child.exitCode === null && child.signalCode === null) child.kill("SIGKILL");
    rmSync(dir, { recursive: true, force: true });
  }
}

await main();
