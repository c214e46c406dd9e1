import { expect } from "chai";
import { spawnSync } from "node:child_process";
import { mkdirSync, mkdtempSync, readFileSync, rmSync, symlinkSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { Gns3ProjectStore, type ProjectStoreOptions } from "../../src/adapters/persistence/gns3-project-store.js";
import { FilterPrograms } from "../../src/application/filter-programs.js";
import { InlineBpfCompiler } from "../../src/adapters/threads/bpf-compiler/inline-bpf-compiler.js";
import { RecordingLogger } from "../support/in-memory-data-plane.js";

const GNS3_WROTE = new URL("../../../../shared/gns3-peer/projects/", import.meta.url);
const SECRET = "root:x:0:0:root:/root:/bin/bash s3cr3t-token";

/** A GNS3 project file with `count` switches. */
function projectWithNodes(projectId: string, count: number): string {
  const nodes = Array.from({ length: count }, (_, i) => ({ node_id: `00000000-0000-4000-8000-${String(i).padStart(12, "0")}`, node_type: "ethernet_switch", name: `SW${i}` }));
  return JSON.stringify({ project_id: projectId, name: "big", revision: 9, type: "topology", topology: { nodes, links: [] } });
}

describe("odd files in the projects path (ADR 0057)", () => {
  let projectsPath: string;
  let outside: string;
  let logger: RecordingLogger;
  const store = (options: ProjectStoreOptions = {}): Gns3ProjectStore => new Gns3ProjectStore(projectsPath, "2.2.59", new FilterPrograms(new InlineBpfCompiler()), logger, options);
  const dir = (): string => join(projectsPath, "lab");
  const skipped = () => logger.lines.filter((l) => l.msg === "project file skipped").map((l) => ({ file: l.fields?.["file"], reason: l.fields?.["reason"] }));
  const everyLine = (): string => JSON.stringify(logger.lines);

  beforeEach(() => {
    projectsPath = mkdtempSync(join(tmpdir(), "netemu-odd-"));
    outside = mkdtempSync(join(tmpdir(), "netemu-outside-"));
    mkdirSync(dir());
    logger = new RecordingLogger();
  });
  afterEach(() => {
    rmSync(projectsPath, { recursive: true, force: true });
    rmSync(outside, { recursive: true, force: true });
  });

  it("skips a FIFO named x.gns3 without opening it, says it is a FIFO, and reads the other projects", async () => {
    const made = spawnSync("mkfifo", [join(dir(), "x.gns3")]);
    expect(made.status, "mkfifo").to.equal(0);
    writeFileSync(join(dir(), "y.gns3"), projectWithNodes("11111111-1111-4111-8111-111111111111", 1));
    // Before the fix, reading the FIFO waited for a writer forever: this never resolved.
    const listed = await store().projects.list();
    expect(listed.map((p) => p.filename)).to.deep.equal(["y.gns3"]);
    expect(skipped()).to.deep.equal([{ file: join(dir(), "x.gns3"), reason: "a FIFO: only regular files are read as projects" }]);
  });

  it("skips a symbolic link named .gns3, even to a valid project, and never quotes what it points to", async () => {
    writeFileSync(join(outside, "passwd"), SECRET);
    symlinkSync(join(outside, "passwd"), join(dir(), "a.gns3"));
    writeFileSync(join(outside, "real.gns3"), projectWithNodes("22222222-2222-4222-8222-222222222222", 1));
    symlinkSync(join(outside, "real.gns3"), join(dir(), "b.gns3"));
    expect(await store().projects.list()).to.deep.equal([]);
    expect(skipped()).to.deep.equal([
      { file: join(dir(), "a.gns3"), reason: "a symbolic link: only regular files are read as projects" },
      { file: join(dir(), "b.gns3"), reason: "a symbolic link: only regular files are read as projects" },
    ]);
    expect(everyLine()).not.to.include("root:x");
    expect(everyLine()).not.to.include("s3cr3t");
  });

  it("says where a file that is not JSON goes wrong by line, without quoting it", async () => {
    writeFileSync(join(dir(), "passwd.gns3"), `${SECRET}\n`);
    writeFileSync(join(dir(), "half.gns3"), '{\n  "project_id": "s3cr3t-token",\n  "name": ');
    writeFileSync(join(dir(), "empty.gns3"), "");
    expect(await store().projects.list()).to.deep.equal([]);
    expect(skipped()).to.deep.equal([
      { file: join(dir(), "empty.gns3"), reason: "not JSON: the file is empty" },
      { file: join(dir(), "half.gns3"), reason: "not JSON: it goes wrong at line 3" },
      { file: join(dir(), "passwd.gns3"), reason: "not JSON: it goes wrong at line 1" },
    ]);
    expect(everyLine()).not.to.include("s3cr3t");
    expect(everyLine()).not.to.include("root:x");
  });

  it("says what kind of value a field of a JSON file that is not a project has, not the value", async () => {
    writeFileSync(join(dir(), "other.gns3"), JSON.stringify({ project_id: "p", name: "n", revision: 9, type: "s3cr3t-token", topology: { nodes: [] } }));
    expect(await store().projects.list()).to.deep.equal([]);
    expect(skipped()).to.deep.equal([{ file: join(dir(), "other.gns3"), reason: "not a GNS3 project file: type: got a string" }]);
    expect(everyLine()).not.to.include("s3cr3t");
  });

  it("skips a file larger than the size limit, unread, and says its size and the limit", async () => {
    writeFileSync(join(dir(), "big.gns3"), `${SECRET}${" ".repeat(2048)}`);
    writeFileSync(join(dir(), "small.gns3"), projectWithNodes("33333333-3333-4333-8333-333333333333", 2));
    const listed = await store({ maxFileBytes: 2048 }).projects.list();
    expect(listed.map((p) => p.filename)).to.deep.equal(["small.gns3"]);
    const size = readFileSync(join(dir(), "big.gns3")).length;
    expect(skipped()).to.deep.equal([{ file: join(dir(), "big.gns3"), reason: `${size} bytes, more than the 2048 netemu reads (--max-project-file-size)` }]);
    expect(everyLine()).not.to.include("s3cr3t");
  });

  it("skips a project with more nodes than the node limit, and says how many and the limit", async () => {
    writeFileSync(join(dir(), "four.gns3"), projectWithNodes("44444444-4444-4444-8444-444444444444", 4));
    writeFileSync(join(dir(), "three.gns3"), projectWithNodes("55555555-5555-4555-8555-555555555555", 3));
    const listed = await store({ maxNodes: 3 }).projects.list();
    expect(listed.map((p) => p.filename)).to.deep.equal(["three.gns3"]);
    expect(skipped()).to.deep.equal([{ file: join(dir(), "four.gns3"), reason: "topology.nodes: has 4 items, more than the 3 netemu allows" }]);
  });

  it("keeps the domain's node limit when a larger one is asked for", async () => {
    writeFileSync(join(dir(), "over.gns3"), projectWithNodes("66666666-6666-4666-8666-666666666666", 5001));
    expect(await store({ maxNodes: 1_000_000 }).projects.list()).to.deep.equal([]);
    expect(skipped()[0]?.reason).to.equal("topology.nodes: has 5001 items, more than the 5000 netemu allows");
  });

  it("skips a directory named .gns3 with its reason", async () => {
    mkdirSync(join(dir(), "d.gns3"));
    expect(await store().projects.list()).to.deep.equal([]);
    expect(skipped()).to.deep.equal([{ file: join(dir(), "d.gns3"), reason: "a directory: only regular files are read as projects" }]);
  });

  it("still reads the project files GNS3 wrote", async () => {
    writeFileSync(join(dir(), "switches-and-hub.gns3"), readFileSync(new URL("switches-and-hub.gns3", GNS3_WROTE)));
    expect((await store().projects.list()).map((p) => p.filename)).to.deep.equal(["switches-and-hub.gns3"]);
    expect(skipped()).to.deep.equal([]);
  });
});
