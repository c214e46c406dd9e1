import { expect } from "chai";
import { spawnSync } from "node:child_process";
import { closeSync, mkdirSync, mkdtempSync, openSync, readFileSync, rmSync, writeSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { serve, type Served } from "../support/netemu-cli.js";

/** Root and a tmpfs mount are needed: without them the test skips, but under CI=true it fails. */
function unavailable(reason: string, ctx: Mocha.Context): void {
  const message = `full-disk test skipped: ${reason}`;
  if (process.env["CI"] === "true") throw new Error(`${message} (CI=true: a missing requirement fails the run)`);
  console.log(`      ${message}`);
  ctx.skip();
}

async function call(s: Served, method: string, path: string, body?: unknown): Promise<{ status: number; json: any; text: string }> {
  const r = await fetch(`${s.url}${path}`, { method, ...(body === undefined ? {} : { body: JSON.stringify(body) }) });
  const text = await r.text();
  let json: unknown;
  try {
    json = JSON.parse(text);
  } catch {
    json = undefined;
  }
  return { status: r.status, json, text };
}

/** Asks until the readiness route answers `status`, a bounded number of times. */
async function readiness(s: Served, status: number): Promise<any> {
  let last: { status: number; json: unknown } | undefined;
  for (let i = 0; i < 300; i++) {
    last = await call(s, "GET", "/v2/netemu/ready");
    if (last.status === status) return last.json;
    await new Promise((resolve) => setTimeout(resolve, 50));
  }
  throw new Error(`/v2/netemu/ready never answered ${status}; last: ${JSON.stringify(last)}`);
}

/** Reads `file` until it holds `text`, a bounded number of times (the write runs after the answer). */
async function fileSays(file: string, text: string): Promise<string> {
  let content = "";
  for (let i = 0; i < 300; i++) {
    try {
      content = readFileSync(file, "utf8");
    } catch {
      content = "";
    }
    if (content.includes(text)) return content;
    await new Promise((resolve) => setTimeout(resolve, 20));
  }
  throw new Error(`${file} never held ${text}`);
}

/** Writes `file` until the file system is full; answers how many bytes it took. */
function fill(file: string): number {
  const fd = openSync(file, "w");
  const chunk = Buffer.alloc(16 * 1024, 1);
  let written = 0;
  try {
    for (;;) {
      try {
        written += writeSync(fd, chunk);
      } catch (err) {
        if ((err as NodeJS.ErrnoException).code === "ENOSPC") return written;
        throw err;
      }
    }
  } finally {
    closeSync(fd);
  }
}

describe("a full disk under netemu serve (a 2 MB tmpfs, as root; ADR 0057)", function () {
  this.timeout(60_000);
  let mountPoint: string | undefined;
  const configDirs: string[] = [];
  let running: Served | undefined;

  before(function () {
    if (process.getuid?.() !== 0) return unavailable("not root (mounting a tmpfs needs it)", this);
    const dir = mkdtempSync(join(tmpdir(), "netemu-tmpfs-"));
    const mounted = spawnSync("mount", ["-t", "tmpfs", "-o", "size=2m", "tmpfs", dir], { encoding: "utf8", timeout: 10_000 });
    if (mounted.status !== 0) {
      rmSync(dir, { recursive: true, force: true });
      return unavailable(`mount -t tmpfs failed: ${mounted.stderr.trim() || mounted.error?.message}`, this);
    }
    mountPoint = dir;
  });
  after(async () => {
    if (running !== undefined && running.child.exitCode === null) {
      running.child.kill("SIGKILL");
      await running.exit;
    }
    if (mountPoint !== undefined) {
      spawnSync("umount", [mountPoint], { timeout: 10_000 });
      rmSync(mountPoint, { recursive: true, force: true });
    }
    for (const dir of configDirs) rmSync(dir, { recursive: true, force: true });
  });

  it("keeps a node rename the full disk refused, answers not ready meanwhile, and writes it once there is room (it survives kill -9)", async () => {
    const tmpfs = mountPoint as string;
    const configDir = mkdtempSync(join(tmpdir(), "netemu-full-disk-"));
    configDirs.push(configDir);
    const projectsPath = join(tmpfs, "projects");
    const s = (running = await serve(configDir, ["--projects-path", projectsPath]));
    const p = (await call(s, "POST", "/v2/projects", { name: "lab" })).json.project_id as string;
    const node = (await call(s, "POST", `/v2/projects/${p}/nodes`, { name: "SW1", node_type: "ethernet_switch", compute_id: "local" })).json;
    const file = join(projectsPath, p, "lab.gns3");
    await fileSays(file, '"name": "SW1"');

    const filler = join(tmpfs, "filler");
    expect(fill(filler)).to.be.greaterThan(0);
    const renamed = await call(s, "PUT", `/v2/projects/${p}/nodes/${node.node_id}`, { name: "core" });
    expect(renamed.status).to.equal(200);
    const behind = await readiness(s, 503);
    expect(behind.unwritten_projects.map((u: { project_id: string; code: string }) => [u.project_id, u.code])).to.deep.equal([[p, "ENOSPC"]]);
    expect((await call(s, "GET", "/metrics")).text).to.match(/netemu_project_write_failures_total\{code="ENOSPC"\} [1-9]/);
    expect(readFileSync(file, "utf8"), "the old file is intact").to.include('"name": "SW1"');

    rmSync(filler);
    await readiness(s, 200);
    expect(readFileSync(file, "utf8")).to.include('"name": "core"');
    s.child.kill("SIGKILL");
    await s.exit;
    expect(readFileSync(file, "utf8")).to.include('"name": "core"');
    const log = s.stdout();
    expect(log.match(/project file could not be written: retrying until it can/g) ?? []).to.have.length(1);
    expect(log.match(/project file written again/g) ?? []).to.have.length(1);
  });

  it("ends a SIGTERM on a disk that stays full after its bound, naming the project whose change is lost, the old file intact", async () => {
    const tmpfs = mountPoint as string;
    rmSync(join(tmpfs, "projects"), { recursive: true, force: true });
    const configDir = mkdtempSync(join(tmpdir(), "netemu-full-disk-"));
    configDirs.push(configDir);
    const projectsPath = join(tmpfs, "projects");
    const s = (running = await serve(configDir, ["--projects-path", projectsPath]));
    const p = (await call(s, "POST", "/v2/projects", { name: "lab" })).json.project_id as string;
    const node = (await call(s, "POST", `/v2/projects/${p}/nodes`, { name: "SW1", node_type: "ethernet_switch", compute_id: "local" })).json;
    const file = join(projectsPath, p, "lab.gns3");
    await fileSays(file, '"name": "SW1"');
    const filler = join(tmpfs, "filler");
    fill(filler);
    try {
      expect((await call(s, "PUT", `/v2/projects/${p}/nodes/${node.node_id}`, { name: "core" })).status).to.equal(200);
      await readiness(s, 503);
      s.child.kill("SIGTERM");
      expect((await s.exit).code).to.equal(0);
    } finally {
      rmSync(filler, { force: true });
    }
    const lost = s
      .stdout()
      .split("\n")
      .filter((l) => l.includes("project files not written at shutdown"))
      .map((l) => JSON.parse(l) as { level: number; projects: { projectId: string; code: string }[] });
    expect(lost.map((l) => l.projects.map((x) => [x.projectId, x.code]))).to.deep.equal([[[p, "ENOSPC"]]]);
    expect(readFileSync(file, "utf8")).to.include('"name": "SW1"');
  });
});
