import { expect } from "chai";
import { cpSync, mkdirSync, mkdtempSync, readFileSync, readdirSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import * as E from "fp-ts/lib/Either.js";
import { Gns3ProjectStore } from "../../src/adapters/persistence/gns3-project-store.js";
import { parseProjectFile } from "../../src/adapters/persistence/gns3-project-format.js";
import { FilterPrograms } from "../../src/application/filter-programs.js";
import { InlineBpfCompiler } from "../../src/adapters/threads/bpf-compiler/inline-bpf-compiler.js";
import { CONFIGURATION_LIMITS } from "../../src/domain/configuration/limits.js";
import { JSON_DEPTH_LIMIT } from "../../src/adapters/shared/gns3-json.js";
import { RecordingLogger } from "../support/in-memory-data-plane.js";
import { startTestServer } from "../support/http-harness.js";

/**
 * The `.gns3` door as netemu meets it at start: files under projects_path, read by the store. A file
 * a domain parse refuses is skipped with the reason (field and rule) and left as it is; the files
 * beside it are listed all the same.
 */
const GNS3_WROTE = new URL("../../../../shared/gns3-peer/projects/", import.meta.url);
const L = CONFIGURATION_LIMITS;

type GnsFile = {
  project_id: string;
  name: string;
  variables: unknown;
  topology: {
    nodes: { node_id: string; properties: { ports_mapping: Record<string, unknown>[] } }[];
    links: { link_id: string; filters: Record<string, unknown> }[];
  };
  [key: string]: unknown;
};

const gns3Text = (): string => readFileSync(new URL("switches-and-hub.gns3", GNS3_WROTE), "utf8");
const projectId = (n: number): string => `1a1a1a1a-0000-4000-8000-${String(n).padStart(12, "0")}`;

/** GNS3's file as another project: its own id and name. */
function labFile(n: number, change: (f: GnsFile) => void = () => undefined): GnsFile {
  const file = JSON.parse(gns3Text()) as GnsFile;
  file.project_id = projectId(n);
  file.name = `lab${n}`;
  change(file);
  return file;
}

function nested(levels: number): unknown {
  let v: unknown = [];
  for (let i = 1; i < levels; i++) v = [v];
  return v;
}

describe("project files: one bad file is skipped with its reason and hides no other", function () {
  this.timeout(20_000);
  let projectsPath: string;
  let logger: RecordingLogger;

  beforeEach(() => {
    projectsPath = mkdtempSync(join(tmpdir(), "netemu-doors-"));
    logger = new RecordingLogger();
  });
  afterEach(() => rmSync(projectsPath, { recursive: true, force: true }));

  const store = (): Gns3ProjectStore => new Gns3ProjectStore(projectsPath, "2.2.59", new FilterPrograms(new InlineBpfCompiler()), logger);

  /** Writes `<dir>/<name>.gns3`; answers its path. */
  function put(dir: string, file: GnsFile | string, name = "lab.gns3"): string {
    mkdirSync(join(projectsPath, dir), { recursive: true });
    const path = join(projectsPath, dir, name);
    writeFileSync(path, typeof file === "string" ? file : JSON.stringify(file, null, 4));
    return path;
  }

  const cases: readonly [string, GnsFile | string, string][] = [
    [
      "a switch port in VLAN 5000",
      labFile(2, (f) => (f.topology.nodes[0]!.properties.ports_mapping[4]!["vlan"] = 5000)),
      "topology.nodes[0].properties.ports_mapping[4].vlan: 5000 is greater than the maximum of 4094",
    ],
    [
      "a QinQ ethertype of 0xBEEF",
      labFile(2, (f) => Object.assign(f.topology.nodes[1]!.properties.ports_mapping[0]!, { type: "qinq", ethertype: "0xBEEF" })),
      "topology.nodes[1].properties.ports_mapping[0].ethertype: '0xBEEF' is not one of",
    ],
    [
      "two ports numbered 3",
      labFile(2, (f) => (f.topology.nodes[0]!.properties.ports_mapping[6]!["port_number"] = 3)),
      "topology.nodes[0].properties.ports_mapping[6].port_number: port number 3 is already given by topology.nodes[0].properties.ports_mapping[3].port_number",
    ],
    ["a link filter of 3,000 nested parentheses", labFile(2, (f) => (f.topology.links[2]!.filters = { bpf: ["(".repeat(3000) + "tcp" + ")".repeat(3000)] })), ": filters: Invalid BPF expression on line 1: expression nests deeper than 64 levels"],
    ["a link filter that does not compile", labFile(2, (f) => (f.topology.links[0]!.filters = { bpf: ["icmp", "tcp port banana"] })), ": filters: Invalid BPF expression on line 2: "],
    [
      `${L.nodesPerProject + 1} nodes`,
      labFile(2, (f) => ((f.topology as { nodes: unknown[] }).nodes = Array.from({ length: L.nodesPerProject + 1 }, () => ({})))),
      `topology.nodes: has ${L.nodesPerProject + 1} items, more than the ${L.nodesPerProject} netemu allows`,
    ],
    [
      `${L.linksPerProject + 1} links`,
      labFile(2, (f) => ((f.topology as { links: unknown[] }).links = Array.from({ length: L.linksPerProject + 1 }, () => ({})))),
      `topology.links: has ${L.linksPerProject + 1} items, more than the ${L.linksPerProject} netemu allows`,
    ],
    [`nesting past ${JSON_DEPTH_LIMIT} levels`, JSON.stringify(labFile(2, (f) => (f["extra"] = "DEEP"))).replace('"DEEP"', "[".repeat(10_000) + "]".repeat(10_000)), `nested deeper than ${JSON_DEPTH_LIMIT} levels`],
    [`variables nested past ${L.jsonDepth} levels`, labFile(2, (f) => (f.variables = nested(L.jsonDepth + 1))), `variables: is nested deeper than ${L.jsonDepth} levels`],
  ];

  for (const [what, bad, reason] of cases) {
    it(`skips a file with ${what}, says why, leaves it as it is, and lists the files before and after it`, async () => {
      put("a", labFile(1));
      const badPath = put("b", bad);
      const badText = readFileSync(badPath, "utf8");
      put("c", labFile(3));

      const s = store();
      const listed = await s.projects.list();
      expect(listed.map((p) => p.projectId).sort()).to.deep.equal([projectId(1), projectId(3)]);
      for (const id of [projectId(1), projectId(3)]) expect(await s.nodes.listByProject(id), id).to.have.length(3);

      const skipped = logger.lines.filter((l) => l.msg.startsWith("project file skipped"));
      expect(skipped.map((l) => l.fields?.["file"])).to.deep.equal([badPath]);
      expect(skipped[0]?.msg).to.equal("project file skipped");
      expect(String(skipped[0]?.fields?.["reason"])).to.include(reason);
      await s.flush();
      expect(readFileSync(badPath, "utf8")).to.equal(badText);
    });
  }

  it("reads a file GNS3 wrote, writes it again after a change that is undone, and the next start reads the same topology", async () => {
    const dir = join(projectsPath, "gns3");
    mkdirSync(dir);
    cpSync(new URL("switches-and-hub.gns3", GNS3_WROTE), join(dir, "switches-and-hub.gns3"));
    const first = store();
    const [project] = await first.projects.list();
    if (project === undefined) throw new Error("not listed");
    const nodes = await first.nodes.listByProject(project.projectId);
    const links = await first.links.listByProject(project.projectId);
    const sw1 = nodes.find((n) => n.name === "SW1");
    if (sw1 === undefined) throw new Error("no SW1");
    await first.nodes.save({ ...sw1, name: "renamed" });
    await first.flush();
    expect(readFileSync(join(dir, "switches-and-hub.gns3"), "utf8")).to.include('"name": "renamed"');
    await first.nodes.save(sw1);
    await first.flush();

    const rewritten = readFileSync(join(dir, "switches-and-hub.gns3"), "utf8");
    const theirs = parseProjectFile(gns3Text(), dir, "switches-and-hub.gns3");
    const ours = parseProjectFile(rewritten, dir, "switches-and-hub.gns3");
    expect(E.isRight(ours) && ours.right).to.deep.equal(E.isRight(theirs) && theirs.right);

    const second = store();
    expect(await second.projects.list()).to.deep.equal([project]);
    const byId = <T extends { nodeId?: string; linkId?: string }>(xs: readonly T[]) => [...xs].sort((a, b) => String(a.nodeId ?? a.linkId).localeCompare(String(b.nodeId ?? b.linkId)));
    expect(byId(await second.nodes.listByProject(project.projectId))).to.deep.equal(byId(nodes));
    expect(byId(await second.links.listByProject(project.projectId))).to.deep.equal(byId(links));
  });
});

describe("project files: written as the HTTP answers are", function () {
  this.timeout(20_000);

  it("escapes a name's non-ASCII characters in the file exactly as the HTTP answer does", async () => {
    const s = await startTestServer({ persistProjects: true });
    try {
      const made = await s.netemu.useCases.createProject.execute({ name: "Café ü" });
      if (E.isLeft(made)) throw new Error(made.left._tag);
      const id = made.right.projectId;
      const answer = await s.request("GET", `/v2/projects/${id}`);
      expect(answer.text).to.include('"name": "Caf\\u00e9 \\u00fc"');
      // Shutting down waits for the file to say what memory says.
      await s.netemu.shutdown();
      const dir = join(s.configDir, "projects", id);
      const [name] = readdirSync(dir).filter((f) => f.endsWith(".gns3"));
      expect(name).to.equal("Café ü.gns3");
      const bytes = readFileSync(join(dir, name as string));
      expect(bytes.toString("latin1")).to.include('"name": "Caf\\u00e9 \\u00fc"');
      expect(bytes.every((b) => b < 0x80), "every byte ASCII").to.equal(true);
      const read = parseProjectFile(bytes.toString("utf8"), dir, name as string);
      expect(E.isRight(read) && read.right.project.name).to.equal("Café ü");
    } finally {
      await s.close();
    }
  });
});
