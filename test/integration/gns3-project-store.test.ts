import { expect } from "chai";
import { cpSync, existsSync, mkdirSync, mkdtempSync, readFileSync, readdirSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { Gns3ProjectStore } from "../../src/adapters/persistence/gns3-project-store.js";
import { FilterPrograms } from "../../src/application/filter-programs.js";
import { InlineBpfCompiler } from "../../src/adapters/threads/bpf-compiler/inline-bpf-compiler.js";
import { createProject } from "../../src/domain/topology/project.js";
import { defaultNodeLabel, type ControllerNode } from "../../src/domain/topology/node.js";
import type { Link } from "../../src/domain/topology/link.js";
import { defaultPortsMapping } from "../../src/domain/switching/port.js";
import { RecordingLogger } from "../support/in-memory-data-plane.js";
import { ManualPause } from "../support/manual-pause.js";

const GNS3_WROTE = new URL("../../../../shared/gns3-peer/projects/", import.meta.url);
const PROJECT = "5a5a5a5a-1111-4222-8333-444444444444";
const SW1 = "5a5a5a5a-0000-4000-8000-000000000001";
const SW2 = "5a5a5a5a-0000-4000-8000-000000000002";

const switchNode = (nodeId: string, name: string): ControllerNode => ({
  nodeId,
  projectId: PROJECT,
  nodeType: "ethernet_switch",
  computeId: "local",
  name,
  x: 10,
  y: -20,
  z: 1,
  locked: false,
  label: defaultNodeLabel(name),
  symbol: ":/symbols/ethernet_switch.svg",
  portsMapping: defaultPortsMapping(),
  consoleType: "none",
});

const link: Link = {
  linkId: "5a5a5a5a-2222-4000-8000-000000000003",
  projectId: PROJECT,
  nodes: [
    { nodeId: SW1, adapterNumber: 0, portNumber: 1, label: { text: "0/1" }, udpPort: 20001 },
    { nodeId: SW2, adapterNumber: 0, portNumber: 2, label: { text: "0/2" }, udpPort: 20002 },
  ],
  filters: { delay: [40, 5], bpf: ["icmp"] },
  suspend: true,
  linkStyle: {},
  capture: null,
};

describe("the controller's projects kept as GNS3 project files", () => {
  let projectsPath: string;
  let logger: RecordingLogger;
  const store = (): Gns3ProjectStore => new Gns3ProjectStore(projectsPath, "2.2.59", new FilterPrograms(new InlineBpfCompiler()), logger);
  const dirOf = (projectId = PROJECT): string => join(projectsPath, projectId);

  beforeEach(() => {
    projectsPath = mkdtempSync(join(tmpdir(), "netemu-projects-"));
    logger = new RecordingLogger();
  });
  afterEach(() => rmSync(projectsPath, { recursive: true, force: true }));

  async function savedLab(s: Gns3ProjectStore): Promise<void> {
    await s.projects.save(createProject(PROJECT, "lab", dirOf()));
    await s.nodes.save(switchNode(SW1, "SW1"));
    await s.nodes.save(switchNode(SW2, "SW2"));
    await s.links.save(link);
  }

  it("writes <projects_path>/<project_id>/<name>.gns3 and reads it back on the next start, closed, with its nodes, links and filters", async () => {
    const first = store();
    await savedLab(first);
    await first.flush();
    expect(readdirSync(dirOf())).to.deep.equal(["lab.gns3"]);
    const file = JSON.parse(readFileSync(join(dirOf(), "lab.gns3"), "utf8")) as { name: string; topology: { nodes: unknown[]; links: { filters: unknown; suspend: boolean }[] } };
    expect(file.name).to.equal("lab");
    expect(file.topology.nodes).to.have.length(2);
    expect(file.topology.links[0]).to.deep.include({ filters: { bpf: ["icmp"], delay: [40, 5] }, suspend: true });

    const second = store();
    const [project] = await second.projects.list();
    expect(project).to.deep.include({ projectId: PROJECT, name: "lab", status: "closed", path: dirOf(), filename: "lab.gns3" });
    expect((await second.nodes.listByProject(PROJECT)).map((n) => n.name).sort()).to.deep.equal(["SW1", "SW2"]);
    const [restored] = await second.links.listByProject(PROJECT);
    expect(restored).to.deep.include({ linkId: link.linkId, filters: { bpf: ["icmp"], delay: [40, 5] }, suspend: true });
    expect(restored?.nodes.map((e) => e.udpPort), "tunnel ports are not kept: open reserves new ones").to.deep.equal([0, 0]);
    expect(logger.lines.filter((l) => l.msg === "projects read").map((l) => l.fields?.["projects"])).to.deep.equal([0, 1]);
  });

  it("coalesces changes made while a write runs, and the file ends as memory says", async () => {
    const s = store();
    await s.projects.save(createProject(PROJECT, "lab", dirOf()));
    await Promise.all(Array.from({ length: 50 }, (_, i) => s.nodes.save(switchNode(`5a5a5a5a-0000-4000-8000-${String(i).padStart(12, "0")}`, `SW${i}`))));
    await s.nodes.delete(PROJECT, "5a5a5a5a-0000-4000-8000-000000000007");
    await s.flush();
    const file = JSON.parse(readFileSync(join(dirOf(), "lab.gns3"), "utf8")) as { topology: { nodes: { name: string }[] } };
    expect(file.topology.nodes).to.have.length(49);
    expect(file.topology.nodes.map((n) => n.name)).not.to.include("SW7");
  });

  it("removes the file when the project is deleted", async () => {
    const s = store();
    await savedLab(s);
    await s.flush();
    await s.projects.delete(PROJECT);
    await s.flush();
    expect(existsSync(join(dirOf(), "lab.gns3"))).to.equal(false);
    expect(await store().projects.list()).to.deep.equal([]);
  });

  it("removes at start what an interrupted write left, and keeps the file as it was before it", async () => {
    const s = store();
    await savedLab(s);
    await s.flush();
    const before = readFileSync(join(dirOf(), "lab.gns3"), "utf8");
    // What kill -9 between the temporary file and the rename leaves: a half-written temporary file.
    writeFileSync(join(dirOf(), "lab.gns3.4242.1.tmp"), before.slice(0, 100));
    writeFileSync(join(dirOf(), "notes.txt.4242.1.tmp"), "not ours");
    const again = store();
    expect((await again.projects.list()).map((p) => p.name)).to.deep.equal(["lab"]);
    expect(readdirSync(dirOf()).sort()).to.deep.equal(["lab.gns3", "notes.txt.4242.1.tmp"]);
    expect(readFileSync(join(dirOf(), "lab.gns3"), "utf8")).to.equal(before);
    expect(logger.lines.map((l) => l.msg)).to.include("removed what interrupted project file writes left");
  });

  it("skips a file it cannot read, says why, and leaves it untouched", async () => {
    mkdirSync(dirOf(), { recursive: true });
    writeFileSync(join(dirOf(), "broken.gns3"), "{ half a file");
    expect(await store().projects.list()).to.deep.equal([]);
    expect(readFileSync(join(dirOf(), "broken.gns3"), "utf8")).to.equal("{ half a file");
    expect(logger.lines.find((l) => l.msg === "project file skipped")?.fields).to.deep.include({ file: join(dirOf(), "broken.gns3") });
  });

  it("lists a project GNS3 wrote with nodes it does not run, and never rewrites its file", async () => {
    const dir = join(projectsPath, "vpcs-lab");
    mkdirSync(dir);
    // GNS3's switch-and-vpcs project with its VPCS made QEMU VMs, which netemu does not run.
    writeFileSync(join(dir, "switch-and-vpcs.gns3"), readFileSync(new URL("switch-and-vpcs.gns3", GNS3_WROTE), "utf8").replaceAll('"node_type": "vpcs"', '"node_type": "qemu"'));
    const original = readFileSync(join(dir, "switch-and-vpcs.gns3"), "utf8");
    const s = store();
    const [project] = await s.projects.list();
    expect(project?.unsupportedNodeTypes).to.deep.equal(["qemu"]);
    if (project === undefined) throw new Error("not listed");
    await s.projects.save({ ...project, status: "closed" });
    await s.flush();
    expect(readFileSync(join(dir, "switch-and-vpcs.gns3"), "utf8")).to.equal(original);
  });

  it("keeps the first of two files with one project id, and says which it skipped", async () => {
    for (const dir of ["a", "b"]) {
      mkdirSync(join(projectsPath, dir));
      cpSync(new URL("switches-and-hub.gns3", GNS3_WROTE), join(projectsPath, dir, "switches-and-hub.gns3"));
    }
    const listed = await store().projects.list();
    expect(listed.map((p) => p.path)).to.deep.equal([join(projectsPath, "a")]);
    expect(logger.lines.find((l) => l.msg === "project file skipped: its project id is already listed")?.fields).to.deep.include({ file: join(projectsPath, "b", "switches-and-hub.gns3") });
  });

  it("keeps the records of a project whose file cannot be written, without failing the change, and says so once", async () => {
    const blocker = join(projectsPath, "a-file");
    writeFileSync(blocker, "");
    const pause = new ManualPause();
    const s = new Gns3ProjectStore(projectsPath, "2.2.59", new FilterPrograms(new InlineBpfCompiler()), logger, { pause: pause.pause });
    await s.projects.save(createProject(PROJECT, "lab", join(blocker, "inside")));
    const flushed = s.flush();
    // The writes keep failing (a file where a directory should be): the flush gives up at its bound.
    while (pause.pending().length < 2) await new Promise((resolve) => setImmediate(resolve));
    pause.end(10_000);
    await flushed;
    expect((await s.projects.get(PROJECT))?.name).to.equal("lab");
    expect(s.unwritten().map((u) => u.projectId)).to.deep.equal([PROJECT]);
    expect(logger.lines.filter((l) => l.msg === "project file could not be written: retrying until it can").map((l) => l.fields?.["projectId"])).to.deep.equal([PROJECT]);
  });
});
