import { expect } from "chai";
import { spawn, spawnSync } from "node:child_process";
import { existsSync, mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import { serve, type Served } from "../support/netemu-cli.js";
import { DEBIAN_VPCS, GNS3_PEER_VPCS, VpcsConsole } from "../support/vpcs-console.js";

const ROOT = fileURLToPath(new URL("../../../", import.meta.url));
const FLOW = join(ROOT, "test", "fixtures", "gns3fy-flow.py");
const VPCS_FLOW = join(ROOT, "test", "fixtures", "gns3fy-vpcs-flow.py");
/** gns3fy 0.7.2's unmodified source, kept beside the repository (shared/clients/README.md). */
const GNS3FY_TARBALL = join(ROOT, "..", "shared", "clients", "gns3fy-0.7.2.tar.gz");
/** Debian's Python: gns3fy runs on its python3-requests and python3-pydantic (1.10), not on a pydantic 2 elsewhere on PATH. */
const PYTHON = "/usr/bin/python3";

/** Skips the suite saying what is missing; under CI=true a missing piece fails the run instead. */
function requireGns3fyRuntime(ctx: Mocha.Context): void {
  let message: string | undefined;
  if (!existsSync(GNS3FY_TARBALL)) message = `gns3fy's source is missing: ${GNS3FY_TARBALL}`;
  else if (spawnSync(PYTHON, ["-c", "import requests, pydantic; assert pydantic.VERSION.startswith('1.')"]).status !== 0) {
    message = "python3-requests and python3-pydantic (1.x) are not installed: apt-get update && apt-get install -y python3-requests python3-pydantic";
  }
  if (message === undefined) return;
  if (process.env["CI"] === "true") throw new Error(`${message} (CI=true: a missing package fails the run)`);
  console.log(`      skipped: ${message}`);
  ctx.skip();
}

/** Runs the flow script to its end, or kills it (by pid) after `ms`. */
function runFlow(gns3fyDir: string, url: string, ms: number): Promise<{ status: number | null; out: string }> {
  return new Promise((resolve) => {
    const child = spawn(PYTHON, [FLOW, url], { env: { ...process.env, PYTHONPATH: gns3fyDir, PYTHONDONTWRITEBYTECODE: "1" } });
    let out = "";
    child.stdout.on("data", (d: Buffer) => (out += d.toString()));
    child.stderr.on("data", (d: Buffer) => (out += d.toString()));
    const timer = setTimeout(() => {
      out += `\n(killed after ${ms} ms)`;
      child.kill("SIGKILL");
    }, ms);
    child.once("exit", (status) => {
      clearTimeout(timer);
      resolve({ status, out });
    });
  });
}

describe("end to end: gns3fy 0.7.2 drives a lab on netemu's controller API", function () {
  this.timeout(60_000);
  let dir: string;
  let server: Served | undefined;

  before(function () {
    requireGns3fyRuntime(this);
    dir = mkdtempSync(join(tmpdir(), "netemu-gns3fy-"));
    const untar = spawnSync("tar", ["-xzf", GNS3FY_TARBALL, "-C", dir]);
    expect(untar.status, untar.stderr.toString()).to.equal(0);
  });

  after(async () => {
    if (server !== undefined && server.child.exitCode === null) {
      server.child.kill("SIGTERM");
      await server.exit;
    }
    if (dir !== undefined) rmSync(dir, { recursive: true, force: true });
  });

  it("runs a gns3fy script through every step: version, computes, templates, nodes from the switch template, links by port names, filters, Project.get() and Node.get(), start/stop, close leaving the project closed, delete", async () => {
    server = await serve(join(dir, "config"));
    const flow = await runFlow(join(dir, "gns3fy-0.7.2"), server.url, 45_000);
    expect(flow.out, `the script's output:\n${flow.out}`).to.include("gns3fy flow: ok");
    expect(flow.status).to.equal(0);
  });

  for (const [version, vpcsPath] of [["0.5b2, Debian's, the vpcs on PATH", DEBIAN_VPCS], ["0.8.3, GNS3's", GNS3_PEER_VPCS]] as const) {
    it(`makes GNS3's hello world from the built-in VPCS template: two PCs and a switch, linked, started, pinging from their consoles, stopped, deleted (VPCS ${version})`, async function () {
      if (!existsSync(vpcsPath)) this.skip();
      if (server !== undefined && server.child.exitCode === null) {
        server.child.kill("SIGTERM");
        await server.exit;
      }
      server = await serve(join(dir, `config-vpcs-${version.slice(0, 5)}`), vpcsPath === DEBIAN_VPCS ? [] : ["--vpcs-path", vpcsPath]);
      const child = spawn(PYTHON, [VPCS_FLOW, server.url], { env: { ...process.env, PYTHONPATH: join(dir, "gns3fy-0.7.2"), PYTHONDONTWRITEBYTECODE: "1" } });
      let out = "";
      child.stdout.on("data", (d: Buffer) => (out += d.toString()));
      child.stderr.on("data", (d: Buffer) => (out += d.toString()));
      const exited = new Promise<number | null>((resolve) => child.once("exit", resolve));
      const consoles: VpcsConsole[] = [];
      try {
        const deadline = Date.now() + 30_000;
        while (!/^consoles: /m.test(out) && child.exitCode === null && Date.now() < deadline) await new Promise((r) => setTimeout(r, 100));
        const line = /^consoles: (.*)$/m.exec(out);
        expect(line, `the script's output:\n${out}`).to.not.equal(null);
        const ports = JSON.parse((line as RegExpExecArray)[1] as string) as Record<string, number>;
        const [pc1, pc2] = [await VpcsConsole.open(ports["pc1"] as number), await VpcsConsole.open(ports["pc2"] as number)];
        consoles.push(pc1, pc2);
        await pc1.command("ip 10.0.7.1/24");
        await pc2.command("ip 10.0.7.2/24");
        const ping = await pc1.ping("10.0.7.2", 3);
        expect(ping.replies, ping.output).to.be.at.least(2);
      } finally {
        for (const c of consoles) c.close();
        child.stdin.end("done\n");
      }
      const status = await Promise.race([exited, new Promise<"timeout">((r) => setTimeout(() => r("timeout"), 20_000))]);
      if (status === "timeout") child.kill("SIGKILL");
      expect(out, `the script's output:\n${out}`).to.include("gns3fy vpcs flow: ok");
      expect(status).to.equal(0);
    });
  }
});
