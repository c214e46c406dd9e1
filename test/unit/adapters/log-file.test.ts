import { expect } from "chai";
import { mkdtempSync, readdirSync, readFileSync, rmSync, statSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { ConfigError, resolveConfig } from "../../../src/adapters/config/server-config.js";
import { LogFileUnwritable, openLogFile } from "../../../src/adapters/system/log-file.js";
import { PinoLogger } from "../../../src/adapters/system/pino-logger.js";

describe("the log file", () => {
  let dir: string;
  beforeEach(() => (dir = mkdtempSync(join(tmpdir(), "netemu-log-"))));
  afterEach(() => rmSync(dir, { recursive: true, force: true }));

  it("rotates by size and keeps no more old files than told, the newest lines in the live file", async () => {
    const path = join(dir, "netemu.log");
    const file = openLogFile({ path, maxSize: "2K", maxFiles: 3 });
    const logger = new PinoLogger("info", file.stream);
    // About 40 KB of lines: twenty times the size limit.
    for (let i = 0; i < 400; i++) logger.info("request", { method: "POST", url: `/v2/compute/projects/${i}`, status: 201, seq: i });
    await file.close();
    expect(readdirSync(dir).sort()).to.deep.equal(["netemu.log", "netemu.log.1", "netemu.log.2", "netemu.log.3"]);
    for (const name of ["netemu.log.1", "netemu.log.2", "netemu.log.3"]) {
      // A write is never split, so a rotated file ends at most one line past the limit.
      expect(statSync(join(dir, name)).size).to.be.within(2048, 2048 + 200);
    }
    const seqs = (name: string) => readFileSync(join(dir, name), "utf8").trim().split("\n").map((l) => (JSON.parse(l) as { seq: number }).seq);
    const live = seqs("netemu.log");
    expect(live.at(-1)).to.equal(399);
    // Older files hold older lines, with none lost between them.
    const three = seqs("netemu.log.3"), two = seqs("netemu.log.2"), one = seqs("netemu.log.1");
    expect(two[0]).to.equal((three.at(-1) as number) + 1);
    expect(one[0]).to.equal((two.at(-1) as number) + 1);
    expect(live[0]).to.equal((one.at(-1) as number) + 1);
  });

  it("refuses at once a path that cannot be written, saying which and why", () => {
    writeFileSync(join(dir, "a-file"), "");
    const path = join(dir, "a-file", "netemu.log");
    expect(() => openLogFile({ path, maxSize: "1M", maxFiles: 2 })).to.throw(LogFileUnwritable, `Cannot write the log file ${path}: `);
  });

  it("creates the directories of its path", async () => {
    const path = join(dir, "logs", "netemu", "netemu.log");
    const file = openLogFile({ path, maxSize: "1M", maxFiles: 2 });
    new PinoLogger("info", file.stream).info("here");
    await file.close();
    expect(readFileSync(path, "utf8")).to.contain('"msg":"here"');
  });

  it("appends to a log file that already exists", async () => {
    const path = join(dir, "netemu.log");
    writeFileSync(path, '{"msg":"before"}\n');
    const file = openLogFile({ path, maxSize: "1M", maxFiles: 2 });
    new PinoLogger("info", file.stream).info("after");
    await file.close();
    const lines = readFileSync(path, "utf8").trim().split("\n").map((l) => (JSON.parse(l) as { msg: string }).msg);
    expect(lines).to.deep.equal(["before", "after"]);
  });
});

describe("log file settings", () => {
  let dir: string;
  beforeEach(() => (dir = mkdtempSync(join(tmpdir(), "netemu-config-"))));
  afterEach(() => rmSync(dir, { recursive: true, force: true }));

  it("log to stdout unless a file is given", () => {
    expect(resolveConfig(["--config-dir", dir], {}).logFile).to.equal(undefined);
  });

  it("take the file from a flag, with 10M and 5 old files by default", () => {
    expect(resolveConfig(["--config-dir", dir, "--log-file", join(dir, "n.log")], {}).logFile).to.deep.equal({ path: join(dir, "n.log"), maxSize: "10M", maxFiles: 5 });
  });

  it("read log_file, log_max_size and log_max_files from [Server], the environment overriding them", () => {
    writeFileSync(join(dir, "gns3_server.conf"), `[Server]\nlog_file = ${join(dir, "a.log")}\nlog_max_size = 500K\nlog_max_files = 2\n`);
    expect(resolveConfig(["--config-dir", dir], {}).logFile).to.deep.equal({ path: join(dir, "a.log"), maxSize: "500K", maxFiles: 2 });
    const env = { NETEMU_LOG_FILE: join(dir, "b.log"), NETEMU_LOG_MAX_SIZE: "1G", NETEMU_LOG_MAX_FILES: "9" };
    expect(resolveConfig(["--config-dir", dir], env).logFile).to.deep.equal({ path: join(dir, "b.log"), maxSize: "1G", maxFiles: 9 });
  });

  it("refuse a size without its unit, naming where it came from", () => {
    expect(() => resolveConfig(["--config-dir", dir, "--log-file", "x.log", "--log-max-size", "10"], {})).to.throw(ConfigError, '--log-max-size must be a size such as 500K, 10M or 1G, got "10"');
    expect(() => resolveConfig(["--config-dir", dir], { NETEMU_LOG_MAX_SIZE: "10MB" })).to.throw(ConfigError, 'NETEMU_LOG_MAX_SIZE must be a size such as 500K, 10M or 1G, got "10MB"');
  });

  it("refuse to keep no old file at all", () => {
    expect(() => resolveConfig(["--config-dir", dir, "--log-max-files", "0"], {})).to.throw(ConfigError, "--log-max-files must be an integer between 1 and 1000");
  });
});
