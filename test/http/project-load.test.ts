import { expect } from "chai";
import { copyFileSync, mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { startTestServer, type TestServer } from "../support/http-harness.js";

const LAB = "5f0c1d2e-3a4b-4c5d-8e6f-708192a3b4c5";

/** GNS3 2.2's POST /v2/projects/load and the .gns3 files netemu left out at start (ADR 0085). */
describe("project files by path: POST /v2/projects/load and GET /v2/netemu/projects/skipped", function () {
  this.timeout(20_000);
  let scratch: string;
  let servers: TestServer[];
  beforeEach(() => {
    scratch = mkdtempSync(join(tmpdir(), "netemu-load-"));
    servers = [];
  });
  afterEach(async () => {
    for (const s of servers) await s.close();
    rmSync(scratch, { recursive: true, force: true });
  });
  const start = async (settings: { projectsPath?: string; local?: boolean } = {}, persistProjects = true) => {
    const s = await startTestServer({ persistProjects, settings });
    servers.push(s);
    return s;
  };

  /** A lab of one switch written by a netemu whose projects path is `projectsPath`: its file's path. */
  async function writtenLab(projectsPath: string): Promise<string> {
    const writer = await startTestServer({ persistProjects: true, settings: { projectsPath } });
    expect((await writer.request("POST", "/v2/projects", { name: "wan", project_id: LAB })).status).to.equal(201);
    expect((await writer.request("POST", `/v2/projects/${LAB}/nodes`, { name: "SW1", node_type: "ethernet_switch", compute_id: "local" })).status).to.equal(201);
    await writer.close();
    return join(projectsPath, LAB, "wan.gns3");
  }

  it("loads a .gns3 file by path as GNS3 2.2 does: lists its project where the file is, opens it and answers 201 with it", async () => {
    const elsewhere = join(scratch, "kept-elsewhere");
    mkdirSync(elsewhere);
    copyFileSync(await writtenLab(join(scratch, "first")), join(elsewhere, "wan.gns3"));
    const s = await start({ projectsPath: join(scratch, "second") });
    expect((await s.request("GET", "/v2/projects")).json).to.deep.equal([]);

    const loaded = await s.request("POST", "/v2/projects/load", { path: join(elsewhere, "wan.gns3") });
    expect(loaded.status).to.equal(201);
    expect(loaded.json).to.deep.include({ project_id: LAB, name: "wan", status: "opened", path: elsewhere, filename: "wan.gns3" });
    const nodes = (await s.request("GET", `/v2/projects/${LAB}/nodes`)).json as { name: string; status: string }[];
    expect(nodes.map((n) => [n.name, n.status])).to.deep.equal([["SW1", "started"]]);
    expect((await s.request("GET", `/v2/compute/projects/${LAB}`)).status, "opened on the compute").to.equal(200);

    const again = await s.request("POST", "/v2/projects/load", { path: join(elsewhere, "wan.gns3") });
    expect(again.status, "a project listed already is opened as it is").to.equal(201);
    expect((await s.request("GET", "/v2/projects")).json).to.have.length(1);
  });

  it("refuses a file it cannot read with GNS3's 409 naming the file and why, and lists nothing", async () => {
    const s = await start();
    const missing = join(scratch, "nope.gns3");
    expect((await s.request("POST", "/v2/projects/load", { path: missing })).json).to.deep.equal({ message: `Could not load topology ${missing}: no such file`, status: 409 });
    const broken = join(scratch, "broken.gns3");
    writeFileSync(broken, '{"project_id": ');
    const r = await s.request("POST", "/v2/projects/load", { path: broken });
    expect(r.status).to.equal(409);
    expect(r.json.message).to.match(new RegExp(`^Could not load topology ${broken}: not JSON`));
    expect((await s.request("GET", "/v2/projects")).json).to.deep.equal([]);
  });

  it("refuses a body without a path as GNS3's schema does, and a server not in local mode with 403", async () => {
    const s = await start();
    const bad = await s.request("POST", "/v2/projects/load", {});
    expect(bad.status).to.equal(400);
    expect(bad.json.message).to.equal("JSON schema error with API request '/v2/projects/load': 'path' is a required property");
    const remote = await start({ local: false });
    expect((await remote.request("POST", "/v2/projects/load", { path: join(scratch, "x.gns3") })).json).to.deep.equal({
      message: "You can only load a project file on a local server (netemu serve --local)",
      status: 403,
    });
  });

  it("says an embedded netemu that keeps its projects in memory reads no project files", async () => {
    const s = await start({}, false);
    const r = await s.request("POST", "/v2/projects/load", { path: join(scratch, "x.gns3") });
    expect(r.status).to.equal(409);
    expect(r.json.message).to.include("keeps its projects in memory only");
    expect((await s.request("GET", "/v2/netemu/projects/skipped")).json).to.deep.equal([]);
  });

  it("lists every .gns3 file it left out at start with the reason, and takes a file off once it loads", async () => {
    const projectsPath = join(scratch, "projects");
    const good = await writtenLab(projectsPath);
    const broken = join(projectsPath, "broken", "lab.gns3");
    mkdirSync(join(projectsPath, "broken"));
    writeFileSync(broken, "{ not json");
    const twin = join(projectsPath, "twin", "wan.gns3");
    mkdirSync(join(projectsPath, "twin"));
    copyFileSync(good, twin);

    const s = await start({ projectsPath });
    const skipped = await s.request("GET", "/v2/netemu/projects/skipped");
    expect(skipped.status).to.equal(200);
    expect(skipped.json).to.deep.equal([
      { path: broken, reason: "not JSON: it goes wrong at line 1" },
      { path: twin, reason: `its project id ${LAB} is already listed, from ${good}` },
    ]);

    writeFileSync(broken, readFileSync(good, "utf8").replace(LAB, "6f0c1d2e-3a4b-4c5d-8e6f-708192a3b4c5"));
    expect((await s.request("POST", "/v2/projects/load", { path: broken })).status).to.equal(201);
    expect(((await s.request("GET", "/v2/netemu/projects/skipped")).json as { path: string }[]).map((f) => f.path)).to.deep.equal([twin]);
  });
});
