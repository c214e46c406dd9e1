import { expect } from "chai";
import { mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { ConfigError, resolveConfig } from "../../../src/adapters/config/server-config.js";

describe("server configuration of the /v3/compute slice", () => {
  let dir: string;
  beforeEach(() => (dir = mkdtempSync(join(tmpdir(), "netemu-config-"))));
  afterEach(() => rmSync(dir, { recursive: true, force: true }));

  it("reports 3.0.6 and checks credentials by default, apart from the version v2 reports", () => {
    const c = resolveConfig(["--config-dir", dir, "--gns3-version", "2.2.58"], {});
    expect(c.gns3Version).to.equal("2.2.58");
    expect(c.v3).to.deep.equal({ gns3Version: "3.0.6", noAuth: false });
  });

  it("takes the v3 version and the explicit no-auth choice from the file, the environment and flags, each overriding the one before", () => {
    writeFileSync(join(dir, "gns3_server.conf"), "[Server]\ngns3_v3_version = 3.0.5\nv3_no_auth = True\n");
    expect(resolveConfig(["--config-dir", dir], {}).v3).to.deep.equal({ gns3Version: "3.0.5", noAuth: true });
    const env = resolveConfig(["--config-dir", dir], { NETEMU_GNS3_V3_VERSION: "3.0.6", NETEMU_V3_NO_AUTH: "false" });
    expect(env.v3).to.deep.equal({ gns3Version: "3.0.6", noAuth: false });
    const flags = resolveConfig(["--config-dir", dir, "--gns3-v3-version", "3.1.0", "--v3-no-auth"], { NETEMU_V3_NO_AUTH: "false" });
    expect(flags.v3).to.deep.equal({ gns3Version: "3.1.0", noAuth: true });
  });

  it("refuses a no-auth choice that is not a boolean, naming where it came from", () => {
    expect(() => resolveConfig(["--config-dir", dir], { NETEMU_V3_NO_AUTH: "maybe" })).to.throw(ConfigError, /NETEMU_V3_NO_AUTH/);
  });
});
