import { expect } from "chai";
import { spawnSync } from "node:child_process";
import { existsSync, mkdtempSync, readFileSync, rmSync, statSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { fileURLToPath } from "node:url";

const ROOT = fileURLToPath(new URL("../../../", import.meta.url));
const CLI = join(ROOT, "dist", "cli.js");

describe("CLI start with a corrupt gns3_controller.conf", function () {
  this.timeout(15_000);

  it("exits with status 2, names the file and the line, and leaves the file byte for byte as it was", function () {
    if (!existsSync(CLI)) {
      console.log("      skipped: dist/cli.js is missing (run npm run build first)");
      this.skip();
    }
    const dir = mkdtempSync(join(tmpdir(), "netemu-hard-cli-"));
    try {
      const file = join(dir, "gns3_controller.conf");
      const text = '{\n    "iou_license": {\n        "iourc_content": "x",\n        "license_check": tru\n    }\n}\n';
      writeFileSync(file, text);
      const mtime = statSync(file).mtimeMs;
      const run = spawnSync(process.execPath, [CLI, "serve", "--config-dir", dir, "--host", "127.0.0.1", "--port", "0"], {
        encoding: "utf8",
        timeout: 10_000,
        env: { ...process.env, NETEMU_LOG_LEVEL: "silent" },
      });
      const output = `${run.stdout}${run.stderr}`;
      expect(run.status, output).to.equal(2);
      expect(output).to.include(file);
      expect(output, "the line of the error (4)").to.match(/line 4\b/);
      expect(readFileSync(file, "utf8")).to.equal(text);
      expect(statSync(file).mtimeMs).to.equal(mtime);
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });
});
