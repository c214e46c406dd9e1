import { expect } from "chai";
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { Gns3ProjectStore, type ProjectFileWriter } from "../../src/adapters/persistence/gns3-project-store.js";
import { FilterPrograms } from "../../src/application/filter-programs.js";
import { InlineBpfCompiler } from "../../src/adapters/threads/bpf-compiler/inline-bpf-compiler.js";
import { createProject } from "../../src/domain/topology/project.js";
import { defaultNodeLabel, type ControllerNode } from "../../src/domain/topology/node.js";
import { defaultPortsMapping } from "../../src/domain/switching/port.js";
import { RecordingLogger } from "../support/in-memory-data-plane.js";
import { ManualPause, settle } from "../support/manual-pause.js";

const PROJECT = "7b7b7b7b-1111-4222-8333-444444444444";
const OTHER = "7b7b7b7b-1111-4222-8333-555555555555";
const SW1 = "7b7b7b7b-0000-4000-8000-000000000001";

const switchNode = (name: string): ControllerNode => ({
  nodeId: SW1,
  projectId: PROJECT,
  nodeType: "ethernet_switch",
  computeId: "local",
  name,
  x: 0,
  y: 0,
  z: 1,
  locked: false,
  label: defaultNodeLabel(name),
  symbol: ":/symbols/ethernet_switch.svg",
  portsMapping: defaultPortsMapping(),
  consoleType: "none",
});

/** A disk in memory that fails every write with `code` while `failing` is set, as a full one does. */
class FailingDisk implements ProjectFileWriter {
  readonly files = new Map<string, string>();
  failing: string | undefined;
  attempts = 0;
  /** While set, a write waits for it before it fails or succeeds: a write under way. */
  held: Promise<void> | undefined;

  private check(): void {
    this.attempts++;
    if (this.failing !== undefined) throw Object.assign(new Error(`${this.failing}: the disk refused the write`), { code: this.failing });
  }
  async makeDirectory(): Promise<void> {}
  async write(file: string, data: string): Promise<void> {
    await this.held;
    this.check();
    this.files.set(file, data);
  }
  async remove(file: string): Promise<void> {
    this.check();
    this.files.delete(file);
  }
}

describe("project writes that tell the truth (ADR 0057)", () => {
  let projectsPath: string;
  let logger: RecordingLogger;
  let disk: FailingDisk;
  let pause: ManualPause;
  let clock: number;
  const store = (): Gns3ProjectStore =>
    new Gns3ProjectStore(projectsPath, "2.2.59", new FilterPrograms(new InlineBpfCompiler()), logger, {
      writer: disk,
      pause: pause.pause,
      now: () => clock,
      flushTimeoutMs: 10_000,
      // Written at once after each change: the pauses here are the retries' (ADR 0086's delay has its own tests).
      writeDelay: { quietMs: 0, maxMs: 0 },
    });
  const file = (): string => join(projectsPath, PROJECT, "lab.gns3");
  const nameInFile = (): string | undefined => (JSON.parse(disk.files.get(file()) ?? "{}") as { topology?: { nodes: { name: string }[] } }).topology?.nodes[0]?.name;
  const lines = (msg: string) => logger.lines.filter((l) => l.msg === msg);

  beforeEach(() => {
    projectsPath = mkdtempSync(join(tmpdir(), "netemu-writes-"));
    logger = new RecordingLogger();
    disk = new FailingDisk();
    pause = new ManualPause();
    clock = 1_000_000;
  });
  afterEach(() => rmSync(projectsPath, { recursive: true, force: true }));

  async function labWithSwitch(s: Gns3ProjectStore, name: string): Promise<void> {
    await s.projects.save(createProject(PROJECT, "lab", join(projectsPath, PROJECT)));
    await s.nodes.save(switchNode(name));
    await settle();
  }

  /** A lab written whole, then a change to it (its switch renamed "core") that the full disk refused. */
  async function refusedChange(): Promise<Gns3ProjectStore> {
    const s = store();
    await labWithSwitch(s, "SW1");
    disk.failing = "ENOSPC";
    await s.nodes.save(switchNode("core"));
    await settle();
    return s;
  }

  it("keeps a change the full disk refused, retries it, and writes it once the disk has room", async () => {
    const s = await refusedChange();
    expect((await s.nodes.get(PROJECT, SW1))?.name, "memory keeps the change").to.equal("core");
    expect(nameInFile()).to.equal("SW1");
    expect(s.unwritten()).to.deep.equal([{ projectId: PROJECT, file: file(), code: "ENOSPC", since: new Date(1_000_000), failedWrites: 1 }]);

    pause.end(100);
    await settle();
    expect(s.unwritten()[0]?.failedWrites).to.equal(2);
    disk.failing = undefined;
    clock += 300;
    pause.end();
    await settle();
    expect(nameInFile()).to.equal("core");
    expect(s.unwritten()).to.deep.equal([]);
    expect(s.failedWrites()).to.deep.equal(new Map([["ENOSPC", 2]]));
  });

  it("logs one line when the writes start failing and one when they succeed again, never one per retry", async () => {
    const s = store();
    await labWithSwitch(s, "SW1");
    disk.failing = "ENOSPC";
    await s.nodes.save(switchNode("core"));
    for (let i = 0; i < 10; i++) {
      await settle();
      pause.end();
    }
    await settle();
    disk.failing = undefined;
    clock += 12_345;
    pause.end();
    await settle();
    const failed = lines("project file could not be written: retrying until it can");
    expect(failed).to.have.length(1);
    expect(failed[0]).to.deep.include({ level: "error" });
    expect(failed[0]?.fields).to.deep.include({ projectId: PROJECT, file: file(), code: "ENOSPC" });
    const again = lines("project file written again");
    expect(again.map((l) => [l.level, l.fields])).to.deep.equal([["info", { projectId: PROJECT, file: file(), failedWrites: 11, ms: 12_345 }]]);
  });

  it("waits longer after each failed write, from 100 ms doubling up to 5 s", async () => {
    const s = store();
    await labWithSwitch(s, "SW1");
    disk.failing = "EIO";
    await s.nodes.save(switchNode("core"));
    const delays: number[] = [];
    for (let i = 0; i < 9; i++) {
      await settle();
      delays.push(...pause.pending());
      pause.end();
    }
    expect(delays).to.deep.equal([100, 200, 400, 800, 1600, 3200, 5000, 5000, 5000]);
  });

  it("starts a new episode, with its own line, when the disk fails again after a success", async () => {
    const s = store();
    await labWithSwitch(s, "SW1");
    for (const name of ["a", "b"]) {
      disk.failing = "ENOSPC";
      await s.nodes.save(switchNode(name));
      await settle();
      disk.failing = undefined;
      pause.end();
      await settle();
    }
    expect(lines("project file could not be written: retrying until it can")).to.have.length(2);
    expect(lines("project file written again")).to.have.length(2);
    expect(nameInFile()).to.equal("b");
  });

  it("writes the latest change, not the first refused one, when changes pile up on a full disk", async () => {
    const s = store();
    await labWithSwitch(s, "SW1");
    disk.failing = "ENOSPC";
    for (const name of ["a", "b", "c"]) await s.nodes.save(switchNode(name));
    await settle();
    disk.failing = undefined;
    pause.end();
    await settle();
    expect(nameInFile()).to.equal("c");
  });

  it("retries removing the file of a deleted project, and lists it meanwhile", async () => {
    const s = store();
    await labWithSwitch(s, "SW1");
    disk.failing = "EROFS";
    await s.projects.delete(PROJECT);
    await settle();
    expect(s.unwritten().map((u) => [u.projectId, u.code, u.file])).to.deep.equal([[PROJECT, "EROFS", file()]]);
    disk.failing = undefined;
    pause.end();
    await settle();
    expect(disk.files.has(file())).to.equal(false);
    expect(s.unwritten()).to.deep.equal([]);
  });

  it("lets flush() try a waiting retry at once, return when it succeeds, and leave no timer behind", async () => {
    const s = await refusedChange();
    disk.failing = undefined;
    let flushed = false;
    void s.flush().then(() => (flushed = true));
    await settle();
    expect(flushed).to.equal(true);
    expect(nameInFile()).to.equal("core");
    expect(pause.pending(), "neither the retry's delay nor the flush's bound").to.deep.equal([]);
  });

  it("stops flush() from waiting forever on a disk that stays full, logs what was not written, and tries no write after it gave up", async () => {
    const s = store();
    await labWithSwitch(s, "SW1");
    disk.failing = "ENOSPC";
    await s.nodes.save(switchNode("core"));
    await s.projects.save({ ...createProject(OTHER, "other", join(projectsPath, OTHER)) });
    await settle();
    let flushed = false;
    void s.flush().then(() => (flushed = true));
    await settle();
    expect(flushed, "still waiting for the disk").to.equal(false);
    const attempts = disk.attempts;
    pause.end(10_000);
    await settle();
    expect(flushed).to.equal(true);
    expect(pause.pending(), "no retry left to hold the process").to.deep.equal([]);
    expect(disk.attempts, "no write tried once flush() gave up: the projects path is another server's next").to.equal(attempts);
    const lost = lines("project files not written at shutdown: their latest changes are lost");
    expect(lost).to.have.length(1);
    expect(lost[0]?.fields?.["projects"]).to.deep.equal([
      { projectId: PROJECT, file: file(), code: "ENOSPC", since: new Date(1_000_000).toISOString() },
      { projectId: OTHER, file: join(projectsPath, OTHER, "other.gns3"), code: "ENOSPC", since: new Date(1_000_000).toISOString() },
    ]);
  });

  it("lets flush() that gave up return only once the write under way has ended, so that no write outlives the shutdown", async () => {
    const s = await refusedChange();
    let release: () => void = () => undefined;
    disk.held = new Promise((resolve) => (release = resolve));
    let flushed = false;
    void s.flush().then(() => (flushed = true));
    await settle();
    pause.end(10_000);
    await settle();
    expect(flushed, "the retry flush() asked for is still writing").to.equal(false);
    release();
    await settle();
    expect(flushed).to.equal(true);
    expect(pause.pending()).to.deep.equal([]);
  });

  it("counts failed writes by error code, over projects and episodes", async () => {
    const s = store();
    await labWithSwitch(s, "SW1");
    disk.failing = "ENOSPC";
    await s.nodes.save(switchNode("a"));
    await settle();
    disk.failing = "EDQUOT";
    pause.end();
    await settle();
    disk.failing = undefined;
    pause.end();
    await settle();
    expect(s.failedWrites()).to.deep.equal(new Map([["ENOSPC", 1], ["EDQUOT", 1]]));
    expect(s.unwritten()).to.deep.equal([]);
  });
});
