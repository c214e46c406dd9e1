import { expect } from "chai";
import { spawn, spawnSync, type ChildProcessWithoutNullStreams } from "node:child_process";
import { existsSync, mkdirSync, mkdtempSync, readFileSync, readdirSync, rmSync, writeFileSync } from "node:fs";
import { hostname, tmpdir } from "node:os";
import { join } from "node:path";
import { CLI } from "../support/netemu-cli.js";
import { createNetemu } from "../../src/adapters/composition-root.js";
import { ProjectsPathLocked } from "../../src/adapters/persistence/projects-path-lock.js";

interface Running {
  readonly child: ChildProcessWithoutNullStreams;
  readonly url: string;
  readonly exit: Promise<number | null>;
  log(): string;
}

const ARGS = ["serve", "--host", "127.0.0.1", "--port", "0", "--dataplane-workers", "0"];

/** `netemu serve` on 127.0.0.1:0, once its "netemu listening" line is out; its whole log stays readable. */
async function start(configDir: string): Promise<Running> {
  const child = spawn(process.execPath, [CLI, ...ARGS, "--config-dir", configDir]);
  let log = "";
  child.stdout.on("data", (d: Buffer) => (log += d.toString()));
  child.stderr.on("data", (d: Buffer) => (log += d.toString()));
  const exit = new Promise<number | null>((resolve) => child.once("exit", (code) => resolve(code)));
  const deadline = Date.now() + 10_000;
  for (;;) {
    const line = log.split("\n").find((l) => l.includes('"msg":"netemu listening"'));
    if (line !== undefined) return { child, url: (JSON.parse(line) as { url: string }).url, exit, log: () => log };
    if (child.exitCode !== null || Date.now() > deadline) {
      child.kill("SIGKILL");
      throw new Error(`netemu serve did not start: ${log}`);
    }
    await new Promise((r) => setTimeout(r, 50));
  }
}

/** A start that is expected to end by itself (refused): its status and stderr. */
function startRefused(configDir: string): { status: number | null; stderr: string } {
  const r = spawnSync(process.execPath, [CLI, ...ARGS, "--config-dir", configDir], { encoding: "utf8", timeout: 10_000, env: { ...process.env, NETEMU_LOG_LEVEL: "silent" } });
  return { status: r.status, stderr: r.stderr };
}

async function stop(running: Running): Promise<number | null> {
  const timer = setTimeout(() => running.child.kill("SIGKILL"), 10_000);
  running.child.kill("SIGTERM");
  const code = await running.exit;
  clearTimeout(timer);
  return code;
}

/** The pid of a process that has exited: no process has it (until the system reuses it). */
const deadPid = (): number => spawnSync(process.execPath, ["-e", ""]).pid as number;

describe("One server per projects path", function () {
  this.timeout(40_000);
  let dir: string;
  let running: Running[];
  beforeEach(() => {
    dir = mkdtempSync(join(tmpdir(), "netemu-lock-"));
    running = [];
  });
  afterEach(async () => {
    for (const r of running) if (r.child.exitCode === null) await stop(r);
    rmSync(dir, { recursive: true, force: true });
  });
  const lockFile = (): string => join(dir, "projects", ".netemu.lock");

  it("refuses a second netemu serve on the same projects path, naming the first's pid and address, and leaves the first's lock", async () => {
    const first = await start(dir);
    running.push(first);
    const held = readFileSync(lockFile(), "utf8");
    expect(JSON.parse(held)).to.deep.include({ pid: first.child.pid, host: hostname(), address: "127.0.0.1", port: Number(new URL(first.url).port) });
    const second = startRefused(dir);
    expect(second.status, second.stderr).to.equal(1);
    expect(second.stderr.trimEnd().split("\n")).to.have.length(1);
    expect(second.stderr).to.match(/^netemu: the projects path /);
    expect(second.stderr).to.include(`pid ${first.child.pid}`).and.include(first.url);
    expect(readFileSync(lockFile(), "utf8")).to.equal(held);
    expect((await fetch(`${first.url}/v2/version`)).status).to.equal(200);
  });

  it("lets a second server start once the first has stopped (SIGTERM removes the lock)", async () => {
    const first = await start(dir);
    running.push(first);
    expect(await stop(first)).to.equal(0);
    expect(existsSync(lockFile())).to.equal(false);
    const second = await start(dir);
    running.push(second);
    expect(JSON.parse(readFileSync(lockFile(), "utf8"))).to.deep.include({ pid: second.child.pid });
  });

  it("removes the lock on POST /v2/shutdown", async () => {
    const first = await start(dir);
    running.push(first);
    expect((await fetch(`${first.url}/v2/shutdown`, { method: "POST" })).status).to.equal(201);
    expect(await first.exit).to.equal(0);
    expect(readdirSync(join(dir, "projects"))).to.deep.equal([]);
  });

  it("takes over the lock of a server killed with -9 (its pid is gone), and says so in the log", async () => {
    const killed = await start(dir);
    running.push(killed);
    killed.child.kill("SIGKILL");
    await killed.exit;
    expect(existsSync(lockFile())).to.equal(true);
    const next = await start(dir);
    running.push(next);
    expect(next.log()).to.include('"msg":"took over the lock of a netemu that is gone"').and.include(`"deadPid":${killed.child.pid}`);
    expect(JSON.parse(readFileSync(lockFile(), "utf8"))).to.deep.include({ pid: next.child.pid });
  });

  it("takes over a stale lock file naming a dead pid of this host", async () => {
    mkdirSync(join(dir, "projects"));
    writeFileSync(lockFile(), JSON.stringify({ pid: deadPid(), host: hostname(), address: "127.0.0.1", port: 3080, startedAt: "2020-01-01T00:00:00.000Z" }));
    const next = await start(dir);
    running.push(next);
    expect(next.log()).to.include("took over the lock");
  });

  it("refuses a lock held on another host (its pid cannot be checked from here), naming that host", () => {
    mkdirSync(join(dir, "projects"));
    writeFileSync(lockFile(), JSON.stringify({ pid: deadPid(), host: "elsewhere.example", address: "10.0.0.5", port: 3080, startedAt: "2020-01-01T00:00:00.000Z" }));
    const r = startRefused(dir);
    expect(r.status).to.equal(1);
    expect(r.stderr).to.include("on elsewhere.example serving http://10.0.0.5:3080");
  });

  it("refuses, with status 2 and one line, a projects path that cannot be made a directory", () => {
    writeFileSync(join(dir, "projects"), "");
    const r = startRefused(dir);
    expect(r.status, r.stderr).to.equal(2);
    expect(r.stderr).to.equal(`netemu: cannot lock the projects path ${join(dir, "projects")}: EEXIST\n`);
  });

  it("refuses an embedder's second core with persistProjects on the same path, until the first shuts down", async () => {
    const settings = { configDir: dir, host: "127.0.0.1", udpPortRange: { start: 47000, end: 47099 } };
    const first = createNetemu({ logLevel: "silent", persistProjects: true, settings });
    try {
      expect(() => createNetemu({ logLevel: "silent", persistProjects: true, settings })).to.throw(ProjectsPathLocked, `pid ${process.pid}`);
      // Without persistProjects nothing is locked (nothing is written there).
      await createNetemu({ logLevel: "silent", settings }).shutdown();
    } finally {
      await first.shutdown();
    }
    expect(existsSync(lockFile())).to.equal(false);
    const again = createNetemu({ logLevel: "silent", persistProjects: true, settings });
    await again.shutdown();
  });
});
