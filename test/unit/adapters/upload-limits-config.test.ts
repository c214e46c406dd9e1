import { expect } from "chai";
import { mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { ConfigError, USAGE, resolveConfig } from "../../../src/adapters/config/server-config.js";

describe("server configuration: the caps of the compute files API (ADR 0060)", () => {
  let dir: string;
  beforeEach(() => (dir = mkdtempSync(join(tmpdir(), "netemu-config-"))));
  afterEach(() => rmSync(dir, { recursive: true, force: true }));

  it("caps one upload at 1 GiB and one project's files at 10 GiB by default", () => {
    const c = resolveConfig(["--config-dir", dir], {});
    expect(c.maxUploadBytes).to.equal(1024 ** 3);
    expect(c.maxProjectFilesBytes).to.equal(10 * 1024 ** 3);
  });

  it("takes sizes in bytes or with K, M or G, from flags over the environment over the config file", () => {
    writeFileSync(join(dir, "gns3_server.conf"), "[Server]\nmax_upload_size = 3K\nmax_project_files_size = 5M\n");
    expect(resolveConfig(["--config-dir", dir], {})).to.deep.include({ maxUploadBytes: 3 * 1024, maxProjectFilesBytes: 5 * 1024 ** 2 });
    const env = { NETEMU_MAX_UPLOAD_SIZE: "2G", NETEMU_MAX_PROJECT_FILES_SIZE: "12345" };
    expect(resolveConfig(["--config-dir", dir], env)).to.deep.include({ maxUploadBytes: 2 * 1024 ** 3, maxProjectFilesBytes: 12345 });
    const flags = ["--config-dir", dir, "--max-upload-size", "100", "--max-project-files-size", "1M"];
    expect(resolveConfig(flags, env)).to.deep.include({ maxUploadBytes: 100, maxProjectFilesBytes: 1024 ** 2 });
  });

  it("refuses a size that is not one, naming where it came from", () => {
    for (const bad of ["", "0", "-1", "1.5G", "10T", "1 G", "lots", String(2 ** 50 + 1)]) {
      expect(() => resolveConfig(["--config-dir", dir, `--max-upload-size=${bad}`], {}), bad).to.throw(ConfigError, /^--max-upload-size must be a size in bytes, or digits and K, M or G \(such as 1G\), got/);
    }
    expect(() => resolveConfig(["--config-dir", dir], { NETEMU_MAX_PROJECT_FILES_SIZE: "big" })).to.throw(ConfigError, /^NETEMU_MAX_PROJECT_FILES_SIZE must be a size/);
  });

  it("tells both options in the help", () => {
    expect(USAGE).to.include("--max-upload-size SIZE").and.include("--max-project-files-size SIZE");
  });
});
