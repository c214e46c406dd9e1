import { expect } from "chai";
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { ConfigError, resolveConfig, USAGE } from "../../../src/adapters/config/server-config.js";

describe("the web UI directory setting (ADR 0092)", () => {
  let dir: string;
  let ui: string;
  beforeEach(() => {
    dir = mkdtempSync(join(tmpdir(), "netemu-config-"));
    ui = join(dir, "web-ui");
    mkdirSync(ui);
    writeFileSync(join(ui, "index.html"), "<app-root></app-root>");
  });
  afterEach(() => rmSync(dir, { recursive: true, force: true }));

  it("serves no web UI unless told a directory", () => {
    expect(resolveConfig(["--config-dir", dir], {}).webUiDir).to.equal(undefined);
  });

  it("reads the directory from --web-ui, NETEMU_WEB_UI or web_ui in [Server], each overriding the one before", () => {
    const other = join(dir, "other");
    mkdirSync(other);
    writeFileSync(join(other, "index.html"), "");
    writeFileSync(join(dir, "gns3_server.conf"), `[Server]\nweb_ui = ${ui}\n`);
    expect(resolveConfig(["--config-dir", dir], {}).webUiDir).to.equal(ui);
    expect(resolveConfig(["--config-dir", dir], { NETEMU_WEB_UI: other }).webUiDir).to.equal(other);
    expect(resolveConfig(["--config-dir", dir, "--web-ui", ui], { NETEMU_WEB_UI: other }).webUiDir).to.equal(ui);
  });

  it("refuses at start a directory that does not exist, naming the setting", () => {
    expect(() => resolveConfig(["--config-dir", dir, "--web-ui", join(dir, "absent")], {})).to.throw(ConfigError, /^--web-ui: the web UI directory .*absent cannot be read/);
  });

  it("refuses at start a file given as the directory", () => {
    expect(() => resolveConfig(["--config-dir", dir], { NETEMU_WEB_UI: join(ui, "index.html") })).to.throw(ConfigError, /^NETEMU_WEB_UI: .* is not a directory/);
  });

  it("refuses at start a directory without index.html: not a compiled web UI", () => {
    expect(() => resolveConfig(["--config-dir", dir, "--web-ui", dir], {})).to.throw(ConfigError, /has no index\.html: it is not a compiled GNS3 web UI/);
  });

  it("is named in netemu serve --help, with its environment variable and that the UI is not shipped", () => {
    expect(USAGE).to.contain("--web-ui DIR").and.to.contain("NETEMU_WEB_UI").and.to.contain("not shipped");
  });
});
