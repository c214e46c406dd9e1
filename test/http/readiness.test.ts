import { expect } from "chai";
import { existsSync, mkdirSync, rmSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { startTestServer, type Reply, type TestServer } from "../support/http-harness.js";
import { RecordingLogger } from "../support/in-memory-data-plane.js";

const PROJECT = "9c9c9c9c-1111-4222-8333-444444444444";

/** Asks until `done` says yes, a bounded number of times (the store retries on real timers here). */
async function until(s: TestServer, path: string, done: (r: Reply) => boolean): Promise<Reply> {
  for (let i = 0; i < 200; i++) {
    const r = await s.request("GET", path);
    if (done(r)) return r;
    await new Promise((resolve) => setTimeout(resolve, 25));
  }
  throw new Error(`${path} never answered as awaited`);
}

describe("GET /v2/netemu/ready: whether the disk holds every acknowledged change (ADR 0057)", () => {
  let s: TestServer | undefined;
  afterEach(async () => {
    await s?.close();
    s = undefined;
  });

  it("answers 200 ready with no unwritten projects when projects live in memory", async () => {
    s = await startTestServer();
    const r = await s.request("GET", "/v2/netemu/ready");
    expect(r.status).to.equal(200);
    expect(r.json).to.deep.equal({ ready: true, unwritten_projects: [], dark_workers: [] });
  });

  for (const workers of [0, 2]) {
    it(`lists no dark data-plane worker and counts no death while every node forwards (${workers === 0 ? "the data plane on the main thread" : "2 worker threads"})`, async () => {
      s = await startTestServer({ dataPlaneWorkers: workers });
      expect((await s.request("GET", "/v2/netemu/ready")).json).to.deep.equal({ ready: true, unwritten_projects: [], dark_workers: [] });
      const restarted = await s.request("POST", "/v2/netemu/data-plane/restart");
      expect(restarted.status).to.equal(200);
      expect(restarted.json, "nothing to bring back").to.deep.equal({ restarted_workers: [], dark_workers: [] });
      const scrape = (await s.request("GET", "/metrics")).text;
      expect(scrape).to.include("netemu_dataplane_workers_given_up 0");
      expect(scrape).to.include("netemu_dataplane_dark_nodes 0");
      const deaths = scrape.split("\n").filter((l) => l.startsWith("netemu_dataplane_worker_deaths_total{"));
      expect(deaths, "a series per worker").to.deep.equal(Array.from({ length: workers }, (_, w) => `netemu_dataplane_worker_deaths_total{worker="${w}"} 0`));
    });
  }

  it("answers 503 naming the project, its error code and since when while its file cannot be written, and 200 once it is", async () => {
    const logger = new RecordingLogger();
    s = await startTestServer({ persistProjects: true, overrides: { logger } });
    const projectsPath = s.netemu.settings.projectsPath;
    // A file where the project's directory goes: every write fails until it is removed.
    mkdirSync(projectsPath, { recursive: true });
    const blocker = join(projectsPath, PROJECT);
    writeFileSync(blocker, "");
    const created = await s.request("POST", "/v2/projects", { name: "lab", project_id: PROJECT });
    expect(created.status).to.equal(201);

    const behind = await until(s, "/v2/netemu/ready", (r) => r.status === 503);
    expect(behind.json).to.deep.include({ status: 503, ready: false });
    expect(behind.json.message).to.match(/^1 project file\(s\) cannot be written \(E[A-Z]+\): their latest changes are in memory only, and retried$/);
    const [unwritten] = behind.json.unwritten_projects as Record<string, unknown>[];
    expect(unwritten).to.include({ project_id: PROJECT, file: join(blocker, "lab.gns3") });
    expect(unwritten?.["code"]).to.match(/^E[A-Z]+$/);
    expect(Date.parse(unwritten?.["since"] as string)).to.be.a("number").and.not.NaN;
    expect(unwritten?.["failed_writes"]).to.be.at.least(1);

    const scrape = (await s.request("GET", "/metrics")).text;
    expect(scrape).to.match(new RegExp(`netemu_project_write_failures_total\\{code="${String(unwritten?.["code"])}"\\} [1-9]`));
    expect(scrape).to.include("netemu_unwritten_projects 1");
    expect((await s.request("GET", `/v2/projects/${PROJECT}`)).json.name, "the change is kept").to.equal("lab");

    rmSync(blocker);
    const caughtUp = await until(s, "/v2/netemu/ready", (r) => r.status === 200);
    expect(caughtUp.json).to.deep.equal({ ready: true, unwritten_projects: [], dark_workers: [] });
    expect(existsSync(join(projectsPath, PROJECT, "lab.gns3"))).to.equal(true);
    expect((await s.request("GET", "/metrics")).text).to.include("netemu_unwritten_projects 0");
    const episodes = logger.lines.filter((l) => l.msg === "project file could not be written: retrying until it can" || l.msg === "project file written again");
    expect(episodes.map((l) => [l.level, l.msg])).to.deep.equal([
      ["error", "project file could not be written: retrying until it can"],
      ["info", "project file written again"],
    ]);
  });
});
