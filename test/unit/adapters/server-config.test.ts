import { expect } from "chai";
import { mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { homedir, tmpdir } from "node:os";
import { join } from "node:path";
import { ConfigError, exposureWarning, resolveConfig } from "../../../src/adapters/config/server-config.js";
import { DEFAULT_DATA_PLANE_OPTIONS } from "../../../src/application/dataplane/switch-data-plane.js";
import { parseIni } from "../../../src/adapters/config/ini.js";

describe("server configuration", () => {
  let dir: string;
  beforeEach(() => (dir = mkdtempSync(join(tmpdir(), "netemu-config-"))));
  afterEach(() => rmSync(dir, { recursive: true, force: true }));

  it("has GNS3's defaults", () => {
    const c = resolveConfig(["--config-dir", dir], {});
    expect(c).to.deep.include({ host: "127.0.0.1", port: 3080, local: true, gns3Version: "2.2.59", logLevel: "info" });
    expect(c.udpPortRange).to.deep.equal({ start: 20000, end: 30000 });
    expect(c.auth).to.deep.equal({ enabled: false, user: "", password: "" });
    expect(c.projectsPath).to.equal(join(dir, "projects"));
  });

  it("reads [Server] of gns3_server.conf, then the environment, then flags, each overriding the one before", () => {
    writeFileSync(join(dir, "gns3_server.conf"), "# comment\n[Server]\nport = 4000\nhost = 127.0.0.2\nauth = True\nuser = gns3 \npassword = secret\nudp_start_port_range = 21000\n");
    const file = resolveConfig(["--config-dir", dir], {});
    expect(file).to.deep.include({ port: 4000, host: "127.0.0.2" });
    expect(file.auth).to.deep.equal({ enabled: true, user: "gns3", password: "secret" });
    expect(file.udpPortRange.start).to.equal(21000);
    const env = resolveConfig(["--config-dir", dir], { NETEMU_PORT: "4001", NETEMU_AUTH: "false" });
    expect(env.port).to.equal(4001);
    expect(env.auth.enabled).to.equal(false);
    const flags = resolveConfig(["--config-dir", dir, "--port", "4002", "--no-local", "--auth"], { NETEMU_PORT: "4001", NETEMU_AUTH: "false" });
    expect(flags).to.deep.include({ port: 4002, local: false });
    expect(flags.auth.enabled).to.equal(true);
  });

  it("lists GNS3's five filters only, unless told to list netemu's impairments too (flag over environment over file)", () => {
    expect(resolveConfig(["--config-dir", dir], {}).extendedFilters).to.equal(false);
    writeFileSync(join(dir, "gns3_server.conf"), "[Server]\nextended_filters = True\n");
    expect(resolveConfig(["--config-dir", dir], {}).extendedFilters).to.equal(true);
    expect(resolveConfig(["--config-dir", dir], { NETEMU_EXTENDED_FILTERS: "false" }).extendedFilters).to.equal(false);
    expect(resolveConfig(["--config-dir", dir, "--extended-filters"], { NETEMU_EXTENDED_FILTERS: "false" }).extendedFilters).to.equal(true);
    expect(resolveConfig(["--config-dir", dir, "--no-extended-filters"], {}).extendedFilters).to.equal(false);
  });

  it("places the data plane's nodes by load unless told to keep them where their id hashes (flag over environment over file)", () => {
    expect(resolveConfig(["--config-dir", dir], {}).dataPlaneBalance).to.equal(true);
    writeFileSync(join(dir, "gns3_server.conf"), "[Server]\ndataplane_balance = False\n");
    expect(resolveConfig(["--config-dir", dir], {}).dataPlaneBalance).to.equal(false);
    expect(resolveConfig(["--config-dir", dir], { NETEMU_DATAPLANE_BALANCE: "true" }).dataPlaneBalance).to.equal(true);
    expect(resolveConfig(["--config-dir", dir, "--no-dataplane-balance"], { NETEMU_DATAPLANE_BALANCE: "true" }).dataPlaneBalance).to.equal(false);
    expect(resolveConfig(["--config-dir", dir, "--dataplane-balance"], {}).dataPlaneBalance).to.equal(true);
    expect(() => resolveConfig(["--config-dir", dir], { NETEMU_DATAPLANE_BALANCE: "sometimes" })).to.throw(ConfigError, "NETEMU_DATAPLANE_BALANCE");
  });

  it("bounds what delays hold at 64 MiB per port and 256 MiB per data-plane thread, unless told otherwise in a size (flag over environment over file)", () => {
    // A frame per KiB: the data plane's own defaults.
    expect(resolveConfig(["--config-dir", dir], {}).delayLimits).to.deep.equal({
      heldBytesPerPort: DEFAULT_DATA_PLANE_OPTIONS.heldBytesPerPort,
      heldFramesPerPort: DEFAULT_DATA_PLANE_OPTIONS.heldFramesPerPort,
      heldBytesPerWorker: DEFAULT_DATA_PLANE_OPTIONS.heldBytesPerWorker,
      heldFramesPerWorker: DEFAULT_DATA_PLANE_OPTIONS.heldFramesPerWorker,
    });
    expect(resolveConfig(["--config-dir", dir], {}).delayLimits).to.deep.equal({ heldBytesPerPort: 64 * 1024 ** 2, heldFramesPerPort: 65_536, heldBytesPerWorker: 256 * 1024 ** 2, heldFramesPerWorker: 262_144 });
    writeFileSync(join(dir, "gns3_server.conf"), "[Server]\ndelay_limit_port = 16M\ndelay_limit_worker = 1G\n");
    expect(resolveConfig(["--config-dir", dir], {}).delayLimits).to.deep.equal({ heldBytesPerPort: 16 * 1024 ** 2, heldFramesPerPort: 16_384, heldBytesPerWorker: 1024 ** 3, heldFramesPerWorker: 1024 ** 2 });
    expect(resolveConfig(["--config-dir", dir], { NETEMU_DELAY_LIMIT_PORT: "1G" }).delayLimits.heldBytesPerPort).to.equal(1024 ** 3);
    expect(resolveConfig(["--config-dir", dir, "--delay-limit-worker", "65536"], { NETEMU_DELAY_LIMIT_WORKER: "2G" }).delayLimits).to.deep.include({ heldBytesPerWorker: 65536, heldFramesPerWorker: 64 });
    expect(() => resolveConfig(["--config-dir", dir, "--delay-limit-port", "1K"], {})).to.throw(ConfigError, '--delay-limit-port must be at least 64K, got "1K"');
    expect(() => resolveConfig(["--config-dir", dir], { NETEMU_DELAY_LIMIT_WORKER: "lots" })).to.throw(ConfigError, "NETEMU_DELAY_LIMIT_WORKER must be a size");
  });

  it("gives host consoles GNS3's 5000-10000 unless told another range (flag over environment over file), and refuses an empty one", () => {
    expect(resolveConfig(["--config-dir", dir], {}).consolePortRange).to.deep.equal({ start: 5000, end: 10000 });
    writeFileSync(join(dir, "gns3_server.conf"), "[Server]\nconsole_start_port_range = 31000\nconsole_end_port_range = 31999\n");
    expect(resolveConfig(["--config-dir", dir], {}).consolePortRange).to.deep.equal({ start: 31000, end: 31999 });
    expect(resolveConfig(["--config-dir", dir], { NETEMU_CONSOLE_START_PORT: "31500" }).consolePortRange).to.deep.equal({ start: 31500, end: 31999 });
    expect(resolveConfig(["--config-dir", dir, "--console-start-port", "30000", "--console-end-port", "30099"], { NETEMU_CONSOLE_START_PORT: "31500" }).consolePortRange).to.deep.equal({ start: 30000, end: 30099 });
    expect(() => resolveConfig(["--config-dir", dir, "--console-start-port", "30100", "--console-end-port", "30099"], {})).to.throw(ConfigError, "The console port range 30100-30099 is empty");
  });

  it("refuses bad values, naming where they came from", () => {
    const refuse = (args: string[], env: Record<string, string> = {}) => {
      try {
        resolveConfig(["--config-dir", dir, ...args], env);
      } catch (err) {
        expect(err).to.be.instanceOf(ConfigError);
        return (err as Error).message;
      }
      throw new Error("expected a ConfigError");
    };
    expect(refuse(["--port", "x"])).to.equal('--port must be an integer between 0 and 65535, got "x"');
    expect(refuse([], { NETEMU_LOCAL: "maybe" })).to.equal('NETEMU_LOCAL must be true or false, got "maybe"');
    expect(refuse(["--udp-start-port", "30000", "--udp-end-port", "20000"])).to.equal("The UDP port range 30000-20000 is empty");
    expect(refuse(["--log-level", "loud"])).to.include("log level must be one of");
    expect(refuse(["--bogus"])).to.include("bogus");
    expect(refuse(["--config", join(dir, "missing.conf")])).to.include("Cannot read the config file");
    expect(refuse([], { NETEMU_UDP_PATH: "fast" })).to.equal('NETEMU_UDP_PATH must be dgram or unset, got "fast"');
    expect(refuse([], { NETEMU_IN_PROCESS_LINKS: "of" })).to.equal('NETEMU_IN_PROCESS_LINKS must be on, off, thread or threads, got "of"');
  });

  it("accepts NETEMU_IN_PROCESS_LINKS on, off, thread, threads or none (the transport reads it, ADR 0105, 0111, 0112)", () => {
    for (const value of ["on", "off", "OFF", "false", "0", "", "thread", "threads", "Threads"]) expect(() => resolveConfig(["--config-dir", dir], { NETEMU_IN_PROCESS_LINKS: value }), value).not.to.throw();
  });

  it("accepts NETEMU_UDP_PATH=dgram or none (the transport reads it, ADR 0068)", () => {
    expect(() => resolveConfig(["--config-dir", dir], { NETEMU_UDP_PATH: "dgram" })).not.to.throw();
    expect(() => resolveConfig(["--config-dir", dir], { NETEMU_UDP_PATH: "" })).not.to.throw();
  });

  it("accepts NETEMU_UDP_GSO on, off or none, and refuses any other value rather than ignore a typo (ADR 0106)", () => {
    for (const value of ["on", "off", ""]) expect(() => resolveConfig(["--config-dir", dir], { NETEMU_UDP_GSO: value })).not.to.throw();
    expect(() => resolveConfig(["--config-dir", dir], { NETEMU_UDP_GSO: "no" })).to.throw(ConfigError, 'NETEMU_UDP_GSO must be on, off or unset, got "no"');
  });

  it("accepts NETEMU_UDP_COALESCE_US of 0 to 1000 µs, off or none, and refuses anything else, naming the range (ADR 0110)", () => {
    for (const value of ["0", "1", "200", "1000", "off", " 50 ", ""]) expect(() => resolveConfig(["--config-dir", dir], { NETEMU_UDP_COALESCE_US: value }), value).not.to.throw();
    const wrong = 'NETEMU_UDP_COALESCE_US must be a whole number of microseconds from 0 to 1000, or off; got';
    for (const value of ["-1", "1.5", "200us", "on", "0x10"]) expect(() => resolveConfig(["--config-dir", dir], { NETEMU_UDP_COALESCE_US: value }), value).to.throw(ConfigError, `${wrong} "${value}"`);
    expect(() => resolveConfig(["--config-dir", dir], { NETEMU_UDP_COALESCE_US: "1001" })).to.throw(ConfigError, "NETEMU_UDP_COALESCE_US is at most 1000 µs (a frame may wait that long), got 1001");
  });

  it("parses GNS3's INI dialect and says which line is wrong", () => {
    expect(parseIni("[Server]\nhost=0.0.0.0\n; c\nPort : 3080\n")).to.deep.equal({ Server: { host: "0.0.0.0", port: "3080" } });
    expect(() => parseIni("[Server]\nbroken line\n")).to.throw("line 2");
    expect(() => parseIni("host = x\n")).to.throw("line 1");
  });

  it("warns only when the API is reachable beyond loopback without authentication", () => {
    const off = { enabled: false, user: "", password: "" };
    expect(exposureWarning({ host: "127.0.0.1", auth: off })).to.equal(undefined);
    expect(exposureWarning({ host: "::1", auth: off })).to.equal(undefined);
    expect(exposureWarning({ host: "0.0.0.0", auth: { ...off, enabled: true } })).to.equal(undefined);
    expect(exposureWarning({ host: "0.0.0.0", auth: off })).to.include("without authentication");
  });

  it("expands ~ and ~/ in paths, as GNS3 does for projects_path = ~/GNS3/projects, from flags, the environment and the file", () => {
    expect(resolveConfig(["--config-dir", dir, "--projects-path", "~/GNS3/projects"], {}).projectsPath).to.equal(join(homedir(), "GNS3", "projects"));
    expect(resolveConfig(["--config-dir", dir], { NETEMU_PROJECTS_PATH: "~" }).projectsPath).to.equal(homedir());
    writeFileSync(join(dir, "gns3_server.conf"), "[Server]\nprojects_path = ~/GNS3/projects\n");
    expect(resolveConfig(["--config-dir", dir], {}).projectsPath).to.equal(join(homedir(), "GNS3", "projects"));
    expect(resolveConfig(["--config-dir", "~/.config/netemu-test"], {}).configDir).to.equal(join(homedir(), ".config", "netemu-test"));
    expect(resolveConfig(["--config-dir", dir, "--projects-path", "/srv/~x"], {}).projectsPath, "a ~ inside a path is a name").to.equal("/srv/~x");
  });

  it("turns local mode off by default when serving beyond loopback without auth, and says why", () => {
    const exposed = resolveConfig(["--config-dir", dir, "--host", "0.0.0.0"], {});
    expect(exposed.local).to.equal(false);
    expect(exposed.notices.join("\n")).to.include("local mode is off").and.include("0.0.0.0");
    const loopback = resolveConfig(["--config-dir", dir], {});
    expect(loopback.local).to.equal(true);
    expect(loopback.notices).to.deep.equal([]);
    const withAuth = resolveConfig(["--config-dir", dir, "--host", "0.0.0.0", "--auth", "--user", "u", "--password", "p"], {});
    expect(withAuth.local).to.equal(true);
  });

  it("keeps local mode on beyond loopback when the operator asks for it (flag, environment or file)", () => {
    expect(resolveConfig(["--config-dir", dir, "--host", "0.0.0.0", "--local"], {})).to.deep.include({ local: true, notices: [] });
    expect(resolveConfig(["--config-dir", dir, "--host", "0.0.0.0"], { NETEMU_LOCAL: "true" }).local).to.equal(true);
    writeFileSync(join(dir, "gns3_server.conf"), "[Server]\nhost = 0.0.0.0\nlocal = True\n");
    expect(resolveConfig(["--config-dir", dir], {}).local).to.equal(true);
  });

  it("refuses auth without a user, naming where auth was turned on", () => {
    expect(() => resolveConfig(["--config-dir", dir, "--auth"], {})).to.throw(ConfigError, "--auth");
    expect(() => resolveConfig(["--config-dir", dir, "--user", " "], { NETEMU_AUTH: "true" })).to.throw(ConfigError, "no user is set");
    expect(resolveConfig(["--config-dir", dir, "--auth", "--user", "gns3"], {}).auth).to.deep.equal({ enabled: true, user: "gns3", password: "" });
  });

  it("refuses a section or a key given twice, naming the line of each, as Python's configparser", () => {
    expect(() => parseIni("[Server]\nport = 1\n[Qemu]\n[Server]\nhost = x\n")).to.throw("line 4: section [Server] appears a second time (first at line 1)");
    expect(() => parseIni("[Server]\nport = 1\nPort = 2\n")).to.throw('line 3: "port" appears a second time in [Server] (first at line 2)');
    expect(parseIni("[Server]\nport = 1\n[Qemu]\nport = 2\n")).to.deep.equal({ Server: { port: "1" }, Qemu: { port: "2" } });
    const file = join(dir, "gns3_server.conf");
    writeFileSync(file, "[Server]\nport = 3080\n[Server]\nlocal = false\n");
    expect(() => resolveConfig(["--config-dir", dir], {})).to.throw(ConfigError, `The config file ${file} is not valid: line 3`);
  });
});
