import { expect } from "chai";
import { execFileSync } from "node:child_process";
import { cpSync, mkdtempSync, readFileSync, readdirSync, rmSync, symlinkSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { fileURLToPath } from "node:url";

const ROOT = fileURLToPath(new URL("../../../", import.meta.url));

/** Type probes a consumer's compiler must accept: each @ts-expect-error fails the build if the type were loose. */
const PROBE = `import { createNetemu, type LinkFilters, type PortOverrides } from "netemu";
import { createHttpApp } from "netemu/http";
import { compileExpression, explainExpression } from "netemu/pcap-filter";

export function typeProbes(): void {
  const netemu = createNetemu({ logLevel: "silent" });
  // @ts-expect-error netemu.app is a typed Koa application, not any
  netemu.app.noSuchMember();
  // @ts-expect-error overrides are typed by their ports
  const bad: PortOverrides = { clock: { now: () => 1 } };
  void bad;
  const port = { projectId: "p", nodeId: "n", adapterNumber: 0, portNumber: 0 };
  const every: LinkFilters = {
    frequency_drop: [3], packet_loss: [1], delay: [20, 5], corrupt: [1], bpf: ["icmp"], bandwidth: [1000, 50], burst_loss: [1, 30, 100, 0],
    duplicate: [1], reorder: [5], delay_distribution: ["pareto"], delay_correlation: [25], loss_correlation: [25], corrupt_correlation: [25],
    duplicate_correlation: [25], reorder_correlation: [25], match: ["tcp port 80"],
  };
  void every;
  // @ts-expect-error a misspelt filter kind is no filter
  const misspelt: LinkFilters = { bandwith: [1000] };
  void misspelt;
  // @ts-expect-error a misspelt kind next to a right one is still refused
  void netemu.useCases.updateNioFilters.execute({ port, filters: { delay: [20], bandwith: [1000] } });
  // @ts-expect-error a misspelt kind in a NIO's filters
  void netemu.useCases.addNio.execute({ port, nio: { type: "nio_udp", lport: 1, rhost: "h", rport: 2, filters: { packet_los: [1] } } });
  // @ts-expect-error a misspelt kind in a link's filters
  void netemu.useCases.updateLink.execute({ projectId: "p", linkId: "l", filters: { frequency: [3] } });
  // @ts-expect-error delay takes one or two values
  const tooMany: LinkFilters = { delay: [1, 2, 3] };
  void tooMany;
  // @ts-expect-error values are numbers, not text
  const text: LinkFilters = { packet_loss: ["5"] };
  void text;
  // @ts-expect-error delay_distribution is one of uniform, normal, pareto
  const distribution: LinkFilters = { delay_distribution: ["gaussian"] };
  void distribution;
  void createHttpApp;
  void explainExpression;
}

const icmp = compileExpression("icmp");
console.log(icmp._tag === "Right" ? "pcap-filter compiles" : icmp.left.message);
`;

function run(cmd: string, args: readonly string[], cwd: string): string {
  try {
    return execFileSync(cmd, args, { cwd, encoding: "utf8", stdio: ["ignore", "pipe", "pipe"], timeout: 240_000 });
  } catch (err) {
    const e = err as { stdout?: string; stderr?: string; message: string };
    throw new Error(`${cmd} ${args.join(" ")} failed in ${cwd}: ${e.message}\n${e.stdout ?? ""}\n${e.stderr ?? ""}`);
  }
}

/**
 * The package as a user gets it: `npm pack`, installed into a scratch project with the
 * TypeScript it is built with, compiled under `strict` with `skipLibCheck: false`, and run.
 */
describe("the packed netemu package in a consumer project", function () {
  this.timeout(300_000);
  let dir: string;
  let tarball: string;

  before(() => {
    dir = mkdtempSync(join(tmpdir(), "netemu-consumer-"));
    const packed = run("npm", ["pack", "--silent", "--pack-destination", dir], ROOT).trim().split("\n").pop() as string;
    tarball = join(dir, packed);
  });

  after(() => rmSync(dir, { recursive: true, force: true }));

  it("packs dist/ from a fresh clone, which has none: prepack builds it", () => {
    const clone = join(dir, "clone");
    for (const file of run("git", ["ls-files"], ROOT).trim().split("\n")) cpSync(join(ROOT, file), join(clone, file));
    symlinkSync(join(ROOT, "node_modules"), join(clone, "node_modules"));
    const [packed] = JSON.parse(run("npm", ["pack", "--dry-run", "--json"], clone)) as { files: { path: string }[] }[];
    const paths = (packed?.files ?? []).map((f) => f.path);
    expect(paths).to.include.members(["dist/index.js", "dist/index.d.ts", "dist/cli.js"]);
  });

  it("holds what a user runs and nothing of the repository's tests, benchmarks or CI", () => {
    const files = run("tar", ["tzf", tarball], dir).trim().split("\n");
    for (const entry of ["package/dist/index.js", "package/dist/index.d.ts", "package/dist/http.js", "package/dist/pcap-filter.js", "package/dist/cli.js", "package/README.md"]) {
      expect(files, entry).to.include(entry);
    }
    expect(files.filter((f) => /^package\/(test|bench|src|\.ci|build)\//.test(f))).to.deep.equal([]);
    // The batched datagram addon ships as source and is built at install, on the user's machine (ADR 0068).
    expect(files.filter((f) => f.startsWith("package/native/")).sort()).to.deep.equal(["package/native/build.mjs", "package/native/udp-batch.c"]);
    expect(files.filter((f) => f.endsWith(".map"))).to.deep.equal([]);
  });

  it("compiles the README's embedding example and the subpath entries under strict TypeScript, and runs it", () => {
    const project = join(dir, "consumer");
    run("mkdir", ["-p", project], dir);
    writeFileSync(join(project, "package.json"), JSON.stringify({ name: "consumer", version: "1.0.0", private: true, type: "module" }));
    const ours = JSON.parse(readFileSync(join(ROOT, "package.json"), "utf8")) as { devDependencies: Record<string, string> };
    const readme = readFileSync(join(ROOT, "README.md"), "utf8");
    const section = /\n## Embedding\n([\s\S]*?)\n## /.exec(readme)?.[1] ?? "";
    // What the README tells an embedder to install, tarball aside: the test installs the same.
    const install = /`npm install \.\/netemu-[\d.]+\.tgz ([^`]*)`/.exec(section)?.[1];
    expect(install, "the README says what to install beside netemu").to.be.a("string");
    run(
      "npm",
      ["install", "--no-audit", "--no-fund", "--prefer-offline", tarball, ...(install as string).split(" "), `typescript@${ours.devDependencies["typescript"]}`, `@types/node@${ours.devDependencies["@types/node"]}`],
      project,
    );
    const examples = [...section.matchAll(/```ts\n([\s\S]*?)```/g)].map((m) => m[1] as string);
    expect(examples.length, "the README has embedding examples").to.be.at.least(2);
    const names = examples.map((_, i) => `example${i}.ts`);
    examples.forEach((text, i) => writeFileSync(join(project, names[i] as string), text));
    writeFileSync(join(project, "probe.ts"), PROBE);
    writeFileSync(
      join(project, "tsconfig.json"),
      JSON.stringify({
        compilerOptions: { target: "ES2022", module: "NodeNext", moduleResolution: "NodeNext", strict: true, skipLibCheck: false, types: ["node"], rootDir: ".", outDir: "out" },
        include: [...names, "probe.ts"],
      }),
    );
    run(join(project, "node_modules", ".bin", "tsc"), ["-p", "."], project);
    expect(readdirSync(join(project, "out")).sort()).to.deep.equal([...names.map((n) => n.replace(/\.ts$/, ".js")), "probe.js"].sort());
    const first = run("node", ["out/example0.js"], project);
    expect(first).to.include("port 0 is live").and.include("port 0 now has 50 ms");
    expect(first, "logLevel warn: no info lines on stdout").not.to.include('"level":30');
    expect(run("node", ["out/example1.js"], project), "the host's logger gets netemu's lines").to.include("netemu: ");
    expect(run("node", ["out/probe.js"], project)).to.include("pcap-filter compiles");
  });

  it("installs as a command from the tarball, as the README's \"Install netemu on another host\" says", () => {
    const prefix = join(dir, "global");
    run("npm", ["install", "-g", "--prefix", prefix, "--no-audit", "--no-fund", "--prefer-offline", tarball], dir);
    const netemu = join(prefix, "bin", "netemu");
    const ours = JSON.parse(readFileSync(join(ROOT, "package.json"), "utf8")) as { version: string };
    expect(run(netemu, ["--version"], dir).trim()).to.equal(ours.version);
    expect(tarball.endsWith(`netemu-${ours.version}.tgz`)).to.equal(true);
    const named = [...readFileSync(join(ROOT, "README.md"), "utf8").matchAll(/netemu-(\d+\.\d+\.\d+)\.tgz/g)].map((m) => m[1]);
    expect(named.length, "the README names the tarball").to.be.greaterThan(0);
    expect([...new Set(named)], "the README names the tarball npm pack writes").to.deep.equal([ours.version]);
    expect(run(netemu, ["serve", "--help"], dir)).to.include("--extended-filters").and.include("reorder_correlation");

    // The install built the batched datagram addon where it could (a C compiler and Node's headers), and
    // the installed netemu finds it; without them it runs on node:dgram and says why, never failing.
    const installed = join(prefix, "lib", "node_modules", "netemu");
    const transport = join(installed, "dist", "adapters", "transport", "batched-udp-transport.js");
    const probe = `import { chooseUdpTransport } from ${JSON.stringify(transport)}; console.log(JSON.stringify(chooseUdpTransport({ bindHost: "127.0.0.1", receiveBufferBytes: 0, sendBufferBytes: 0 }, undefined, {}).path));`;
    const path = JSON.parse(run("node", ["--input-type=module", "-e", probe], dir)) as { kind: string; reason?: string };
    if (path.kind !== "batched") {
      if (process.env["CI"] === "true") throw new Error(`the installed netemu runs on node:dgram (${path.reason}); CI=true: the install must build the addon`);
      expect(path.reason).to.include("is not built");
    }
  });
});
