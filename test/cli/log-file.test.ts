import { expect } from "chai";
import { spawn, spawnSync } from "node:child_process";
import { existsSync, mkdtempSync, readdirSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { fileURLToPath } from "node:url";

const CLI = join(fileURLToPath(new URL("../../../", import.meta.url)), "dist", "cli.js");

type Line = { msg: string; level: number; [field: string]: unknown };

const linesOf = (path: string): Line[] =>
  existsSync(path) ? readFileSync(path, "utf8").split("\n").filter((l) => l !== "").map((l) => JSON.parse(l) as Line) : [];

describe("netemu serve --log-file", function () {
  this.timeout(20_000);
  let dir: string;
  beforeEach(() => (dir = mkdtempSync(join(tmpdir(), "netemu-logfile-"))));
  afterEach(() => rmSync(dir, { recursive: true, force: true }));

  it("writes the log to the file, rotated and bounded, says where on stdout, and flushes it on SIGTERM", async () => {
    const log = join(dir, "netemu.log");
    const child = spawn(process.execPath, [CLI, "serve", "--host", "127.0.0.1", "--port", "0", "--config-dir", dir, "--dataplane-workers", "0", "--log-file", log, "--log-max-size", "2K", "--log-max-files", "2"]);
    let out = "";
    child.stdout.on("data", (d: Buffer) => (out += d.toString()));
    const exit = new Promise<number | null>((resolve) => child.once("exit", resolve));
    try {
      let url: string | undefined;
      for (const deadline = Date.now() + 10_000; url === undefined; ) {
        url = linesOf(log).find((l) => l.msg === "netemu listening")?.["url"] as string | undefined;
        if (child.exitCode !== null || Date.now() > deadline) throw new Error(`netemu serve did not start: ${out}`);
        await new Promise((r) => setTimeout(r, 50));
      }
      // About 60 refused requests of ~250 bytes each: several times the 2K limit.
      for (let i = 0; i < 60; i++) await fetch(`${url}/v2/compute/projects/${i}`, { method: "DELETE" });
      child.kill("SIGTERM");
      expect(await exit).to.equal(0);
    } finally {
      if (child.exitCode === null) child.kill("SIGKILL");
    }
    expect(out).to.equal(`netemu: logging to ${log} (rotated at 2K, 2 old files kept)\n`);
    expect(readdirSync(dir).filter((f) => f.startsWith("netemu.log")).sort()).to.deep.equal(["netemu.log", "netemu.log.1", "netemu.log.2"]);
    const all = [...linesOf(`${log}.2`), ...linesOf(`${log}.1`), ...linesOf(log)];
    expect(all.at(-1)?.msg, "the last line written before the exit").to.equal("stopped");
    const refused = all.filter((l) => l.msg === "request");
    expect(refused.at(-1)).to.deep.include({ level: 40, status: 400, url: "/v2/compute/projects/59" });
    expect(refused.at(-1)?.["message"]).to.be.a("string").and.not.equal("");
  });

  it("refuses to start when the log file cannot be written, saying why, with status 2", () => {
    writeFileSync(join(dir, "a-file"), "");
    const log = join(dir, "a-file", "netemu.log");
    const r = spawnSync(process.execPath, [CLI, "serve", "--host", "127.0.0.1", "--port", "0", "--config-dir", dir, "--log-file", log], { encoding: "utf8", timeout: 10_000 });
    expect(r.status).to.equal(2);
    expect(r.stderr).to.match(new RegExp(`^netemu: Cannot write the log file ${log}: `));
    expect(r.stdout).to.equal("");
  });
});
