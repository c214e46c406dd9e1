import { expect } from "chai";
import { execFileSync } from "node:child_process";
import { mkdtempSync, readFileSync, readdirSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { fileURLToPath } from "node:url";

const ROOT = fileURLToPath(new URL("../../../", import.meta.url));

/** Type probes a consumer's compiler must accept: each @ts-expect-error fails the build if the type were loose. */
const PROBE = `import { createNetemu, type PortOverrides } from "netemu";
import { createHttpApp } from "netemu/http";
import { compileExpression, explainExpression } from "netemu/pcap-filter";

export function typeProbes(): void {
  const netemu = createNetemu({ logLevel: "silent" });
  // @ts-expect-error netemu.app is a typed Koa application, not any
  netemu.app.noSuchMember();
  // @ts-expect-error overrides are typed by their ports
  const bad: PortOverrides = { clock: { now: () => 1 } };
  void bad;
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

  it("holds what a user runs and nothing of the repository's tests, benchmarks or CI", () => {
    const files = run("tar", ["tzf", tarball], dir).trim().split("\n");
    for (const entry of ["package/dist/index.js", "package/dist/index.d.ts", "package/dist/http.js", "package/dist/pcap-filter.js", "package/dist/cli.js", "package/README.md"]) {
      expect(files, entry).to.include(entry);
    }
    expect(files.filter((f) => /^package\/(test|bench|src|\.ci|build)\//.test(f))).to.deep.equal([]);
    expect(files.filter((f) => f.endsWith(".map"))).to.deep.equal([]);
  });

  it("compiles the README's embedding example and the subpath entries under strict TypeScript, and runs it", () => {
    const project = join(dir, "consumer");
    run("mkdir", ["-p", project], dir);
    writeFileSync(join(project, "package.json"), JSON.stringify({ name: "consumer", version: "1.0.0", private: true, type: "module" }));
    const ours = JSON.parse(readFileSync(join(ROOT, "package.json"), "utf8")) as { devDependencies: Record<string, string> };
    run(
      "npm",
      ["install", "--no-audit", "--no-fund", "--prefer-offline", tarball, `typescript@${ours.devDependencies["typescript"]}`, `@types/node@${ours.devDependencies["@types/node"]}`],
      project,
    );
    const readme = readFileSync(join(ROOT, "README.md"), "utf8");
    const example = /## Embedding\n\n```ts\n([\s\S]*?)```/.exec(readme)?.[1];
    expect(example, "the README has an embedding example").to.be.a("string");
    writeFileSync(join(project, "example.ts"), example as string);
    writeFileSync(join(project, "probe.ts"), PROBE);
    writeFileSync(
      join(project, "tsconfig.json"),
      JSON.stringify({
        compilerOptions: { target: "ES2022", module: "NodeNext", moduleResolution: "NodeNext", strict: true, skipLibCheck: false, types: ["node"], rootDir: ".", outDir: "out" },
        include: ["example.ts", "probe.ts"],
      }),
    );
    run(join(project, "node_modules", ".bin", "tsc"), ["-p", "."], project);
    expect(readdirSync(join(project, "out")).sort()).to.deep.equal(["example.js", "probe.js"]);
    expect(run("node", ["out/example.js"], project)).to.include("port 0 is live");
    expect(run("node", ["out/probe.js"], project)).to.include("pcap-filter compiles");
  });
});
