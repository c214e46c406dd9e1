import { expect } from "chai";
import { spawn, spawnSync, type ChildProcess } from "node:child_process";
import { chmodSync, cpSync, existsSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { connect } from "node:net";
import { freeTcpPort } from "../support/free-tcp-port.js";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import { requireTool } from "../support/vpcs.js";
import { gns3PeerPrefix, requireGns3Peer } from "../support/gns3-peer.js";
import { PEER_VPCS_TOOL, shellBlocks } from "../support/readme-blocks.js";

const ROOT = fileURLToPath(new URL("../../../", import.meta.url));
const CLI = join(ROOT, "dist", "cli.js");
const BLOCK_MS = 90_000;
/** The VPCS the README's lab blocks run (GNS3's 0.8.3, as .ci/run installs it; Debian's 0.5b2 on PATH runs nodes too, ADR 0088). */
const PEER_VPCS = join(gns3PeerPrefix(), "bin", "vpcs");
/**
 * `npm` and `npx` as the README's reader has them, with two differences: `npm install` does nothing
 * (the test runs where the dependencies are installed, and must not change them) and `npm start`
 * runs what its script runs after its build step (npm test built dist/ already); `npx netemu` is
 * the package's own command. Anything else goes to the real npm and npx.
 */
function shims(dir: string): string {
  const real = (tool: string) => spawnSync("sh", ["-c", `command -v ${tool}`], { encoding: "utf8" }).stdout.trim();
  const bin = join(dir, "bin");
  spawnSync("mkdir", ["-p", bin]);
  const write = (name: string, text: string) => {
    writeFileSync(join(bin, name), text);
    chmodSync(join(bin, name), 0o755);
  };
  write(
    "npm",
    `#!/bin/sh\ncase "$1" in\n  install|ci) exit 0 ;;\n  start) shift; [ "$1" = "--" ] && shift; exec "${process.execPath}" "${CLI}" serve "$@" ;;\n  *) exec "${real("npm")}" "$@" ;;\nesac\n`,
  );
  write("npx", `#!/bin/sh\nif [ "$1" = "netemu" ]; then shift; exec "${process.execPath}" "${CLI}" "$@"; fi\nexec "${real("npx")}" "$@"\n`);
  return bin;
}

/** A `netemu serve` for the blocks that talk to a running server; answers once it listens. */
async function startNetemu(port: number, configDir: string): Promise<ChildProcess> {
  const child = spawn(process.execPath, [CLI, "serve", "--host", "127.0.0.1", "--port", String(port), "--config-dir", configDir, "--log-level", "warn"], {
    stdio: "ignore",
    // netemu runs `vpcs` from PATH unless told: Debian's 0.5b2 there is refused, the GNS3 peer's 0.8.3 is not.
    env: existsSync(PEER_VPCS) ? { ...process.env, NETEMU_VPCS_PATH: PEER_VPCS } : process.env,
  });
  const deadline = Date.now() + 10_000;
  for (;;) {
    const answered = await fetch(`http://127.0.0.1:${port}/v2/version`).then(
      () => true,
      () => false,
    );
    if (answered) return child;
    if (child.exitCode !== null || Date.now() > deadline) throw new Error(`netemu serve did not start on ${port}`);
    await new Promise((r) => setTimeout(r, 100));
  }
}

/** Stops a VPCS daemon the block may have left (it stops when told `quit` on its console). */
async function quitVpcs(consolePort: number): Promise<void> {
  await new Promise<void>((resolve) => {
    const socket = connect(consolePort, "127.0.0.1", () => setTimeout(() => socket.end("quit\n"), 500));
    socket.on("error", () => resolve());
    socket.on("close", () => resolve());
    setTimeout(() => (socket.destroy(), resolve()), 3_000);
  });
}

interface BlockRun {
  readonly code: number | null;
  readonly output: string;
}

/** Runs the block in its own process group with bash -e -o pipefail, bounded in time; kills what it left. */
async function runBlock(text: string, cwd: string, env: NodeJS.ProcessEnv): Promise<BlockRun> {
  const child = spawn("bash", ["-e", "-o", "pipefail", "-c", text], { cwd, env, detached: true, stdio: ["ignore", "pipe", "pipe"] });
  let output = "";
  child.stdout.on("data", (d: Buffer) => (output += d.toString()));
  child.stderr.on("data", (d: Buffer) => (output += d.toString()));
  const timer = setTimeout(() => process.kill(-(child.pid as number), "SIGKILL"), BLOCK_MS);
  const code = await new Promise<number | null>((resolve) => child.once("exit", (c) => resolve(c)));
  clearTimeout(timer);
  try {
    process.kill(-(child.pid as number), "SIGKILL"); // a server the block left in the background, say
  } catch {
    // The group is gone already.
  }
  return { code, output };
}

describe("the README's shell blocks", function () {
  const blocks = shellBlocks(readFileSync(join(ROOT, "README.md"), "utf8"));

  it("are each run by this test or say why not", () => {
    expect(blocks.length).to.be.greaterThan(0);
    // The quick tour is run by test/docs/readme-tour.test.ts, on a fresh clone: one block, starting the server.
    const tours = blocks.filter((b) => b.directive.kind === "tour");
    expect(tours, "one block is the quick tour").to.have.length(1);
    expect(tours[0]?.text, "the quick tour starts the server").to.include("npm start");
    // A block the test does not run must say why, in the README itself (parsed above: a skip without a reason throws).
    for (const b of blocks) if (b.directive.kind === "skip") expect(b.directive.reason, `README line ${b.line}`).to.match(/\w{3,}/);
  });

  // The blocks the README marks `skip` (with their reason) get no test of their own: nothing here could fail.
  // The tour has its own test, on a fresh clone (test/docs/readme-tour.test.ts).
  for (const block of blocks.filter((b) => b.directive.kind !== "skip" && b.directive.kind !== "tour")) {
    const firstLine = block.text.split("\n")[0] as string;
    it(`run as written: line ${block.line}, ${firstLine.slice(0, 60)}`, async function () {
      this.timeout(BLOCK_MS + 30_000);
      const d = block.directive;
      if (d.kind === "needs") {
        if (d.tool === PEER_VPCS_TOOL) requireGns3Peer(this);
        else requireTool(this, d.tool, d.tool);
      }
      const dir = mkdtempSync(join(tmpdir(), "netemu-readme-"));
      const port = await freeTcpPort();
      // A block that starts its own server gets none from the test: both would want the port.
      const startsServer = /\bnpm start\b|\bnetemu serve\b/.test(block.text);
      let server: ChildProcess | undefined;
      try {
        if (!startsServer) server = await startNetemu(port, join(dir, "config"));
        const text = block.text.replace(/\b3080\b/g, String(port));
        const env: NodeJS.ProcessEnv = { ...process.env, PATH: `${shims(dir)}:${process.env["PATH"] ?? ""}`, NETEMU_CONFIG_DIR: join(dir, "config"), NETEMU_LOG_LEVEL: "warn" };
        // `npm start` serves on 3080 unless told: the same replacement, through netemu's environment.
        env["NETEMU_PORT"] = String(port);
        // `netemu lab` talks to 127.0.0.1:3080 unless told: the test's server instead.
        env["NETEMU_SERVER"] = `http://127.0.0.1:${port}`;
        // The lab files the README names (labs/vpcs.yml), where the block runs.
        cpSync(join(ROOT, "labs"), join(dir, "labs"), { recursive: true });
        const { code, output } = await runBlock(text, dir, env);
        expect(code, output).to.equal(0);
        expect(output, "no GNS3 error answer").not.to.match(/"status": [45]\d\d/);
      } finally {
        for (const m of block.text.matchAll(/\bvpcs -p (\d+)/g)) await quitVpcs(Number(m[1]));
        if (server !== undefined && server.exitCode === null) {
          const exited = new Promise((resolve) => server?.once("exit", resolve));
          server.kill("SIGTERM");
          await exited;
        }
        rmSync(dir, { recursive: true, force: true });
      }
    });
  }
});
