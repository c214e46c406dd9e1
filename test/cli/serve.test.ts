import { expect } from "chai";
import { spawnSync } from "node:child_process";
import { existsSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { availableParallelism, tmpdir } from "node:os";
import { join } from "node:path";

import { CLI, serve } from "../support/netemu-cli.js";

describe("the netemu command", function () {
  this.timeout(20_000);
  let configDir: string;
  beforeEach(() => (configDir = mkdtempSync(join(tmpdir(), "netemu-cli-"))));
  afterEach(() => rmSync(configDir, { recursive: true, force: true }));

  for (const signal of ["SIGTERM", "SIGINT"] as const) {
    it(`serves the API and stops cleanly on ${signal} within 2 s`, async () => {
      const s = await serve(configDir);
      const r = await fetch(`${s.url}/v2/version`);
      expect(await r.json()).to.deep.equal({ local: true, version: "2.2.59" });
      s.child.kill(signal);
      const { code, ms } = await s.exit;
      expect(code).to.equal(0);
      expect(ms).to.be.below(2000);
    });
  }

  it("runs the data plane in worker threads when asked (--dataplane-workers), and still stops cleanly on SIGTERM", async () => {
    const s = await serve(configDir, ["--dataplane-workers", "2"]);
    const project = "77777777-3333-4444-8555-888888888888";
    expect((await fetch(`${s.url}/v2/compute/projects`, { method: "POST", body: JSON.stringify({ name: "w", project_id: project }) })).status).to.equal(201);
    const sw = (await (await fetch(`${s.url}/v2/compute/projects/${project}/ethernet_switch/nodes`, { method: "POST", body: JSON.stringify({ name: "SW" }) })).json()) as { node_id: string };
    const lport = ((await (await fetch(`${s.url}/v2/compute/projects/${project}/ports/udp`, { method: "POST" })).json()) as { udp_port: number }).udp_port;
    const nio = await fetch(`${s.url}/v2/compute/projects/${project}/ethernet_switch/nodes/${sw.node_id}/adapters/0/ports/0/nio`, {
      method: "POST",
      body: JSON.stringify({ type: "nio_udp", lport, rhost: "127.0.0.1", rport: 9 }),
    });
    expect(nio.status).to.equal(201);
    s.child.kill("SIGTERM");
    const { code, ms } = await s.exit;
    expect(code).to.equal(0);
    expect(ms).to.be.below(2000);
  });

  it("runs the data plane in one worker per core but the API's by default (1 to 8), and on the main thread with --dataplane-workers 0", async () => {
    const byDefault = await serve(configDir);
    expect(byDefault.listening.dataPlaneWorkers).to.equal(Math.max(1, Math.min(8, availableParallelism() - 1)));
    byDefault.child.kill("SIGTERM");
    expect((await byDefault.exit).code).to.equal(0);
    const inThread = await serve(configDir, ["--dataplane-workers", "0"]);
    expect(inThread.listening.dataPlaneWorkers).to.equal(0);
    inThread.child.kill("SIGTERM");
    expect((await inThread.exit).code).to.equal(0);
  });

  it("refuses a worker count outside 0..64 with status 2", () => {
    const r = spawnSync(process.execPath, [CLI, "serve", "--config-dir", configDir, "--dataplane-workers", "65"], { encoding: "utf8", timeout: 10_000 });
    expect(r.status).to.equal(2);
    expect(r.stderr).to.include("--dataplane-workers must be an integer between 0 and 64");
  });

  it("exits 0 after POST /v2/shutdown", async () => {
    const s = await serve(configDir);
    const r = await fetch(`${s.url}/v2/shutdown`, { method: "POST" });
    expect(r.status).to.equal(201);
    expect((await s.exit).code).to.equal(0);
  });

  it("takes settings from flags over the environment over the config file", async () => {
    writeFileSync(join(configDir, "gns3_server.conf"), "[Server]\nlocal = false\ngns3_version = 2.2.50\n");
    const fromFile = await serve(configDir);
    expect(await (await fetch(`${fromFile.url}/v2/version`)).json()).to.deep.equal({ local: false, version: "2.2.50" });
    fromFile.child.kill("SIGTERM");
    await fromFile.exit;
    const fromEnv = await serve(configDir, ["--gns3-version", "2.2.55"], { NETEMU_LOCAL: "true", NETEMU_GNS3_VERSION: "2.2.54" });
    expect(await (await fetch(`${fromEnv.url}/v2/version`)).json()).to.deep.equal({ local: true, version: "2.2.55" });
    fromEnv.child.kill("SIGTERM");
    await fromEnv.exit;
  });

  it("serves /v3/compute with the v3 version and credential choice given on the command line, beside /v2", async () => {
    const open = await serve(configDir, ["--gns3-v3-version", "3.0.5", "--v3-no-auth"]);
    try {
      expect(await (await fetch(`${open.url}/v3/compute/version`)).json()).to.deep.equal({ version: "3.0.5" });
      expect(await (await fetch(`${open.url}/v2/version`)).json()).to.deep.equal({ local: true, version: "2.2.59" });
    } finally {
      open.child.kill("SIGTERM");
      await open.exit;
    }
    const closed = await serve(configDir);
    try {
      expect((await fetch(`${closed.url}/v3/compute/version`)).status, "no --auth and no --v3-no-auth").to.equal(401);
    } finally {
      closed.child.kill("SIGTERM");
      await closed.exit;
    }
  });

  it("refuses a bad setting with a clear message and status 2", () => {
    const r = spawnSync(process.execPath, [CLI, "serve", "--config-dir", configDir, "--port", "70000"], { encoding: "utf8", timeout: 10_000 });
    expect(r.status).to.equal(2);
    expect(r.stderr).to.include("--port must be an integer between 0 and 65535");
  });

  it("reports a corrupt settings file with its path and line, and leaves it as it is", () => {
    const file = join(configDir, "gns3_controller.conf");
    writeFileSync(file, '{\n  "iou_license": {\n    "license_check": tru\n  }\n}\n');
    const r = spawnSync(process.execPath, [CLI, "serve", "--config-dir", configDir, "--port", "0"], { encoding: "utf8", timeout: 10_000 });
    expect(r.status).to.equal(2);
    expect(r.stderr).to.include(file).and.include("line 3");
    expect(readFileSync(file, "utf8")).to.include("tru\n");
  });

  it("reports a corrupt server config with its path and line", () => {
    const file = join(configDir, "gns3_server.conf");
    writeFileSync(file, "[Server]\nport = 3080\nthis line is wrong\n");
    const r = spawnSync(process.execPath, [CLI, "serve", "--config-dir", configDir], { encoding: "utf8", timeout: 10_000 });
    expect(r.status).to.equal(2);
    expect(r.stderr).to.include(file).and.include("line 3");
  });

  it("prints its help and version", () => {
    const help = spawnSync(process.execPath, [CLI, "serve", "--help"], { encoding: "utf8" });
    expect(help.status).to.equal(0);
    expect(help.stdout).to.include("--udp-start-port");
    const version = spawnSync(process.execPath, [CLI, "--version"], { encoding: "utf8" });
    expect(version.stdout.trim()).to.match(/^\d+\.\d+\.\d+/);
    expect(existsSync(CLI)).to.equal(true);
  });
});
