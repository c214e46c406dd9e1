import { expect } from "chai";
import { mkdtempSync, readFileSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { Gns3ProjectStore, type ProjectFileWriter } from "../../src/adapters/persistence/gns3-project-store.js";
import { FilterPrograms } from "../../src/application/filter-programs.js";
import { InlineBpfCompiler } from "../../src/adapters/threads/bpf-compiler/inline-bpf-compiler.js";
import { createProject } from "../../src/domain/topology/project.js";
import { defaultNodeLabel, type ControllerNode } from "../../src/domain/topology/node.js";
import { defaultPortsMapping } from "../../src/domain/switching/port.js";
import { RecordingLogger } from "../support/in-memory-data-plane.js";
import { settle } from "../support/manual-pause.js";
import { startTestServer } from "../support/http-harness.js";

const PROJECT = "7b7b7b7b-1111-4222-8333-666666666666";
const SW1 = "7b7b7b7b-0000-4000-8000-000000000011";

const switchNode = (name: string, nodeId = SW1): ControllerNode => ({
  nodeId,
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

/** Time the test moves by hand: the store's delays end when the clock passes them, in order. */
class FakeTime {
  now = 1_000_000;
  private timers: { readonly at: number; readonly resolve: () => void }[] = [];

  readonly pause = (ms: number, cancel: AbortSignal): Promise<void> =>
    new Promise((resolve) => {
      const timer = { at: this.now + ms, resolve };
      this.timers.push(timer);
      cancel.addEventListener("abort", () => ((this.timers = this.timers.filter((t) => t !== timer)), resolve()), { once: true });
    });

  /** The delays still running, as how long each has left. */
  pending(): number[] {
    return this.timers.map((t) => t.at - this.now);
  }

  /** Moves the clock `ms` on, ending each delay it passes at its own time and letting the store run after it. */
  async advance(ms: number): Promise<void> {
    const end = this.now + ms;
    for (;;) {
      await settle();
      const next = this.timers.filter((t) => t.at <= end).sort((a, b) => a.at - b.at)[0];
      if (next === undefined) break;
      this.timers = this.timers.filter((t) => t !== next);
      this.now = next.at;
      next.resolve();
    }
    this.now = end;
    await settle();
  }
}

/** A disk in memory that records each write, when it came and what the file said; one can be held open. */
class RecordingDisk implements ProjectFileWriter {
  readonly files = new Map<string, string>();
  readonly writes: { readonly at: number; readonly data: string }[] = [];
  private held: Promise<void> | undefined;
  private release: (() => void) | undefined;

  constructor(private readonly time: FakeTime) {}

  async makeDirectory(): Promise<void> {}
  async write(file: string, data: string): Promise<void> {
    this.writes.push({ at: this.time.now, data });
    await this.held;
    this.files.set(file, data);
  }
  async remove(file: string): Promise<void> {
    this.files.delete(file);
  }
  /** The next writes wait until `letGo()`: a write in flight. */
  hold(): void {
    this.held = new Promise((resolve) => (this.release = resolve));
  }
  letGo(): void {
    this.release?.();
    this.held = undefined;
  }
}

const namesIn = (data: string | undefined): string[] => (JSON.parse(data ?? "{}") as { topology?: { nodes: { name: string }[] } }).topology?.nodes.map((n) => n.name) ?? [];

describe("when a project file is written (ADR 0086)", () => {
  let projectsPath: string;
  let time: FakeTime;
  let disk: RecordingDisk;
  const store = (): Gns3ProjectStore =>
    new Gns3ProjectStore(projectsPath, "2.2.59", new FilterPrograms(new InlineBpfCompiler()), new RecordingLogger(), {
      writer: disk,
      pause: time.pause,
      now: () => time.now,
      writeDelay: { quietMs: 100, maxMs: 1000 },
    });
  const file = (): string => join(projectsPath, PROJECT, "lab.gns3");
  const inFile = (): string[] => namesIn(disk.files.get(file()));

  beforeEach(() => {
    projectsPath = mkdtempSync(join(tmpdir(), "netemu-write-delay-"));
    time = new FakeTime();
    disk = new RecordingDisk(time);
  });
  afterEach(() => rmSync(projectsPath, { recursive: true, force: true }));

  /** A project with one switch, written, and the clock well past it. */
  async function writtenLab(s: Gns3ProjectStore): Promise<void> {
    // The projects path is read first (real I/O, slow on a busy machine): the clock moves by hand only after it.
    await s.projects.list();
    await s.projects.save(createProject(PROJECT, "lab", join(projectsPath, PROJECT)));
    await s.nodes.save(switchNode("SW1"));
    await time.advance(5000);
    disk.writes.length = 0;
  }

  it("writes a project changed every 10 ms for 5 s about once a second, not once per change", async () => {
    const s = store();
    await writtenLab(s);
    for (let i = 0; i < 500; i++) {
      await time.advance(10);
      await s.nodes.save(switchNode(`SW-${i}`));
    }
    await time.advance(1000);
    // 5 s of changes: a write at most every second, and the last one after the changes stop.
    expect(disk.writes.length).to.be.within(5, 6);
    expect(inFile()).to.deep.equal(["SW-499"]);
    expect(s.completedWrites()).to.equal(disk.writes.length + 1);
  });

  it("writes a lone change once the changes have paused for 100 ms, not at once", async () => {
    const s = store();
    await writtenLab(s);
    await s.nodes.save(switchNode("core"));
    await time.advance(99);
    expect(disk.writes, "still waiting for a quiet moment").to.deep.equal([]);
    await time.advance(1);
    expect(inFile()).to.deep.equal(["core"]);
    expect(disk.writes).to.have.length(1);
  });

  it("holds every change in the file within a second of it, however the changes keep coming", async () => {
    const s = store();
    await writtenLab(s);
    const made: { at: number; name: string }[] = [];
    for (let i = 0; i < 300; i++) {
      await time.advance(i % 7 === 0 ? 60 : 15);
      await s.nodes.save(switchNode(`SW-${i}`));
      made.push({ at: time.now, name: `SW-${i}` });
    }
    await time.advance(1000);
    const order = (name: string): number => Number(name.slice(3));
    for (const change of made) {
      const holding = disk.writes.find((w) => w.at >= change.at && order(namesIn(w.data)[0] ?? "SW--1") >= order(change.name));
      expect(holding, change.name).not.to.equal(undefined);
      expect((holding?.at ?? Infinity) - change.at, `${change.name} waited`).to.be.at.most(1000);
    }
  });

  it("puts a change made while a write runs in the file by the time flush() returns, without waiting for a quiet moment", async () => {
    const s = store();
    await writtenLab(s);
    disk.hold();
    await s.nodes.save(switchNode("during-a"));
    await time.advance(100);
    expect(disk.writes, "the write has started and is held").to.have.length(1);
    await s.nodes.save(switchNode("during-b"));
    let flushed = false;
    const flushing = s.flush().then(() => (flushed = true));
    await settle();
    expect(flushed, "the write in flight is not done").to.equal(false);
    disk.letGo();
    await flushing;
    expect(inFile()).to.deep.equal(["during-b"]);
    expect(disk.writes.map((w) => namesIn(w.data))).to.deep.equal([["during-a"], ["during-b"]]);
    expect(time.pending(), "no delay left behind").to.deep.equal([]);
  });

  it("writes at once on flush() what waits for a quiet moment, and leaves no delay behind", async () => {
    const s = store();
    await writtenLab(s);
    await s.nodes.save(switchNode("core"));
    await s.flush();
    expect(inFile()).to.deep.equal(["core"]);
    expect(time.pending()).to.deep.equal([]);
  });

  it("writes a project's changes at once when the project is closed", async () => {
    const s = store();
    await writtenLab(s);
    await s.nodes.save(switchNode("core"));
    const project = await s.projects.get(PROJECT);
    await s.projects.save({ ...(project as NonNullable<typeof project>), status: "closed" });
    await settle();
    expect(inFile()).to.deep.equal(["core"]);
    expect(disk.writes).to.have.length(1);
  });

  it("writes nothing when a project with nothing unwritten is closed", async () => {
    const s = store();
    await writtenLab(s);
    const project = await s.projects.get(PROJECT);
    await s.projects.save({ ...(project as NonNullable<typeof project>), status: "closed" });
    await time.advance(2000);
    expect(disk.writes).to.deep.equal([]);
  });

  it("retries a failed write after its own delay, not after another quiet moment", async () => {
    const s = store();
    await writtenLab(s);
    const write = disk.write.bind(disk);
    let refuse = true;
    disk.write = async (f, d) => {
      if (refuse) throw Object.assign(new Error("ENOSPC: no space left"), { code: "ENOSPC" });
      return write(f, d);
    };
    await s.nodes.save(switchNode("core"));
    await time.advance(100);
    expect(s.unwritten().map((u) => u.code)).to.deep.equal(["ENOSPC"]);
    refuse = false;
    await time.advance(100);
    expect(inFile(), "written by the retry, 100 ms after the failure").to.deep.equal(["core"]);
    expect(s.unwritten()).to.deep.equal([]);
  });

  it("writes after each change at once when both delays are 0", async () => {
    const s = new Gns3ProjectStore(projectsPath, "2.2.59", new FilterPrograms(new InlineBpfCompiler()), new RecordingLogger(), { writer: disk, pause: time.pause, now: () => time.now, writeDelay: { quietMs: 0, maxMs: 0 } });
    await writtenLab(s);
    for (const name of ["a", "b", "c"]) {
      await s.nodes.save(switchNode(name));
      await settle();
    }
    expect(disk.writes.map((w) => namesIn(w.data))).to.deep.equal([["a"], ["b"], ["c"]]);
  });
});

describe("a netemu's projects on its shutdown (ADR 0086)", () => {
  let projectsPath: string;
  beforeEach(() => (projectsPath = mkdtempSync(join(tmpdir(), "netemu-write-delay-serve-"))));
  afterEach(() => rmSync(projectsPath, { recursive: true, force: true }));

  it("writes the change answered just before it shut down, though the change was still waiting for a quiet moment", async () => {
    const s = await startTestServer({ persistProjects: true, settings: { projectsPath } });
    try {
      expect((await s.request("POST", "/v2/projects", { name: "lab", project_id: PROJECT })).status).to.equal(201);
      const made = await s.request("POST", `/v2/projects/${PROJECT}/nodes`, { name: "SW1", node_type: "ethernet_switch", compute_id: "local" });
      expect((await s.request("PUT", `/v2/projects/${PROJECT}/nodes/${String(made.json.node_id)}`, { name: "core" })).status).to.equal(200);
    } finally {
      await s.close();
    }
    expect(namesIn(readFileSync(join(projectsPath, PROJECT, "lab.gns3"), "utf8"))).to.deep.equal(["core"]);
  });
});
