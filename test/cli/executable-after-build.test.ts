import { expect } from "chai";
import { spawnSync } from "node:child_process";
import { statSync } from "node:fs";
import { join } from "node:path";
import { fileURLToPath } from "node:url";

const ROOT = fileURLToPath(new URL("../../../", import.meta.url));
const CLI = join(ROOT, "dist", "cli.js");

/**
 * `npx netemu` runs `dist/cli.js` itself (npm links the bin, it does not wrap it in `node`), so the
 * file must keep its run bit after every build: tsc writes new files 0644, and `npm run build`
 * removes dist/ first, so each rebuild used to leave `sh: 1: netemu: Permission denied`.
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
  });
});
