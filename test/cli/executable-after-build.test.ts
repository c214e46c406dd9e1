import { expect } from "chai";
import { spawnSync } from "node:child_process";
import { copyFileSync, mkdirSync, mkdtempSync, rmSync, statSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { fileURLToPath } from "node:url";

const ROOT = fileURLToPath(new URL("../../../", import.meta.url));
const CLI = join(ROOT, "dist", "cli.js");
const BIN = join(ROOT, "bin", "netemu.js");

/**
 * `npx netemu` runs the package's bin itself (npm links it, it does not wrap it in `node`): bin/netemu.js,
 * kept in git with its run bit, which runs `dist/cli.js`. `dist/cli.js` keeps its run bit too, for those
 * who run it directly: tsc writes new files 0644, and `npm run build` removes dist/ first, so each
 * rebuild used to leave `sh: 1: netemu: Permission denied`.
 */
describe("the built netemu command", function () {
  this.timeout(120_000);

  it("runs as an executable straight after `npm run build`, as npx and the package's bin run it", () => {
    const build = spawnSync("npm", ["run", "build"], { cwd: ROOT, encoding: "utf8" });
    expect(build.status, build.stderr).to.equal(0);
    expect(statSync(CLI).mode & 0o111, "dist/cli.js has no execute bit").to.equal(0o111);
    const help = spawnSync(CLI, ["--help"], { cwd: ROOT, encoding: "utf8" });
    expect(help.error?.message, "dist/cli.js could not be executed").to.equal(undefined);
    expect(help.status, help.stderr).to.equal(0);
    expect(help.stdout).to.include("netemu serve");
    const viaBin = spawnSync(BIN, ["--version"], { cwd: ROOT, encoding: "utf8" });
    expect([viaBin.error?.message, viaBin.status, viaBin.stdout.trim()], viaBin.stderr).to.deep.equal([undefined, 0, "0.1.0"]);
  });

  it("exists before the first build (a fresh clone), and then says how to build instead of not being found (ADR 0089)", () => {
    expect(statSync(BIN).mode & 0o111, "bin/netemu.js has no execute bit").to.equal(0o111);
    const clone = mkdtempSync(join(tmpdir(), "netemu-unbuilt-"));
    try {
      mkdirSync(join(clone, "bin"));
      copyFileSync(BIN, join(clone, "bin", "netemu.js"));
      const run = spawnSync(process.execPath, [join(clone, "bin", "netemu.js"), "--version"], { encoding: "utf8" });
      expect(run.status).to.equal(2);
      expect(run.stderr).to.equal(`netemu: not built yet (no ${join(clone, "dist", "cli.js")}): run \`npm run build\`, or \`npm start\`, which builds first\n`);
    } finally {
      rmSync(clone, { recursive: true, force: true });
    }
  });
});
