import { expect } from "chai";
import { spawnSync } from "node:child_process";
import { mkdirSync, mkdtempSync, rmSync, symlinkSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { CLI, serve, type Served } from "../support/netemu-cli.js";

const SECRET = "root:x:0:0:root:/root:/bin/bash s3cr3t-token";

describe("netemu serve with odd files in the projects path (ADR 0057)", function () {
  this.timeout(30_000);
  let configDir: string;
  let outside: string;
  let running: Served | undefined;
  beforeEach(() => {
    configDir = mkdtempSync(join(tmpdir(), "netemu-odd-cli-"));
    outside = mkdtempSync(join(tmpdir(), "netemu-odd-outside-"));
  });
  afterEach(async () => {
    if (running !== undefined && running.child.exitCode === null) {
      running.child.kill("SIGKILL");
      await running.exit;
    }
    running = undefined;
    rmSync(configDir, { recursive: true, force: true });
    rmSync(outside, { recursive: true, force: true });
  });

  const skips = (s: Served) =>
    s
      .stdout()
      .split("\n")
      .filter((l) => l.includes('"msg":"project file skipped"'))
      .map((l) => JSON.parse(l) as { file: string; reason: string })
      .map(({ file, reason }) => [file, reason]);

  it("starts listening with a FIFO, a symbolic link to a secret file and an oversized file there, logs each skip with its reason, and quotes none of them", async () => {
    const dir = join(configDir, "projects", "lab");
    mkdirSync(dir, { recursive: true });
    expect(spawnSync("mkfifo", [join(dir, "x.gns3")]).status, "mkfifo").to.equal(0);
    writeFileSync(join(outside, "passwd"), SECRET);
    symlinkSync(join(outside, "passwd"), join(dir, "y.gns3"));
    writeFileSync(join(dir, "z.gns3"), SECRET.repeat(100));
    // Before the fix the FIFO held the start for ever: serve() gave up waiting for "netemu listening".
    const s = (running = await serve(configDir, ["--max-project-file-size", "1024"]));
    const listed = await (await fetch(`${s.url}/v2/projects`)).json();
    expect(listed).to.deep.equal([]);
    expect(skips(s)).to.deep.equal([
      [join(dir, "x.gns3"), "a FIFO: only regular files are read as projects"],
      [join(dir, "y.gns3"), "a symbolic link: only regular files are read as projects"],
      [join(dir, "z.gns3"), `${SECRET.length * 100} bytes, more than the 1024 netemu reads (--max-project-file-size)`],
    ]);
    expect(s.stdout()).not.to.include("s3cr3t");
    expect(s.stdout()).not.to.include("root:x");
    // Not only in the log: the API lists them, with the same reasons (ADR 0085).
    const listed2 = (await (await fetch(`${s.url}/v2/netemu/projects/skipped`)).json()) as { path: string; reason: string }[];
    expect(listed2.map(({ path, reason }) => [path, reason])).to.deep.equal(skips(s));
  });

  it("refuses a size or node limit out of range before starting, naming the option", () => {
    for (const [args, message] of [
      [["--max-project-file-size", "12"], '--max-project-file-size must be an integer between 1024 and 1073741824, got "12"'],
      [["--max-project-nodes", "5001"], '--max-project-nodes must be an integer between 1 and 5000, got "5001"'],
    ] as const) {
      const r = spawnSync(process.execPath, [CLI, "serve", "--config-dir", configDir, "--port", "0", ...args], { encoding: "utf8", timeout: 10_000 });
      expect(r.status, r.stderr).to.equal(2);
      expect(r.stderr).to.include(message);
    }
  });
});
