import { expect } from "chai";
import { spawnSync } from "node:child_process";
import { mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { fileURLToPath, pathToFileURL } from "node:url";

const ROOT = fileURLToPath(new URL("../../../", import.meta.url));
const CLI = join(ROOT, "dist", "cli.js");

/**
 * `netemu lab`, `impair` and `bpf` are clients: they start without loading the server (the composition
 * root and everything it wires), which took most of a `netemu lab` run's start (bench/lab-deploy.bench.ts,
 * docs/benchmarks.md "Lab deploy"). A module hook refuses to load the composition root, so a command that
 * loads it fails with the hook's words.
 */
describe("netemu's client commands", function () {
  this.timeout(60_000);
  let dir: string;
  let hook: string;

  before(() => {
    dir = mkdtempSync(join(tmpdir(), "netemu-client-start-"));
    const hooks = join(dir, "hooks.mjs");
    writeFileSync(
      hooks,
      `export async function resolve(specifier, context, next) {
  const resolved = await next(specifier, context);
  if (resolved.url.endsWith("/adapters/composition-root.js")) throw new Error("the server's composition root was loaded");
  return resolved;
}
`,
    );
    hook = join(dir, "register.mjs");
    writeFileSync(hook, `import { register } from "node:module";\nregister(${JSON.stringify(pathToFileURL(hooks).href)});\n`);
  });

  after(() => rmSync(dir, { recursive: true, force: true }));

  const run = (args: readonly string[]) =>
    spawnSync(process.execPath, ["--import", hook, CLI, ...args], { encoding: "utf8", timeout: 20_000, env: { ...process.env, NETEMU_LOG_LEVEL: "silent" } });

  it("netemu lab runs without loading the server: its help, and a deploy that finds no netemu at the address", () => {
    const help = run(["lab", "--help"]);
    expect(help.status, help.stderr).to.equal(0);
    expect(help.stdout).to.include("usage: netemu lab deploy FILE");
    const lab = join(dir, "one.yml");
    writeFileSync(lab, "name: one\nnodes:\n  sw1: {kind: ethernet_switch}\n");
    const deploy = run(["lab", "deploy", lab, "--server", "http://127.0.0.1:4"]);
    expect(deploy.stderr).to.include("no answer from http://127.0.0.1:4").and.not.include("composition root");
    expect(deploy.status).to.equal(2);
  });

  it("netemu impair, netemu bpf and netemu --version run without loading the server", () => {
    const impair = run(["impair", "list", "--server", "http://127.0.0.1:4"]);
    expect(impair.stderr).to.not.include("composition root");
    expect(impair.status).to.equal(2);
    const bpf = run(["bpf"]);
    expect(bpf.stderr).to.not.include("composition root");
    expect(bpf.status).to.equal(2);
    const version = run(["--version"]);
    expect(version.status, version.stderr).to.equal(0);
  });

  it("netemu serve loads the server (the hook refuses it: it is seen)", () => {
    const serve = run(["serve", "--host", "127.0.0.1", "--port", "0", "--config-dir", join(dir, "config"), "--dataplane-workers", "0"]);
    expect(serve.stderr).to.include("the server's composition root was loaded");
    expect(serve.status).to.not.equal(0);
  });
});
