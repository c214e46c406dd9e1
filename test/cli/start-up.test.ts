import { expect } from "chai";
import { spawn, spawnSync } from "node:child_process";
import { mkdirSync, mkdtempSync, readFileSync, readdirSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { fileURLToPath } from "node:url";

const ROOT = fileURLToPath(new URL("../../../", import.meta.url));
const CLI = join(ROOT, "dist", "cli.js");

function serveOnce(args: string[], env: Record<string, string> = {}) {
  return spawnSync(process.execPath, [CLI, "serve", "--host", "127.0.0.1", "--port", "0", "--dataplane-workers", "0", ...args], {
    encoding: "utf8",
    timeout: 10_000,
    env: { ...process.env, NETEMU_LOG_LEVEL: "silent", ...env },
  });
}

/** Starts `netemu serve`, waits for its "netemu listening" line, then stops it with SIGTERM; answers its log. */
async function serveAndStop(args: string[]): Promise<{ code: number | null; log: string }> {
  const child = spawn(process.execPath, [CLI, "serve", "--host", "127.0.0.1", "--port", "0", "--dataplane-workers", "0", ...args]);
  let log = "";
  child.stdout.on("data", (d: Buffer) => (log += d.toString()));
  child.stderr.on("data", (d: Buffer) => (log += d.toString()));
  const exit = new Promise<number | null>((resolve) => child.once("exit", (code) => resolve(code)));
  const deadline = Date.now() + 10_000;
  while (!log.includes('"msg":"netemu listening"')) {
    if (child.exitCode !== null || Date.now() > deadline) {
      child.kill("SIGKILL");
      throw new Error(`netemu serve did not start: ${log}`);
    }
    await new Promise((r) => setTimeout(r, 50));
  }
  child.kill("SIGTERM");
  return { code: await exit, log };
}

/** One line on stderr, "netemu: ...", and no stack trace. */
function expectOneLine(stderr: string): void {
  expect(stderr.trimEnd().split("\n"), stderr).to.have.length(1);
  expect(stderr).to.match(/^netemu: /);
  expect(stderr).not.to.match(/^\s+at /m);
}

describe("netemu serve start-up checks", function () {
  this.timeout(20_000);
  let dir: string;
  beforeEach(() => (dir = mkdtempSync(join(tmpdir(), "netemu-start-"))));
  afterEach(() => rmSync(dir, { recursive: true, force: true }));

  // CI runs as root, which writes through any permission: a path under a regular file is one even root cannot create.
  it("refuses to start, in one line with status 2, when the config directory cannot be written", () => {
    writeFileSync(join(dir, "a-file"), "");
    const configDir = join(dir, "a-file", "config");
    const r = serveOnce(["--config-dir", configDir]);
    expect(r.status, r.stderr).to.equal(2);
    expectOneLine(r.stderr);
    expect(r.stderr).to.equal(`netemu: Cannot create the config directory ${configDir}: not a directory (ENOTDIR)\n`);
  });

  it("refuses to start, in one line with status 2, when gns3_controller.conf is a directory", () => {
    mkdirSync(join(dir, "gns3_controller.conf"));
    const r = serveOnce(["--config-dir", dir]);
    expect(r.status, r.stderr).to.equal(2);
    expectOneLine(r.stderr);
    expect(r.stderr).to.include(join(dir, "gns3_controller.conf")).and.include("EISDIR");
  });

  it("refuses to start with --auth but no user, as GNS3 does, instead of answering 401 to everything", () => {
    const r = serveOnce(["--config-dir", dir, "--auth"]);
    expect(r.status).to.equal(2);
    expectOneLine(r.stderr);
    expect(r.stderr).to.include("no user is set");
  });

  it("refuses a gns3_server.conf with two [Server] sections, naming the file and the line", () => {
    const file = join(dir, "gns3_server.conf");
    writeFileSync(file, "[Server]\nport = 3080\n\n[Server]\nlocal = false\n");
    const r = serveOnce(["--config-dir", dir]);
    expect(r.status).to.equal(2);
    expectOneLine(r.stderr);
    expect(r.stderr).to.include(file).and.include("line 4").and.include("[Server] appears a second time");
  });

  it("removes the temporary settings files a killed writer left, and keeps the settings file whole", async () => {
    const file = join(dir, "gns3_controller.conf");
    const writer = spawn(process.execPath, [fileURLToPath(new URL("../support/write-settings-forever.js", import.meta.url)), dir]);
    await new Promise((resolve) => writer.stdout.once("data", resolve));
    await new Promise((r) => setTimeout(r, 300 + Math.random() * 200));
    writer.kill("SIGKILL");
    await new Promise((resolve) => writer.once("exit", resolve));
    // Whatever the moment of the kill, the file is a whole one (or still absent), never half of one.
    const before = readdirSync(dir);
    if (before.includes("gns3_controller.conf")) expect(() => JSON.parse(readFileSync(file, "utf8"))).not.to.throw();
    // And a temporary of a writer killed at another moment, as it may be: empty, half or whole.
    const dead = spawnSync(process.execPath, ["-e", ""]).pid as number;
    writeFileSync(`${file}.${dead}.tmp`, '{"iou_lic');
    const { code, log } = await serveAndStop(["--config-dir", dir]);
    expect(code, log).to.equal(0);
    expect(readdirSync(dir).filter((f) => f.endsWith(".tmp")), log).to.deep.equal([]);
    expect(log).to.include("removed temporary settings files");
  });

  it("stops on SIGTERM within 2 s even when the reader of its standard output went away (netemu serve | head -1)", async () => {
    for (const workers of ["0", "1"]) {
      const child = spawn(process.execPath, [CLI, "serve", "--host", "127.0.0.1", "--port", "0", "--config-dir", dir, "--dataplane-workers", workers], {
        stdio: ["ignore", "pipe", "ignore"],
      });
      const exit = new Promise<string>((resolve) => child.once("exit", (code, signal) => resolve(`${code ?? signal}`)));
      const first = await new Promise<string>((resolve) => child.stdout.once("data", (d: Buffer) => resolve(d.toString())));
      child.stdout.destroy(); // as head -1 exits after its line
      child.kill("SIGTERM");
      const began = Date.now();
      const timeout = setTimeout(() => child.kill("SIGKILL"), 5_000);
      const code = await exit;
      clearTimeout(timeout);
      expect(code, `workers ${workers}: ${first}`).to.equal("0");
      expect(Date.now() - began).to.be.below(2_000);
    }
  });
});
