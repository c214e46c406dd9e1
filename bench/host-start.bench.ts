/**
 * Start all, stop all and delete of a project of N real VPCS (issue 27): one `netemu serve` of the given
 * build in a fresh directory, a project of N VPCS (no links: the hosts' processes are what is measured),
 * then per round POST nodes/start (and a check that every VPCS answers on its console), POST nodes/stop;
 * at the end a start and the project's DELETE. Prints one JSON line per measure; progress on stderr.
 *
 *   node build/bench/host-start.bench.js [--hosts 40] [--rounds 3] [--cli build/src/cli.js] [--vpcs /opt/gns3-peer/bin/vpcs]
 *     [--consoles 27000-27999] [--udp 28000-28999]
 *
 * `npm run bench:host-start -- <options>` builds first, then runs it. `--cli` names the server to run, so a build of the commit before a change is measured the same way.
 */
import { spawn } from "node:child_process";
import { mkdtempSync, rmSync } from "node:fs";
import { connect } from "node:net";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import { freeTcpPort } from "../test/support/free-tcp-port.js";

const argv = process.argv.slice(2);
const option = (name: string, fallback: string): string => {
  const at = argv.indexOf(name);
  return at >= 0 ? (argv[at + 1] ?? fallback) : fallback;
};
const HOSTS = Number(option("--hosts", "40"));
const ROUNDS = Number(option("--rounds", "3"));
const CLI = option("--cli", fileURLToPath(new URL("../src/cli.js", import.meta.url)));
const VPCS = option("--vpcs", "/opt/gns3-peer/bin/vpcs");
// Ranges of their own, below the kernel's ephemeral ports (32768 and up: a connection's local port there
// makes a VPCS console bind fail): other programs on this machine (other test runs) hold consoles at 5000 and up.
const CONSOLES = option("--consoles", "27000-27999").split("-");
const UDP = option("--udp", "28000-28999").split("-");

const dir = mkdtempSync(join(tmpdir(), "netemu-bench-hosts-"));
const port = await freeTcpPort();
const server = spawn(process.execPath, [CLI, "serve", "--host", "127.0.0.1", "--port", String(port), "--config-dir", dir, "--projects-path", join(dir, "projects"), "--vpcs-path", VPCS, "--console-start-port", CONSOLES[0] as string, "--console-end-port", CONSOLES[1] as string, "--udp-start-port", UDP[0] as string, "--udp-end-port", UDP[1] as string], { stdio: ["ignore", "ignore", "pipe"] });
let err = "";
server.stderr.on("data", (d: Buffer) => (err += d.toString()));
const base = `http://127.0.0.1:${port}`;

async function call(method: string, path: string, body?: unknown): Promise<Record<string, unknown>> {
  const response = await fetch(`${base}${path}`, { method, ...(body === undefined ? {} : { headers: { "Content-Type": "application/json" }, body: JSON.stringify(body) }) });
  const text = await response.text();
  if (!response.ok) throw new Error(`${method} ${path}: ${response.status} ${text}`);
  return text === "" ? {} : (JSON.parse(text) as Record<string, unknown>);
}

/** Whether a console answers: a TCP connect to it succeeds. */
const answers = (consolePort: number): Promise<boolean> =>
  new Promise((resolve) => {
    const socket = connect(consolePort, "127.0.0.1");
    socket.once("connect", () => (socket.destroy(), resolve(true)));
    socket.once("error", () => resolve(false));
  });

const timed = async (what: string, run: () => Promise<unknown>): Promise<number> => {
  const t0 = performance.now();
  await run();
  const ms = Math.round(performance.now() - t0);
  process.stdout.write(`${JSON.stringify({ cli: CLI, hosts: HOSTS, what, ms })}\n`);
  return ms;
};

try {
  const t0 = performance.now();
  for (;;) {
    if (server.exitCode !== null) throw new Error(`netemu serve exited: ${err}`);
    try {
      if ((await fetch(`${base}/v2/version`)).ok) break;
    } catch {
      // not listening yet
    }
    if (performance.now() - t0 > 60_000) throw new Error("netemu serve did not answer within 60 s");
    await new Promise((r) => setTimeout(r, 50));
  }
  const project = String((await call("POST", "/v2/projects", { name: "hosts" }))["project_id"]);
  const consoles: number[] = [];
  for (let i = 1; i <= HOSTS; i++) {
    const made = await call("POST", `/v2/projects/${project}/nodes`, { name: `PC${i}`, node_type: "vpcs", compute_id: "local", properties: { startup_script: `ip 10.9.${Math.floor(i / 250)}.${(i % 250) + 1}/16\n` } });
    consoles.push(Number(made["console"]));
  }
  for (let round = 1; round <= ROUNDS; round++) {
    await timed("start all", () => call("POST", `/v2/projects/${project}/nodes/start`, {}));
    const up = await Promise.all(consoles.map(answers));
    if (up.some((u) => !u)) throw new Error(`${up.filter((u) => !u).length} of ${HOSTS} consoles do not answer after start all`);
    await timed("stop all", () => call("POST", `/v2/projects/${project}/nodes/stop`, {}));
  }
  await call("POST", `/v2/projects/${project}/nodes/start`, {});
  await timed("delete with all started", () => call("DELETE", `/v2/projects/${project}`));
} finally {
  const exited = new Promise((r) => server.once("exit", r));
  server.kill("SIGTERM");
  const timer = setTimeout(() => server.kill("SIGKILL"), 20_000);
  await exited;
  clearTimeout(timer);
  rmSync(dir, { recursive: true, force: true });
}
